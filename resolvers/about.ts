import type { Resolvers } from '../src/generated/graphql.js';

export const aboutResolvers: Resolvers = {
  Query: {
    about: (_p, _a, ctx) => ({
      version: ctx.services.version,
      principal: ctx.principal.name,
      role: ctx.principal.role,
      policyDigest: ctx.services.policy?.digest ?? null,
    }),
  },
};
