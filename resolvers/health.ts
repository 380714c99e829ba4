import type { Resolvers } from '../src/generated/graphql.js';
import { healthFeed, type HealthChange } from '../src/services/feed.js';
import { healthSummary } from '../src/services/health.js';

export const healthResolvers: Resolvers = {
  HealthChange: {
    resource: (h, _a, ctx) => ctx.loaders.resourceById.load(h.resourceId),
  },
  Query: {
    healthSummary: (_p, { scope }, ctx) => healthSummary(ctx.deps, ctx.principal, scope ?? {}),
  },
  Subscription: {
    healthChanged: {
      subscribe: (_p, args, ctx) => healthFeed(ctx.deps, ctx.principal, { ...args, lastEventId: ctx.lastEventId }),
      resolve: (h: HealthChange) => h,
    },
  },
};
