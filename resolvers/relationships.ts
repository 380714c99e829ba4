import type { Resolvers } from '../src/generated/graphql.js';
import {
  createRelationship,
  dependencies,
  dependents,
  identity,
  relations,
  removeRelationship,
} from '../src/services/relationships.js';
import { traverseViewOf } from './selection.js';

export const relationshipResolvers: Resolvers = {
  Relationship: {
    from: async (e, _a, ctx) => (await ctx.loaders.resourceById.load(e.fromId))!,
    to: async (e, _a, ctx) => (await ctx.loaders.resourceById.load(e.toId))!,
  },
  Query: {
    relations: (_p, args, ctx) => relations(ctx.deps, ctx.principal, args),
    dependents: (_p, args, ctx, info) => dependents(ctx.deps, ctx.principal, args, traverseViewOf(info)),
    dependencies: (_p, args, ctx, info) => dependencies(ctx.deps, ctx.principal, args, traverseViewOf(info)),
    identity: async (_p, args, ctx) => {
      const found = await identity(ctx.deps, ctx.principal, args);
      for (const { resource } of found.links) ctx.loaders.resourceById.prime(resource.id, resource);
      return found;
    },
  },
  Mutation: {
    createRelationship: (_p, { input }, ctx) => createRelationship(ctx.deps, ctx.principal, input),
    removeRelationship: (_p, { input }, ctx) => removeRelationship(ctx.deps, ctx.principal, input),
  },
};
