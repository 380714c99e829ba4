import type { Resolvers } from '../src/generated/graphql.js';
import { about } from '../src/services/about.js';

export const aboutResolvers: Resolvers = {
  Query: {
    about: (_p, _a, ctx) => about(ctx.deps, ctx.principal),
  },
};
