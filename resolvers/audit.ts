import type { Resolvers } from '../src/generated/graphql.js';
import { auditLog } from '../src/services/audit.js';
import { connection } from './connection.js';

export const auditResolvers: Resolvers = {
  Query: {
    auditLog: async (_p, args, ctx) => connection(await auditLog(ctx.deps, ctx.principal, args)),
  },
};
