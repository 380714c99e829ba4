import { makeExecutableSchema } from '@graphql-tools/schema';
import { execute, type ExecutionResult, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { codedErrors } from '../../../src/server/errors.js';
import { createExecutor } from '../../../src/server/executor.js';

// A schema with each way a field can end: values, nulls where the schema promises none (in
// objects and in lists), thrown errors, async resolvers, abstract types, enums that cannot
// serialise a value, arguments with defaults and mutations that must run one after another.
const schema = makeExecutableSchema({
  typeDefs: /* GraphQL */ `
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
      echo(text: String!, times: Int = 1): [String!]!
    }
    type Mutation {
      push(v: Int!): [Int!]!
    }
  `,
  resolvers: {
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
  [
    'skip and include by variable',
    'query($y: Boolean!) { items { id @include(if: $y) n @skip(if: $y) } }',
    { y: true },
  ],
  ['fragments and __typename', '{ pets { __typename name ... on Dog { barks } ...C } } fragment C on Cat { lives }'],
  ['a null where the schema promises a value', '{ mustHave items(first: 1) { id } }'],
  ['nulls inside a nullable list of non-null fields', '{ maybeItems { id n } }'],
  ['a resolver that throws, beside an async one', '{ broken late { id tag color } }'],
  ['an enum that cannot serialise its value', '{ badEnum late { id } }'],
  ['aliases in selection order', '{ z: late { id } a: echo(text: "x", times: 2) m: items(first: 1) { n } }'],
  ['introspection', '{ __type(name: "Item") { name fields { name } } __schema { queryType { name } } }'],
  ['mutations in order', 'mutation { a: push(v: 1) b: push(v: 5) c: push(v: 9) }'],
];

const plain = (r: ExecutionResult) => JSON.parse(JSON.stringify(r)) as unknown;
const argsOf = (document: ReturnType<typeof parse>, variableValues?: Record<string, unknown>) => ({
  schema,
  document,
  contextValue: {},
  ...(variableValues ? { variableValues } : {}),
});

describe('the compiled executor', () => {
  it.each(CASES.filter(([, q]) => !q.startsWith('mutation')))(
    'answers as graphql-js does: %s',
    async (_name, query, variables) => {
      const compiled = createExecutor({ compileAfter: 0 });
      const document = parse(query);
      const expected = plain(await execute(argsOf(document, variables)));
      const got = await compiled(argsOf(document, variables));
      expect(compiled.counts).toEqual({ interpreted: 0, compiled: 1 });
      expect(plain(got)).toEqual(expected);
      // Keys in the order the operation selected them, as graphql-js writes them.
      expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
    },
  );

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

  it('leaves an operation it cannot compile to graphql-js (an unknown operation name)', async () => {
    const run = createExecutor({ compileAfter: 0 });
    const args = { ...argsOf(parse('query A { mustHave }')), operationName: 'Nope' };
    const expected = plain(await execute(args));
    expect(plain(await run(args))).toEqual(expected);
    expect(run.counts).toEqual({ interpreted: 1, compiled: 0 });
  });

  it("gives graphql-jit's own errors a code on the way out, as graphql-js's get", async () => {
    const document = parse('{ mustHave }');
    const result = await createExecutor({ compileAfter: 0 })(argsOf(document));
    const reference = await execute(argsOf(document));
    for (const r of [result, reference]) {
      (codedErrors.onResultProcess as (p: { result: ExecutionResult }) => void)({ result: r });
    }
    expect(plain(result)).toEqual(plain(reference));
    expect(plain(result)).toMatchObject({
      errors: [
        { path: ['mustHave'], locations: [{ line: 1, column: 3 }], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ],
      data: null,
    });
  });
});
