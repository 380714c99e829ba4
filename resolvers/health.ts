import type { Resolvers } from '../src/generated/graphql.js';
import { healthSummary } from '../src/services/health.js';

export const healthResolvers: Resolvers = {
  Query: {
    healthSummary: (_p, { scope }, ctx) => healthSummary(ctx.deps, ctx.principal, scope ?? {}),
  },
};
