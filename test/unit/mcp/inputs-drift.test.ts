import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MCP_INPUTS_FILE, mcpInputsSource } from '../../../scripts/mcp-inputs.js';
import { TOOLS } from '../../../src/mcp/tools.js';
import { findPackageRoot } from '../../../src/package-root.js';

/*
 * One shape per operation: each MCP tool's arguments are its GraphQL field's, built from the SDL
 * (src/generated/mcp-inputs.ts). A field added to the SDL or to a tool alone, or one required on
 * one side and optional on the other, fails here.
 */

const root = findPackageRoot();
const schemaDir = join(root, 'schema');
const schema = buildSchema(
  readdirSync(schemaDir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => readFileSync(join(schemaDir, f), 'utf8'))
    .join('\n'),
);

/** MCP-only arguments: the tools that page an answer their field gives whole (src/mcp/paging.ts). */
const PAGED_BY_THE_TOOL = new Set(['relations', 'dependents', 'dependencies', 'open_conditions', 'list_checks']);
/** Tools whose arguments knowingly differ: resource(id, slug) is one `id` that takes either. */
const RESHAPED: Record<string, { sdl: Shape; mcp: Shape }> = {
  resource_get: {
    sdl: { id: { required: false, type: 'string' }, slug: { required: false, type: 'string' } },
    mcp: { id: { required: true, type: 'string' } },
  },
  // reportActionTaken(input:, providerTaskId:): the tool takes the input's fields flat, providerTaskId beside them.
  report_action_taken: {
    get sdl(): Shape {
      return operationShape('Mutation.reportActionTaken');
    },
    get mcp(): Shape {
      const { input, providerTaskId } = operationShape('Mutation.reportActionTaken');
      return { ...input!.fields!, providerTaskId: providerTaskId! };
    },
  },
};

interface Member {
  required: boolean;
  type: string;
  /** An enum's values (a tool may take fewer), a list's item, an input object's fields. */
  values?: string[];
  item?: Omit<Member, 'required'>;
  fields?: Shape;
  description?: string;
}
type Shape = Record<string, Member>;

const SCALAR_TYPES: Record<string, string> = {
  ID: 'string',
  String: 'string',
  DateTime: 'string',
  Int: 'number',
  Float: 'number',
  Boolean: 'boolean',
  JSON: 'json',
};

function sdlValue(type: GraphQLInputType): Omit<Member, 'required'> {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) return { type: 'list', item: sdlValue(t.ofType) };
  const named = getNamedType(t);
  if (isEnumType(named)) return { type: 'enum', values: named.getValues().map((v) => v.name) };
  if (isInputObjectType(named)) return { type: 'object', fields: sdlShape(Object.values(named.getFields())) };
  return { type: SCALAR_TYPES[named.name] ?? `scalar ${named.name}` };
}

function sdlShape(members: readonly (GraphQLArgument | GraphQLInputField)[]): Shape {
  return Object.fromEntries(
    members.map((m) => [
      m.name,
      {
        required: isNonNullType(m.type) && m.defaultValue === undefined,
        ...sdlValue(m.type),
        ...(m.description ? { description: m.description.replace(/\s*\n\s*/g, ' ') } : {}),
      },
    ]),
  );
}

/** The arguments a tool should take: its field's, or the fields of its field's one input object. */
function operationShape(graphql: string): Shape {
  const [rootName, field] = graphql.split('.') as ['Query' | 'Mutation', string];
  const rootType = rootName === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const op = rootType?.getFields()[field];
  if (!op) throw new Error(`${graphql} is not in the SDL`);
  const only = op.args.length === 1 ? getNamedType(op.args[0]!.type) : undefined;
  return isInputObjectType(only) ? sdlShape(Object.values(only.getFields())) : sdlShape(op.args);
}

function zodValue(schema: z.ZodType, ref: Omit<Member, 'required'> | undefined): Omit<Member, 'required'> {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable) {
    s = s.def.innerType as z.ZodType;
  }
  // A tool may take a JSON argument in any narrower shape (an object of attributes, a scalar).
  if (ref?.type === 'json') return { type: 'json' };
  if (s instanceof z.ZodArray) return { type: 'list', item: zodValue(s.element as z.ZodType, ref?.item) };
  if (s instanceof z.ZodEnum) return { type: 'enum', values: s.options.map(String) };
  if (s instanceof z.ZodObject) return { type: 'object', fields: zodShape(s, ref?.fields) };
  if (s instanceof z.ZodString) return { type: 'string' };
  if (s instanceof z.ZodNumber) return { type: 'number' };
  if (s instanceof z.ZodBoolean) return { type: 'boolean' };
  return { type: s.def.type };
}

function zodShape(object: z.ZodObject, sdl?: Shape): Shape {
  return Object.fromEntries(
    Object.entries(object.shape as Record<string, z.ZodType>).map(([name, field]) => [
      name,
      {
        required: !field.safeParse(undefined).success,
        ...zodValue(field, sdl?.[name]),
        ...(field.description ? { description: field.description } : {}),
      },
    ]),
  );
}

/**
 * The parts of a shape that must agree with another: names, required, type, list items, nested
 * fields and enum values. `within` (the tool's shape) keeps of this shape's enum values only those
 * the tool takes: a tool may take fewer (declare_resource's kinds), never others.
 */
function comparable(shape: Shape, within?: Shape): Record<string, unknown> {
  type Value = Omit<Member, 'required'> & { required?: boolean };
  const strip = (m: Value, other: Value | undefined): unknown => ({
    ...(m.required === undefined ? {} : { required: m.required }),
    type: m.type,
    ...(m.values ? { values: m.values.filter((v) => !other?.values || other.values.includes(v)).sort() } : {}),
    ...(m.item ? { item: strip(m.item, other?.item) } : {}),
    ...(m.fields ? { fields: comparable(m.fields, other ? (other.fields ?? {}) : undefined) } : {}),
  });
  return Object.fromEntries(Object.entries(shape).map(([k, m]) => [k, strip(m, within?.[k])]));
}

const toolsWithTheirFields = TOOLS.map((t) => [t.name, t] as const);

describe(MCP_INPUTS_FILE, () => {
  it('is what the generator writes from schema/*.graphql now', async () => {
    const file = join(root, MCP_INPUTS_FILE);
    expect(readFileSync(file, 'utf8'), `${MCP_INPUTS_FILE} is out of date: run \`npm run codegen\``).toBe(
      await mcpInputsSource(schema, file),
    );
  });
});

describe('each MCP tool takes its GraphQL operation’s arguments', () => {
  it.each(toolsWithTheirFields)('%s', (name, tool) => {
    const sdl = RESHAPED[name]?.sdl ?? operationShape(tool.graphql);
    const expected: Shape = PAGED_BY_THE_TOOL.has(name)
      ? { ...sdl, first: { required: false, type: 'number' }, after: { required: false, type: 'string' } }
      : sdl;
    const mcp = zodShape(tool.input, RESHAPED[name]?.mcp ?? expected);
    if (RESHAPED[name]) expect(comparable(operationShape(tool.graphql))).toEqual(comparable(RESHAPED[name].sdl));
    const wanted = RESHAPED[name]?.mcp ?? expected;
    expect(comparable(mcp)).toEqual(comparable(wanted, mcp));
  });

  it('shows the SDL’s description of every argument (the paging arguments describe their bounds)', () => {
    const missing = TOOLS.flatMap((t) => {
      if (RESHAPED[t.name]) return [];
      const walk = (sdl: Shape, mcp: Shape, path: string): string[] =>
        Object.entries(sdl).flatMap(([k, m]) => [
          ...(m.description && !['first', 'after'].includes(k) && mcp[k]?.description !== m.description
            ? [`${t.name}: ${path}${k}`]
            : []),
          ...(m.fields && mcp[k]?.fields ? walk(m.fields, mcp[k].fields, `${path}${k}.`) : []),
          ...(m.item?.fields && mcp[k]?.item?.fields ? walk(m.item.fields, mcp[k].item.fields, `${path}${k}[].`) : []),
        ]);
      const sdl = operationShape(t.graphql);
      return walk(sdl, zodShape(t.input, sdl), '');
    });
    expect(missing).toEqual([]);
  });

  it('notices a field the SDL has and a tool does not', () => {
    const sdl = operationShape('Mutation.deny');
    const tool = TOOLS.find((t) => t.name === 'deny')!;
    const short = tool.input.omit({ reason: true });
    expect(comparable(zodShape(short, sdl))).not.toEqual(comparable(sdl, zodShape(short, sdl)));
    const longer = tool.input.extend({ note: z.string().optional() });
    expect(comparable(zodShape(longer, sdl))).not.toEqual(comparable(sdl, zodShape(longer, sdl)));
    const optional = tool.input.partial({ reason: true });
    expect(comparable(zodShape(optional, sdl))).not.toEqual(comparable(sdl, zodShape(optional, sdl)));
    const kinds = operationShape('Mutation.declareResource');
    const other = TOOLS.find((t) => t.name === 'declare_resource')!.input.extend({ kind: z.enum(['service', 'dog']) });
    expect(comparable(zodShape(other, kinds))).not.toEqual(comparable(kinds, zodShape(other, kinds)));
  });
});
