import type { Resolvers } from '../src/generated/graphql.js';
import type { TransitionRecord } from '../src/model/index.js';
import { attributionCoverage } from '../src/services/coverage.js';
import { ingestVcenterEvents } from '../src/services/ingest.js';
import {
  events,
  explainTransition,
  narrativeInZone,
  stateAt,
  transition,
  transitions,
} from '../src/services/transitions.js';
import { transitionFeed } from '../src/services/feed.js';
import { reviewUnauthorizedAction } from '../src/services/unauthorized-actions.js';
import { connection } from './connection.js';
import type { RequestContext } from './context.js';

/** Narratives name the resource: read through the request's loader, one query per page. */
const readResource = (ctx: RequestContext) => (id: string) => ctx.loaders.resourceById.load(id);

export const attributionResolvers: Resolvers = {
  Transition: {
    resource: (t, _a, ctx) => ctx.loaders.resourceById.load(t.resourceId),
    narrative: (t, { zone }, ctx) =>
      narrativeInZone(ctx.deps, ctx.principal, {
        transition: t,
        attribution: t.attribution,
        stored: t.narrative,
        zone,
        readResource: readResource(ctx),
      }),
    attributionHistory: (t) => t.attributionHistory ?? [],
  },
  Event: {
    resource: (e, _a, ctx) => (e.resourceId ? ctx.loaders.resourceById.load(e.resourceId) : null),
  },
  AttributionEvent: {
    event: (e, _a, ctx) => ctx.loaders.eventById.load(e.id),
  },
  // The model keeps the whole unauthorized finding; the API answers it flat (absent on older attributions).
  Attribution: {
    authorization: (a) => a.authorization ?? null,
    unauthorized: (a) => Boolean(a.unauthorized),
    unauthorizedReason: (a) => a.unauthorized?.reason ?? null,
    unauthorizedPrincipal: (a) => a.unauthorized?.principal ?? null,
  },
  Explanation: {
    resourceId: (x) => x.transition.resourceId,
    from: (x) => x.transition.from,
    to: (x) => x.transition.to,
    at: (x) => x.transition.observedAt,
    narrative: (x, { zone }, ctx) =>
      narrativeInZone(ctx.deps, ctx.principal, {
        transition: x.transition,
        attribution: x.attribution,
        stored: x.narrative,
        zone,
        readResource: readResource(ctx),
      }),
  },
  Query: {
    transitions: async (_p, args, ctx) => connection(await transitions(ctx.deps, ctx.principal, args)),
    transition: (_p, args, ctx) => transition(ctx.deps, ctx.principal, args),
    events: (_p, args, ctx) => events(ctx.deps, ctx.principal, args),
    explainTransition: (_p, args, ctx) => explainTransition(ctx.deps, ctx.principal, args),
    stateAt: (_p, args, ctx) => stateAt(ctx.deps, ctx.principal, args),
    attributionCoverage: (_p, args, ctx) => attributionCoverage(ctx.deps, ctx.principal, args),
  },
  Mutation: {
    ingestVcenterEvents: (_p, args, ctx) => ingestVcenterEvents(ctx.deps, ctx.principal, args),
    reviewUnauthorizedAction: (_p, args, ctx) => reviewUnauthorizedAction(ctx.deps, ctx.principal, args),
  },
  Subscription: {
    transitionObserved: {
      subscribe: (_p, args, ctx) => transitionFeed(ctx.deps, ctx.principal, { ...args, lastEventId: ctx.lastEventId }),
      resolve: (t: TransitionRecord) => t,
    },
  },
};
