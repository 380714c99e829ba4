import type { Resolvers } from '../src/generated/graphql.js';
import { createToken, listTokens, revokeToken } from '../src/services/tokens.js';

export const tokenResolvers: Resolvers = {
  Query: {
    tokens: (_p, _a, ctx) => listTokens(ctx.deps, ctx.principal),
  },
  Mutation: {
    createToken: (_p, { input }, ctx) => createToken(ctx.deps, ctx.principal, input),
    revokeToken: (_p, args, ctx) => revokeToken(ctx.deps, ctx.principal, args),
  },
};
