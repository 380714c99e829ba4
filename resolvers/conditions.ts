import type { Resolvers } from '../src/generated/graphql.js';

export const conditionResolvers: Resolvers = {
  Condition: {
    resource: (c, _a, ctx) => ctx.loaders.resourceById.load(c.resourceId),
  },
};
