import { assertCan } from '../src/server/permissions.js';
import { listAudit } from '../src/graph/audit.js';
import type { Resolvers } from '../src/generated/graphql.js';

export const auditResolvers: Resolvers = {
  Query: {
    auditLog: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'audit:read');
      const page = await listAudit(ctx.driver, args.filter ?? {}, {
        first: args.first ?? 50,
        after: args.after ?? null,
      });
      return { nodes: page.nodes as never, pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor } };
    },
  },
};
