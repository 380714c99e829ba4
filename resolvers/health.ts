import { assertCan } from '../src/server/permissions.js';
import { healthSummary } from '../src/graph/resource-queries.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { resolveRef } from './relationships.js';

export const healthResolvers: Resolvers = {
  Query: {
    healthSummary: async (_p, { scope }, ctx) => {
      assertCan(ctx.principal, 'resource:read');
      const underId = scope?.under ? (await resolveRef(ctx.driver, scope.under, 'scope.under')).id : null;
      const summary = await healthSummary(ctx.driver, {
        kind: scope?.kind ?? null,
        provider: scope?.provider ?? null,
        underId,
      });
      return {
        ...summary,
        note: 'Health is derived by the scheduler from checks and cannot be set through attributes. See checks(resourceId) and openConditions.',
      };
    },
  },
};
