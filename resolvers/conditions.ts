import type { Resolvers } from '../src/generated/graphql.js';
import { conditionCause, conditionNarrative, conditions, openConditions } from '../src/services/health.js';
import { conditionFeed, type ConditionChange } from '../src/services/feed.js';
import { connection } from './connection.js';
import type { RequestContext } from './context.js';

/** The request's DataLoaders as the condition services read through them. */
const readers = (ctx: RequestContext) => ({
  transition: (id: string) => ctx.loaders.transitionById.load(id),
  resource: (id: string) => ctx.loaders.resourceById.load(id),
});

export const conditionResolvers: Resolvers = {
  Condition: {
    resource: (c, _a, ctx) => ctx.loaders.resourceById.load(c.resourceId),
    cause: (c, _a, ctx) => conditionCause(c, readers(ctx)),
    expected: async (c, _a, ctx) => (await conditionCause(c, readers(ctx)))?.expected ?? false,
    narrative: (c, { zone }, ctx) => conditionNarrative(ctx.deps, c, zone, readers(ctx)),
    attributionHistory: (c) => c.attributionHistory ?? [],
  },
  Query: {
    conditions: async (_p, args, ctx) => connection(await conditions(ctx.deps, ctx.principal, args)),
    openConditions: (_p, args, ctx) => openConditions(ctx.deps, ctx.principal, args),
  },
  Subscription: {
    conditionChanged: {
      subscribe: (_p, args, ctx) => conditionFeed(ctx.deps, ctx.principal, { ...args, lastEventId: ctx.lastEventId }),
      resolve: (c: ConditionChange) => c,
    },
  },
};
