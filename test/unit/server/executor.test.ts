import { makeExecutableSchema } from '@graphql-tools/schema';
import { execute, type ExecutionResult, GraphQLError, GraphQLScalarType, parse } from 'graphql';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { codedErrors, makeMaskError } from '../../../src/server/errors.js';
import { createExecutor } from '../../../src/server/executor.js';

// A schema with each way a field can end: values, nulls where the schema promises none (in
// objects and in lists), thrown errors, async resolvers, abstract types, enums that cannot
// serialise a value, scalars that refuse one with their own error, arguments with defaults and
// mutations that must run one after another.
const schema = makeExecutableSchema({
  typeDefs: /* GraphQL */ `
    scalar Stamp
    enum Color {
      RED
      GREEN
    }
    interface Named {
      name: String!
    }
    type Dog implements Named {
      name: String!
      barks: Boolean!
    }
    type Cat implements Named {
      name: String!
      lives: Int!
    }
    type Item {
      id: ID!
      n: Int!
      color: Color
      tag: String
    }
    type Query {
      items(first: Int = 3, color: Color): [Item!]!
      maybeItems: [Item]
      pets: [Named!]!
      mustHave: String!
      broken: String
      late: Item
      badEnum: Color
      stamps: [Stamp]
      echo(text: String!, times: Int = 1): [String!]!
    }
    type Mutation {
      push(v: Int!): [Int!]!
    }
  `,
  resolvers: {
    // A scalar that refuses to serialise a value with a GraphQLError of its own, as DateTime does.
    Stamp: new GraphQLScalarType({
      name: 'Stamp',
      serialize: (v) => {
        if (typeof v === 'string' && v.endsWith('Z')) return v;
        // No extensions, as DateTime's: graphql-jit keeps a serializer error's message, not its extensions.
        throw new GraphQLError(`Stamp cannot represent ${String(v)}`);
      },
    }),
    Query: {
      items: (_p, a: { first: number; color?: string }) =>
        Array.from({ length: a.first }, (_, i) => ({ id: `i${i}`, n: i, color: a.color ?? (i % 2 ? 'RED' : 'GREEN') })),
      maybeItems: () => [{ id: 'a', n: 1 }, null, { id: 'c', n: null }],
      pets: () => [
        { name: 'rex', barks: true },
        { name: 'tom', lives: 9 },
      ],
      mustHave: () => null,
      broken: () => {
        throw new Error('resolver failed');
      },
      late: async () => {
        await new Promise((r) => setTimeout(r, 5));
        return { id: 'late', n: 7, color: 'RED', tag: null };
      },
      badEnum: () => 'BLUE',
      stamps: () => ['2026-05-14T02:08:31Z', 'yesterday'],
      echo: (_p, a: { text: string; times: number }) => Array.from({ length: a.times }, () => a.text),
    },
    Named: { __resolveType: (p: { barks?: boolean }) => (p.barks === undefined ? 'Cat' : 'Dog') },
    Mutation: {
      push: (() => {
        const log: number[] = [];
        return async (_p: unknown, a: { v: number }) => {
          await new Promise((r) => setTimeout(r, 10 - a.v));
          log.push(a.v);
          return [...log];
        };
      })(),
    },
  },
});

const CASES: Array<[string, string, Record<string, unknown>?]> = [
  ['lists with arguments and defaults', '{ items { id n color } two: items(first: 2, color: RED) { n } }'],
  ['variables', 'query($f: Int, $c: Color) { items(first: $f, color: $c) { id color } }', { f: 4, c: 'GREEN' }],
  ['fragments and __typename', '{ pets { __typename name ... on Dog { barks } ...C } } fragment C on Cat { lives }'],
  ['a null where the schema promises a value', '{ mustHave items(first: 1) { id } }'],
  ['nulls inside a nullable list of non-null fields', '{ maybeItems { id n } }'],
  ['a resolver that throws, beside an async one', '{ broken late { id tag color } }'],
  ['an enum that cannot serialise its value', '{ badEnum late { id } }'],
  ['a scalar that refuses a value with its own error', '{ stamps }'],
  ['aliases in selection order', '{ z: late { id } a: echo(text: "x", times: 2) m: items(first: 1) { n } }'],
  ['introspection', '{ __type(name: "Item") { name fields { name } } __schema { queryType { name } } }'],
];

const plain = (r: ExecutionResult) => JSON.parse(JSON.stringify(r)) as unknown;
/** The result as the service sends it: each error masked (yoga's maskedErrors), then coded. */
const servedBy =
  (mask: ReturnType<typeof makeMaskError>) =>
  (r: ExecutionResult): unknown => {
    const out = r.errors ? { ...r, errors: r.errors.map((e) => mask(e, 'Unexpected error.')) } : r;
    (codedErrors.onResultProcess as (p: { result: ExecutionResult }) => void)({ result: out as ExecutionResult });
    return JSON.parse(JSON.stringify(out));
  };
const served = servedBy(makeMaskError(createLogger('silent')));
const argsOf = (document: ReturnType<typeof parse>, variableValues?: Record<string, unknown>) => ({
  schema,
  document,
  contextValue: {},
  ...(variableValues ? { variableValues } : {}),
});

describe('the compiled executor', () => {
  it.each(CASES)('answers as graphql-js does: %s', async (_name, query, variables) => {
    const compiled = createExecutor({ compileAfter: 0 });
    const document = parse(query);
    const reference = await execute(argsOf(document, variables));
    const got = await compiled(argsOf(document, variables));
    expect(compiled.counts).toEqual({ interpreted: 0, compiled: 1 });
    expect(plain(got)).toEqual(plain(reference));
    // Keys in the order the operation selected them, as graphql-js writes them.
    expect(JSON.stringify(got)).toBe(JSON.stringify(reference));
    expect(JSON.stringify(served(got))).toBe(JSON.stringify(served(reference)));
  });

  it('runs mutation fields one after another, as graphql-js does', async () => {
    const compiled = createExecutor({ compileAfter: 0 });
    const document = parse('mutation { a: push(v: 1) b: push(v: 5) c: push(v: 9) }');
    const got = plain(await compiled(argsOf(document)));
    expect(compiled.counts.compiled).toBe(1);
    expect(got).toEqual({ data: { a: [1], b: [1, 5], c: [1, 5, 9] } });
  });

  it('compiles an operation on its run after compileAfter, and each operation of a document apart', async () => {
    const run = createExecutor({ compileAfter: 1 });
    const document = parse('query A { items(first: 1) { n } } query B { late { id } }');
    const a = { ...argsOf(document), operationName: 'A' };
    const b = { ...argsOf(document), operationName: 'B' };
    const first = plain(await run(a));
    expect(run.counts).toEqual({ interpreted: 1, compiled: 0 });
    expect(plain(await run(a))).toEqual(first);
    expect(run.counts).toEqual({ interpreted: 1, compiled: 1 });
    await run(b);
    expect(run.counts).toEqual({ interpreted: 2, compiled: 1 });
    // The same text parsed again is another document: it starts over.
    await run({ ...a, document: parse('query A { items(first: 1) { n } } query B { late { id } }') });
    expect(run.counts).toEqual({ interpreted: 3, compiled: 1 });
  });

  it.each([
    ['a variable of the wrong type', { f: 'two' }],
    ['an enum value the schema does not have', { f: 1, c: 'BLUE' }],
    ['a required variable left out', {}],
  ])('leaves %s to graphql-js, whose refusal the API documents', async (_name, variables) => {
    const run = createExecutor({ compileAfter: 0 });
    const document = parse('query($f: Int!, $c: Color) { items(first: $f, color: $c) { id } }');
    const expected = plain(await execute(argsOf(document, variables)));
    expect((expected as { errors?: unknown[] }).errors?.length).toBeGreaterThan(0);
    expect(plain(await run(argsOf(document, variables)))).toEqual(expected);
    expect(run.counts).toEqual({ interpreted: 1, compiled: 0 });
  });

  // graphql-jit 0.8.9 answers the first three without the fragment's fields (the second and third
  // even with its useExperimentalPathBasedSkipInclude), so @skip/@include stay on graphql-js.
  it.each([
    [
      'query($y: Boolean!) { items(first: 1) { ...F @include(if: $y) id } late { ...F } } fragment F on Item { n tag }',
      { y: false },
    ],
    [
      'query($y: Boolean!) { late { ...F @include(if: $y) ...F @skip(if: $y) } } fragment F on Item { n tag }',
      { y: false },
    ],
    [
      'query($y: Boolean!, $z: Boolean!) { late { ...F @include(if: $y) ...G } } fragment F on Item { n } fragment G on Item { ...F @include(if: $z) }',
      { y: false, z: true },
    ],
    ['query($y: Boolean!) { items { id @include(if: $y) n @skip(if: $y) } }', { y: true }],
  ])('leaves @skip and @include to graphql-js: %s', async (query, variables) => {
    const run = createExecutor({ compileAfter: 0 });
    const document = parse(query);
    const expected = await execute(argsOf(document, variables));
    expect(JSON.stringify(await run(argsOf(document, variables)))).toBe(JSON.stringify(expected));
    expect(run.counts).toEqual({ interpreted: 1, compiled: 0 });
  });

  it('leaves an operation it cannot compile to graphql-js (an unknown operation name)', async () => {
    const run = createExecutor({ compileAfter: 0 });
    const args = { ...argsOf(parse('query A { mustHave }')), operationName: 'Nope' };
    const expected = plain(await execute(args));
    expect(plain(await run(args))).toEqual(expected);
    expect(run.counts).toEqual({ interpreted: 1, compiled: 0 });
  });

  it.each([
    ['a null where the schema promises a value', '{ mustHave }', 'Cannot return null'],
    ['a value a scalar refuses', '{ stamps }', 'Stamp cannot represent yesterday'],
  ])('serves %s as graphql-js does: masked with its place and a code, the cause logged', async (_n, query, cause) => {
    const logged: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
    const serve = servedBy(makeMaskError(log));
    const document = parse(query);
    const got = serve(await createExecutor({ compileAfter: 0 })(argsOf(document)));
    expect(got).toEqual(serve(await execute(argsOf(document))));
    expect(got).toMatchObject({
      errors: [
        {
          message: 'Unexpected error.',
          path: expect.any(Array) as unknown,
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
    });
    expect(logged).toHaveLength(2);
    for (const line of logged) expect(line).toContain(cause);
  });
});
