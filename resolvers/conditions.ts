import type { Resolvers } from '../src/generated/graphql.js';
import { conditions, openConditions } from '../src/services/health.js';
import { connection } from './connection.js';

export const conditionResolvers: Resolvers = {
  Condition: {
    resource: (c, _a, ctx) => ctx.loaders.resourceById.load(c.resourceId),
  },
  Query: {
    conditions: async (_p, args, ctx) => connection(await conditions(ctx.deps, ctx.principal, args)),
    openConditions: (_p, args, ctx) => openConditions(ctx.deps, ctx.principal, args),
  },
};
