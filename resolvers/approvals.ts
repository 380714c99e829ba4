import type { Resolvers } from '../src/generated/graphql.js';
import { approvalExpired, approvals, approve, deny, requestApproval } from '../src/services/approvals.js';
import { approvalFeed, type ApprovalChange } from '../src/services/feed.js';
import { grantRedeems } from '../src/services/grant-history.js';
import { redeemGrant, setAutonomy } from '../src/services/grants.js';
import { reportActionTaken } from '../src/services/actions.js';
import { connection } from './connection.js';

export const approvalResolvers: Resolvers = {
  ApprovalRequest: {
    expired: (a, _args, ctx) => approvalExpired(ctx.deps, a),
  },
  Query: {
    approvals: async (_p, args, ctx) => connection(await approvals(ctx.deps, ctx.principal, args)),
    grantRedeems: async (_p, args, ctx) => connection(await grantRedeems(ctx.deps, ctx.principal, args)),
  },
  Mutation: {
    requestApproval: (_p, { input }, ctx) => requestApproval(ctx.deps, ctx.principal, input),
    approve: (_p, args, ctx) => approve(ctx.deps, ctx.principal, args),
    deny: (_p, args, ctx) => deny(ctx.deps, ctx.principal, args),
    redeemGrant: (_p, args, ctx) => redeemGrant(ctx.deps, ctx.principal, args),
    setAutonomy: (_p, args, ctx) => setAutonomy(ctx.deps, ctx.principal, args),
    reportActionTaken: (_p, { input, providerTaskId }, ctx) =>
      reportActionTaken(ctx.deps, ctx.principal, input, { providerTaskId }),
  },
  Subscription: {
    approvalChanged: {
      subscribe: (_p, args, ctx) => approvalFeed(ctx.deps, ctx.principal, { ...args, lastEventId: ctx.lastEventId }),
      resolve: (c: ApprovalChange) => c,
    },
  },
};
