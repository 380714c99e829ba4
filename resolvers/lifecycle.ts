import type { Resolvers } from '../src/generated/graphql.js';
import { setLifecycle } from '../src/services/resources.js';

export const lifecycleResolvers: Resolvers = {
  Mutation: {
    setLifecycle: async (_p, args, ctx) => {
      const result = await setLifecycle(ctx.deps, ctx.principal, args);
      ctx.loaders.resourceById.prime(result.resource.id, result.resource);
      return result;
    },
  },
};
