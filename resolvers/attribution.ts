import DataLoader from 'dataloader';
import { filter, pipe } from 'graphql-yoga';
import { narrate } from '../correlator/index.js';
import {
  type Attribution,
  badInput,
  type Kind,
  STATES,
  type StoredEventRecord,
  type TransitionRecord,
} from '../src/model/index.js';
import { stateAt } from '../correlator/state-at.js';
import { explainTransition, type ExplainedTransition } from '../src/pipeline/correlate.js';
import type { ResourceRecord } from '../src/model/index.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { getEventsByIds, listEvents } from '../src/graph/events.js';
import { getTransition, listTransitions, transitionHistoryAt } from '../src/graph/transitions.js';
import { importVcenterEvents } from '../src/ingest/vcenter/events-import.js';
import { audited } from '../src/server/audited.js';
import type { RequestContext } from '../src/server/context.js';
import { assertCan } from '../src/server/permissions.js';
import { resolveRef } from './relationships.js';

/** What explainTransition answers: the explanation, its decision, and the resource it is about. */
export interface ExplanationModel extends ExplainedTransition {
  resource: ResourceRecord;
}

/** Events per ingestVcenterEvents call: a bigger document is split by the caller. */
const MAX_EVENTS_PER_CALL = 10_000;

/** The configured clock tolerance, when the service was given one. */
function skewSettings(ctx: RequestContext) {
  return ctx.services.clockSkewSeconds === undefined ? {} : { clockSkewSeconds: ctx.services.clockSkewSeconds };
}

/** Per-request event loader for AttributionEvent.event (one query per page, not per event). */
const eventLoaders = new WeakMap<object, DataLoader<string, StoredEventRecord | null>>();
function eventLoader(ctx: RequestContext): DataLoader<string, StoredEventRecord | null> {
  let loader = eventLoaders.get(ctx.loaders);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const found = new Map((await getEventsByIds(ctx.driver, ids)).map((e) => [e.id, e]));
      return ids.map((id) => found.get(id) ?? null);
    });
    eventLoaders.set(ctx.loaders, loader);
  }
  return loader;
}

/**
 * The narrative in the zone asked for. Without a zone: `stored` (UTC, as written when the
 * transition was stored). An unknown zone is BAD_USER_INPUT naming `zone`.
 */
async function narrativeIn(
  ctx: RequestContext,
  t: { resourceId: string; kind: Kind; from: string; to: string; observedAt: string },
  attribution: Attribution,
  stored: string,
  zone: string | null | undefined,
): Promise<string> {
  if (zone == null) return stored;
  const resource = await ctx.loaders.resourceById.load(t.resourceId);
  const told = narrate({ id: t.resourceId, kind: t.kind, name: resource?.name ?? null }, t, attribution, { zone });
  if (!told.ok) throw badInput('zone', `${told.reason}; use an IANA zone such as Europe/Berlin, or UTC`);
  return told.text;
}

/** Validates an ad-hoc change against the kind's closed state enum. */
function checkStates(kind: Kind, from: string, to: string): void {
  const states = STATES[kind] as readonly string[];
  if (!states.includes(from))
    throw badInput('from', `${JSON.stringify(from)} is not a ${kind} state; one of: ${states.join(', ')}`);
  if (!states.includes(to))
    throw badInput('to', `${JSON.stringify(to)} is not a ${kind} state; one of: ${states.join(', ')}`);
  if (from === to) throw badInput('to', 'must differ from `from`: a transition changes the state');
}

export const attributionResolvers: Resolvers = {
  Transition: {
    resource: (t, _a, ctx) => ctx.loaders.resourceById.load(t.resourceId),
    narrative: (t, { zone }, ctx) => narrativeIn(ctx, t, t.attribution, t.narrative, zone),
  },
  Event: {
    resource: (e, _a, ctx) => (e.resourceId ? ctx.loaders.resourceById.load(e.resourceId) : null),
  },
  AttributionEvent: {
    event: (e, _a, ctx) => eventLoader(ctx).load(e.id),
  },
  Explanation: {
    resourceId: (x) => x.transition.resourceId,
    resource: (x) => x.resource!,
    from: (x) => x.transition.from,
    to: (x) => x.transition.to,
    at: (x) => x.transition.observedAt,
    decision: (x) => x.decision,
    narrative: (x, { zone }, ctx) => narrativeIn(ctx, x.transition, x.attribution, x.narrative, zone),
  },
  Query: {
    transitions: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'transition:read');
      const resourceId = args.resourceId ? (await resolveRef(ctx.driver, args.resourceId, 'resourceId')).id : null;
      const page = await listTransitions(ctx.driver, {
        resourceId,
        since: args.since,
        until: args.until,
        first: args.first ?? 50,
        after: args.after,
      });
      return {
        edges: page.nodes.map((node, i) => ({ cursor: page.cursors[i]!, node })),
        pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
      };
    },
    transition: async (_p, { id }, ctx) => {
      assertCan(ctx.principal, 'transition:read');
      return getTransition(ctx.driver, id);
    },
    events: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'transition:read');
      const r = await resolveRef(ctx.driver, args.resourceId, 'resourceId');
      return listEvents(ctx.driver, { resourceId: r.id, since: args.since, first: args.first ?? 50 });
    },
    explainTransition: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'transition:read');
      const r = await resolveRef(ctx.driver, args.resourceId, 'resourceId');
      checkStates(r.kind, args.from, args.to);
      const x = await explainTransition(
        {
          driver: ctx.driver,
          suppression: ctx.services.policy?.policy.attribution.suppression ?? 'shadow',
          correlator: skewSettings(ctx),
        },
        {
          resourceId: r.id,
          kind: r.kind,
          from: args.from,
          to: args.to,
          observedAt: args.at,
          observer: `explainTransition:${ctx.principal.name}`,
        },
      );
      return { ...x, resource: r };
    },
    stateAt: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'transition:read');
      const r = await resolveRef(ctx.driver, args.resourceId, 'resourceId');
      const history = await transitionHistoryAt(ctx.driver, r.id, args.at);
      const answer = stateAt({ at: args.at, ...history, current: { state: r.state, firstSeen: r.firstSeen } });
      const used = [history.lastAtOrBefore, history.first].find((t) => t && t.id === answer.transitionId) ?? null;
      return {
        resourceId: r.id,
        at: args.at,
        state: answer.state,
        basis: answer.basis,
        transition: used,
        reason: answer.reason,
      };
    },
  },
  Mutation: {
    ingestVcenterEvents: (_p, { server, events }, ctx) =>
      audited(ctx, 'ingestVcenterEvents', [`vcenter:${server}`], async () => {
        assertCan(ctx.principal, 'event:ingest');
        if (Array.isArray(events) && events.length > MAX_EVENTS_PER_CALL) {
          throw badInput(
            'events',
            `at most ${MAX_EVENTS_PER_CALL} events per call (got ${events.length}); split the document`,
          );
        }
        const report = await importVcenterEvents(ctx.driver, events, { server });
        return {
          scope: report.scope,
          received: report.fetched,
          written: report.events.written,
          created: report.events.created,
          updated: report.events.updated,
          skipped: report.skipped.map((s) => ({ item: s.id, reason: s.reason })),
        };
      }),
  },
  Subscription: {
    transitionObserved: {
      subscribe: async (_p, args, ctx) => {
        assertCan(ctx.principal, 'transition:read');
        const rid = args.resourceId ? (await resolveRef(ctx.driver, args.resourceId, 'resourceId')).id : null;
        const bus = ctx.services.bus;
        return pipe(
          bus.subscribe(),
          filter((t: TransitionRecord) => rid === null || t.resourceId === rid),
        );
      },
      resolve: (t: TransitionRecord) => t,
    },
  },
};
