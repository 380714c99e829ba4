import type { Resolvers } from '../src/generated/graphql.js';
import { notificationDeliveries, replayNotification } from '../src/services/notifications.js';

export const notificationResolvers: Resolvers = {
  Query: {
    notificationDeliveries: (_p, args, ctx) => notificationDeliveries(ctx.deps, ctx.principal, args),
  },
  Mutation: {
    replayNotification: (_p, args, ctx) => replayNotification(ctx.deps, ctx.principal, args),
  },
};
