import type { Resolvers } from '../src/generated/graphql.js';
import { classifyAction, policy } from '../src/services/gate.js';
import { replayDecision } from '../src/services/replay.js';

export const policyResolvers: Resolvers = {
  Query: {
    policy: (_p, _a, ctx) => policy(ctx.deps, ctx.principal),
    replayDecision: (_p, args, ctx) => replayDecision(ctx.deps, ctx.principal, args),
    classifyAction: async (_p, { input }, ctx) => {
      const answer = await classifyAction(ctx.deps, ctx.principal, input);
      const { resource } = answer.target;
      if (resource) ctx.loaders.resourceById.prime(resource.id, resource);
      return answer;
    },
  },
};
