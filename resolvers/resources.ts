import type { Resolvers, VmResolvers } from '../src/generated/graphql.js';
import { KIND_LABELS } from '../src/model/index.js';
import { resourceAttributeOwners } from '../src/services/attribute-owners.js';
import { declareResource, removeDeclaredResource } from '../src/services/declared.js';
import { resource, resources, updateEntityAttributes } from '../src/services/resources.js';
import { searchResources } from '../src/services/search.js';
import { connection } from './connection.js';

/** GraphQL type per kind (`... on Vm { state }`): the same names as the kinds' Neo4j labels. */
export const KIND_TYPENAMES = KIND_LABELS;

/** Fields every Resource type resolves alike, through the request's DataLoaders. */
const resourceFields: Pick<VmResolvers, 'relations' | 'conditions' | 'attributeOwners'> = {
  attributeOwners: (r) => resourceAttributeOwners(r),
  relations: (r, args, ctx) =>
    ctx.loaders.relations.load({
      id: r.id,
      types: args.types ?? null,
      direction: args.direction ?? 'BOTH',
      includeStale: args.includeStale ?? false,
    }),
  conditions: (r, args, ctx) => ctx.loaders.conditions.load({ id: r.id, status: args.status ?? null }),
};

export const resourceResolvers: Resolvers = {
  Resource: {
    __resolveType: (r) => KIND_TYPENAMES[r.kind],
  },
  Cluster: resourceFields,
  Host: resourceFields,
  Vm: resourceFields,
  Lxc: resourceFields,
  Storage: resourceFields,
  Network: resourceFields,
  Service: resourceFields,
  Query: {
    resource: async (_p, args, ctx) => {
      const r = await resource(ctx.deps, ctx.principal, args);
      ctx.loaders.resourceById.prime(r.id, r);
      return r;
    },
    resources: async (_p, args, ctx) => {
      const page = await resources(ctx.deps, ctx.principal, args);
      for (const r of page.nodes) ctx.loaders.resourceById.prime(r.id, r);
      return { ...connection(page), totalCount: page.totalCount };
    },
    searchResources: async (_p, args, ctx) => {
      const found = await searchResources(ctx.deps, ctx.principal, args);
      for (const r of found) ctx.loaders.resourceById.prime(r.id, r);
      return found;
    },
  },
  Mutation: {
    updateEntityAttributes: (_p, args, ctx) => updateEntityAttributes(ctx.deps, ctx.principal, args),
    declareResource: (_p, { input }, ctx) => declareResource(ctx.deps, ctx.principal, input),
    removeDeclaredResource: (_p, args, ctx) => removeDeclaredResource(ctx.deps, ctx.principal, args),
  },
};
