import type { Resolvers } from '../src/generated/graphql.js';
import { checkTarget } from '../src/model/index.js';
import { checks, createCheck, httpSpecOf, recentResults, removeCheck, tcpSpecOf } from '../src/services/checks.js';

export const checkResolvers: Resolvers = {
  Check: {
    resource: (c, _a, ctx) => ctx.loaders.resourceById.load(c.resourceId),
    http: (c) => httpSpecOf(c),
    tcp: (c) => tcpSpecOf(c),
    target: (c) => checkTarget(c),
    failing: (c) => c.failing.active,
    unreachable: (c) => c.unreachable.active,
    latest: (c) => c.results[0] ?? null,
    results: (c, { last }) => recentResults(c, last),
  },
  Query: {
    checks: (_p, args, ctx) => checks(ctx.deps, ctx.principal, args),
  },
  Mutation: {
    createCheck: (_p, { input }, ctx) => createCheck(ctx.deps, ctx.principal, input),
    removeCheck: (_p, args, ctx) => removeCheck(ctx.deps, ctx.principal, args),
  },
};
