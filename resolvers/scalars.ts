import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { DateTime } from 'luxon';
import { isoZoneProblem } from '../src/model/index.js';

/** ISO-8601 in, ISO-8601 UTC out; anything luxon cannot read is refused with the value shown. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO-8601 timestamp, always returned in UTC.',
  serialize(value) {
    if (value instanceof Date) return DateTime.fromJSDate(value, { zone: 'utc' }).toISO();
    if (typeof value === 'string') return value;
    throw new GraphQLError(`DateTime cannot represent ${String(value)}`);
  },
  parseValue(value) {
    return parseIso(value);
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING)
      throw new GraphQLError('DateTime must be an ISO-8601 string, e.g. 2026-05-14T02:08:31Z', {
        extensions: { code: 'BAD_USER_INPUT' },
      });
    return parseIso(ast.value);
  },
});

function parseIso(value: unknown): string {
  const dt = typeof value === 'string' ? DateTime.fromISO(value, { setZone: true }) : null;
  if (!dt || !dt.isValid) {
    throw new GraphQLError(`DateTime: ${JSON.stringify(value)} is not ISO-8601 (e.g. 2026-05-14T02:08:31Z)`, {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  const zone = isoZoneProblem(value as string);
  if (zone) throw new GraphQLError(`DateTime: ${zone}`, { extensions: { code: 'BAD_USER_INPUT' } });
  return dt.toUTC().toISO()!;
}

function literalValue(ast: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literalValue(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalValue(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      return undefined;
  }
}

/** Any JSON value, passed through as is. */
export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => literalValue(ast, variables),
});
