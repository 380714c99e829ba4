import { buildSchema, graphql, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { traverseViewOf } from '../../../resolvers/selection.js';

// A cut of the real shape: an interface with per-kind types, reached through a list.
const schema = buildSchema(`
  interface Resource { id: ID! name: String! kind: String! state: String relations: [String!]! }
  type Vm implements Resource { id: ID! name: String! kind: String! state: String relations: [String!]! }
  type Host implements Resource { id: ID! name: String! kind: String! state: String relations: [String!]! }
  type Step { id: ID! }
  type Reached { resource: Resource! depth: Int! path: [Step!]! }
  type Traversal { count: Int! reached: [Reached!]! }
  type Query { dependents: Traversal }
`);

/** The view the resolver would pass for `query`. */
async function viewOf(query: string) {
  let seen: unknown = null;
  const rootValue = {
    dependents: (_a: unknown, _c: unknown, info: GraphQLResolveInfo) => {
      seen = traverseViewOf(info);
      return null;
    },
  };
  const result = await graphql({ schema, source: query, rootValue });
  expect(result.errors).toBeUndefined();
  return seen;
}

describe('traverseViewOf: how much of a walk a query needs', () => {
  it.each([
    ['{ dependents { count } }', { resources: 'identity', path: false }],
    ['{ dependents { reached { depth resource { id } } } }', { resources: 'identity', path: false }],
    [
      '{ dependents { reached { resource { __typename id kind name relations } } } }',
      { resources: 'identity', path: false },
    ],
    ['{ dependents { reached { resource { id } path { id } } } }', { resources: 'identity', path: true }],
    ['{ dependents { reached { resource { id state } } } }', { resources: 'full', path: false }],
    ['{ dependents { reached { resource { ... on Vm { state } } } } }', { resources: 'full', path: false }],
    ['{ dependents { reached { r: resource { s: state } } } }', { resources: 'full', path: false }],
    [
      '{ dependents { ...w } } fragment w on Traversal { reached { p: path { id } resource { ...v } } } fragment v on Host { state }',
      { resources: 'full', path: true },
    ],
    ['{ dependents { reached { resource { ... on Vm { id name } } } } }', { resources: 'identity', path: false }],
  ])('%s → %j', async (query, view) => {
    expect(await viewOf(query)).toEqual(view);
  });
});
