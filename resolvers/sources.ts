import type { Resolvers } from '../src/generated/graphql.js';
import { sources } from '../src/services/sources.js';

export const sourceResolvers: Resolvers = {
  Query: {
    sources: (_p, _a, ctx) => sources(ctx.deps, ctx.principal),
  },
};
