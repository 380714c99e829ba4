import type { Resolvers } from '../src/generated/graphql.js';
import { ingestVcenterInventory } from '../src/services/ingest.js';

export const ingestResolvers: Resolvers = {
  Mutation: {
    ingestVcenterInventory: (_p, args, ctx) => ingestVcenterInventory(ctx.deps, ctx.principal, args),
  },
};
