import type { Resolvers } from '../src/generated/graphql.js';
import { classifyAction, policy } from '../src/services/gate.js';

export const policyResolvers: Resolvers = {
  Query: {
    policy: (_p, _a, ctx) => policy(ctx.deps, ctx.principal),
    classifyAction: async (_p, { input }, ctx) => {
      const answer = await classifyAction(ctx.deps, ctx.principal, input);
      const { resource } = answer.target;
      if (resource) ctx.loaders.resourceById.prime(resource.id, resource);
      return answer;
    },
  },
};
