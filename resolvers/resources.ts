import { assertCan } from '../src/server/permissions.js';
import { audited } from '../src/server/audited.js';
import { listResources } from '../src/graph/resource-queries.js';
import { resolveResource, updateAttributes } from '../src/graph/resources.js';
import { badInput, type Kind, KIND_LABELS } from '../src/model/index.js';
import type { Resolvers } from '../src/generated/graphql.js';

/** GraphQL type per kind (`... on Vm { state }`): the same names as the kinds' Neo4j labels. */
export const KIND_TYPENAMES: Readonly<Record<Kind, string>> = KIND_LABELS;

const cursorOf = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
function idOfCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!id.includes(':')) throw badInput('after', 'not a cursor returned by resources');
  return id;
}

/** Fields shared by every Resource type. */
const resourceFields = {
  relations: (
    r: { id: string },
    args: { types?: readonly string[] | null; direction?: string | null; includeStale?: boolean | null },
    ctx: { loaders: { relations: { load(k: unknown): Promise<unknown> } } },
  ) =>
    ctx.loaders.relations.load({
      id: r.id,
      types: args.types ?? null,
      direction: args.direction ?? 'BOTH',
      includeStale: args.includeStale ?? false,
    }),
  conditions: (
    r: { id: string },
    args: { status?: string | null },
    ctx: { loaders: { conditions: { load(k: unknown): Promise<unknown> } } },
  ) => ctx.loaders.conditions.load({ id: r.id, status: args.status ?? null }),
};

export const resourceResolvers: Resolvers = {
  Resource: {
    __resolveType: (r) => KIND_TYPENAMES[r.kind] as never,
  },
  ...(Object.fromEntries(Object.values(KIND_TYPENAMES).map((t) => [t, resourceFields])) as Resolvers),
  Query: {
    resource: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'resource:read');
      const r = await resolveResource(ctx.driver, { id: args.id ?? null, slug: args.slug ?? null });
      ctx.loaders.resourceById.prime(r.id, r);
      return r;
    },
    resources: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'resource:read');
      const page = await listResources(ctx.driver, args.filter ?? {}, {
        first: args.first ?? 50,
        afterId: args.after ? idOfCursor(args.after) : null,
      });
      for (const r of page.nodes) ctx.loaders.resourceById.prime(r.id, r);
      const edges = page.nodes.map((node) => ({ cursor: cursorOf(node.id), node }));
      return {
        edges,
        nodes: page.nodes,
        totalCount: page.totalCount,
        pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null },
      };
    },
  },
  Mutation: {
    updateEntityAttributes: (_p, args, ctx) =>
      audited(ctx, 'updateEntityAttributes', [args.id], async () => {
        assertCan(ctx.principal, 'attribute:update');
        return updateAttributes(ctx.driver, args.id, args.attributes);
      }),
  },
};
