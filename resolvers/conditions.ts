import { conditionsOfMany, searchConditions } from '../src/graph/conditions.js';
import { assertCan } from '../src/server/permissions.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { resolveRef } from './relationships.js';

/** At most this many conditions from openConditions without a resource. */
const OPEN_LIMIT = 500;

export const conditionResolvers: Resolvers = {
  Condition: {
    resource: (c, _a, ctx) => ctx.loaders.resourceById.load(c.resourceId),
  },
  Query: {
    conditions: async (_p, { filter, first, after }, ctx) => {
      assertCan(ctx.principal, 'condition:read');
      const resourceId = filter?.resourceId
        ? (await resolveRef(ctx.driver, filter.resourceId, 'filter.resourceId')).id
        : null;
      const page = await searchConditions(
        ctx.driver,
        { resourceId, type: filter?.type ?? null, status: filter?.status ?? null, since: filter?.since ?? null },
        { first: first ?? 50, after: after ?? null },
      );
      const edges = page.nodes.map((node, i) => ({ cursor: page.cursors[i]!, node }));
      return {
        edges,
        nodes: page.nodes,
        pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null },
      };
    },
    openConditions: async (_p, { resourceId }, ctx) => {
      assertCan(ctx.principal, 'condition:read');
      if (resourceId) {
        const r = await resolveRef(ctx.driver, resourceId, 'resourceId');
        return (await conditionsOfMany(ctx.driver, [r.id], 'open')).get(r.id) ?? [];
      }
      return (await searchConditions(ctx.driver, { status: 'open' }, { first: OPEN_LIMIT })).nodes;
    },
  },
};
