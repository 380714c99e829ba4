/**
 * What the correlator and the condition writers read about transitions: per observed change its
 * whole context (resource, host, candidate events, consumed events) and per condition the change it
 * follows. One statement each, whatever the number asked.
 */
import type { ConsumedEvent, StoredEventRecord, StreamCoverage, TransitionRecord } from '../../model/index.js';
import { sourceOf, streamFromProperties, streamProjection } from '../coverage.js';
import { candidateEventBranches, byStart, eventFromProperties } from '../events.js';
import { int, readQuery } from '../db/statements.js';
import { transitionFromProperties } from './read.js';
import type { Driver, ManagedTransaction } from 'neo4j-driver';

/** One observed change the correlator needs context for, with its candidate window. */
export interface CorrelationQuery {
  /** The transition's natural key (transitionId), to tell a retried observation. */
  transitionId: string;
  resourceId: string;
  observedAt: string;
  /** Start-time range of the candidate events (correlator/window.ts). */
  from: string;
  to: string;
  /** Also read the activity of the host it runs on (correlator needsHostActivity: low, host failures, node start-up). */
  withHostActivity: boolean;
  /**
   * The cause may be logged on another node than the one it runs on now (a migration is logged on
   * its source): read the coverage of every stream of the source, not only its node's.
   */
  anyNode?: boolean;
}

/** What the graph holds for one change: everything the pure correlator reads, nothing more. */
export interface CorrelationContext {
  /** A transition with this id is stored already (a retried pass). */
  exists: boolean;
  resourceName: string | null;
  /** The host it RUNS_ON now (observed edges only: a declared one is an agent's claim). */
  host: { hostId: string; node: string } | null;
  candidates: StoredEventRecord[];
  /** Events on the host itself and resource-less events on its node (only with `withHostActivity`). */
  hostActivity: StoredEventRecord[];
  /** The resource is under Proxmox HA: its `ha_managed` attribute, or an HA state reported for it. */
  haManaged: boolean;
  /** Events transitions of this resource observed in [from, observedAt) already used. */
  consumed: ConsumedEvent[];
  /**
   * The log streams that could hold its cause, with their coverage near the window: the task list
   * of the node it runs on, else (host unknown) every stream of its source; a vCenter's one log.
   */
  coverage: { streams: StreamCoverage[] };
}

/** Seconds either side of the window the pre-cut keeps: more than any slack streamProjection adds. */
const CUT_MARGIN_SECONDS = 86_400;

/**
 * Stream `s` as a map with its coverage intervals cut, by two binary searches, to the run that
 * meets [lo, hi] (the window widened by CUT_MARGIN_SECONDS) plus the first (the horizon):
 * streamProjection then filters a handful instead of every interval kept (up to MAX_INTERVALS;
 * 0.45 ms of a 1.5 ms read at 240). Exact because recordLogReads keeps the intervals merged and
 * oldest first, so starts and ends both ascend.
 */
function nearIntervals(s: string, lo: string, hi: string, as: string): string {
  // [lower, upper) halved until empty: the first index whose value passes `test` (size if none).
  const search = (list: string, test: (x: string) => string) =>
    `reduce(b = [0, size(${list})], k IN range(0, toInteger(log(size(${list}) + 1) / log(2)) + 1) |
       CASE WHEN b[0] >= b[1] THEN b WHEN ${test(`${list}[(b[0] + b[1]) / 2]`)} THEN [b[0], (b[0] + b[1]) / 2]
         ELSE [(b[0] + b[1]) / 2 + 1, b[1]] END)[0]`;
  return `WITH ${s}, coalesce(${s}.covFrom, []) AS cf, coalesce(${s}.covTo, []) AS ct
    WITH ${s}, cf, ct, ${search('ct', (x) => `${x} >= ${lo}`)} AS cutA, ${search('cf', (x) => `${x} > ${hi}`)} AS cutZ
    WITH ${s} {.id, .source, .node, .clockOffsetSeconds, .gaps,
      covFrom: cf[0..1] + cf[CASE WHEN cutA > 1 THEN cutA ELSE 1 END..cutZ],
      covTo: ct[0..1] + ct[CASE WHEN cutA > 1 THEN cutA ELSE 1 END..cutZ]} AS ${as}`;
}

/**
 * The correlator's whole read side for a pass in ONE statement, whatever the number of changes:
 * per change the resource's name and host, its candidate events (on the (resourceId, startedAt)
 * index), optional host activity, the events earlier transitions consumed, and whether the
 * transition is stored already. Returned in the order asked.
 */
export async function correlationContexts(
  driver: Driver,
  queries: readonly CorrelationQuery[],
): Promise<CorrelationContext[]> {
  if (queries.length === 0) return [];
  // One auto-commit read (one Bolt round trip, where executeQuery's managed transaction takes two);
  // the window's ends are parsed once per row, not once per seek or per coverage interval.
  const { records } = await readQuery(
    driver,
    `UNWIND range(0, size($rows) - 1) AS i
     WITH i, $rows[i] AS row
     WITH i, row, datetime(row.from) AS wFrom, datetime(row.to) AS wTo, datetime(row.observedAt) AS wAt
     WITH *, wFrom - duration({seconds: ${CUT_MARGIN_SECONDS}}) AS cutLo, wTo + duration({seconds: ${CUT_MARGIN_SECONDS}}) AS cutHi
     OPTIONAL MATCH (r:Resource {id: row.rid})
     CALL (r) {
       OPTIONAL MATCH (r)-[e:RUNS_ON]->(h:Resource)
       WHERE e.missingSince IS NULL AND coalesce(e.provenance, 'observed') = 'observed'
       RETURN h.id AS hostId, h.name AS node ORDER BY e.lastSeen DESC LIMIT 1
     }
     // Provider-level activity only where asked: a conditional subquery, so rows without it cost nothing.
     OPTIONAL CALL (row, hostId, node, wFrom, wTo) {
       WITH row, hostId, node, wFrom, wTo WHERE row.host AND hostId IS NOT NULL
       RETURN [e IN COLLECT {
         ${candidateEventBranches('hostId', 'wFrom', 'wTo')}
         UNION
         MATCH (e:Event) WHERE e.node = node AND e.startedAt >= wFrom AND e.startedAt <= wTo
           AND e.hostId = hostId AND e.resourceId IS NULL
         RETURN e
       } | properties(e)] AS hostActivity
     }
     RETURN i, r.name AS name, hostId, node,
       // Provider-written HA facts only (providerAttrKeys): an agent's hastate attributes nothing.
       coalesce(CASE WHEN 'ha_managed' IN coalesce(r.providerAttrKeys, []) THEN r.\`attr.ha_managed\` END,
                'hastate' IN coalesce(r.providerAttrKeys, []) AND r.\`attr.hastate\` IS NOT NULL, false) AS haManaged,
       EXISTS { MATCH (t:Transition {id: row.tid}) } AS exists,
       [e IN COLLECT { ${candidateEventBranches('row.rid', 'wFrom', 'wTo')} } | properties(e)] AS candidates,
       coalesce(hostActivity, []) AS hostActivity,
       COLLECT {
         MATCH (t:Transition) WHERE t.resourceId = row.rid AND t.observedAt >= wFrom AND t.observedAt < wAt
         WITH t ORDER BY t.observedAt
         RETURN {from: t.fromState, to: t.toState, ids: coalesce(t.eventIds, [])}
       } AS consumed,
       COLLECT {
         MATCH (s:LogStream) WHERE s.source = row.source AND (row.anyNode OR node IS NULL OR s.node IS NULL OR s.node = node)
         ${nearIntervals('s', 'cutLo', 'cutHi', 'near')}
         RETURN ${streamProjection('near', 'wFrom', 'wTo')} AS s
       } AS streams
     ORDER BY i`,
    {
      rows: queries.map((q) => ({
        tid: q.transitionId,
        rid: q.resourceId,
        observedAt: q.observedAt,
        from: q.from,
        to: q.to,
        host: q.withHostActivity,
        source: sourceOf(q.resourceId),
        anyNode: q.anyNode === true,
      })),
    },
  );
  return records.map((r) => {
    const hostId = r.get('hostId') as string | null;
    return {
      exists: Boolean(r.get('exists')),
      resourceName: (r.get('name') as string | null) ?? null,
      haManaged: r.get('haManaged') === true,
      host: hostId ? { hostId, node: String(r.get('node')) } : null,
      candidates: (r.get('candidates') as unknown[]).map(eventFromProperties).sort(byStart),
      hostActivity: (r.get('hostActivity') as unknown[]).map(eventFromProperties).sort(byStart),
      consumed: (r.get('consumed') as Array<{ from: string; to: string; ids: string[] }>).flatMap((c) =>
        c.ids.map((eventId) => ({ eventId, from: c.from, to: c.to })),
      ),
      coverage: { streams: (r.get('streams') as unknown[]).map(streamFromProperties) },
    };
  });
}

/** A condition about to open, asking for the change it follows. */
export interface CauseQuery {
  resourceId: string;
  /** When the condition opens. */
  at: string;
  windowSeconds: number;
}

/**
 * The change each condition follows, in ONE statement: the latest transition observed within
 * [at − window, at] on the resource itself or on what it runs on, is stored on, depends on or
 * belongs to (up to 3 hops over fresh edges), that still holds (its `to` is the resource's state
 * now) — nearest first, then newest. Null where nothing qualifies. In the order asked. Read in the
 * condition write's own transaction, so it sees the transitions that write has just stored.
 */
export async function causesOf(
  tx: ManagedTransaction,
  queries: readonly CauseQuery[],
): Promise<Array<TransitionRecord | null>> {
  if (queries.length === 0) return [];
  const { records } = await tx.run(
    `UNWIND range(0, size($rows) - 1) AS i
     WITH i, $rows[i] AS row
     OPTIONAL MATCH (r:Resource {id: row.rid})
     OPTIONAL CALL (r, row) {
       MATCH p = (r)-[:RUNS_ON|STORED_ON|DEPENDS_ON|MEMBER_OF*0..3]->(x:Resource)
       WHERE all(e IN relationships(p) WHERE e.missingSince IS NULL)
       WITH x, min(length(p)) AS hops
       MATCH (t:Transition)
       WHERE t.resourceId = x.id AND t.toState = x.state
         AND t.observedAt >= datetime(row.at) - duration({seconds: row.window}) AND t.observedAt <= datetime(row.at)
       RETURN t ORDER BY hops, t.observedAt DESC LIMIT 1
     }
     RETURN i, properties(t) AS t ORDER BY i`,
    { rows: queries.map((q) => ({ rid: q.resourceId, at: q.at, window: int(q.windowSeconds) })) },
  );
  return records.map((r) => (r.get('t') ? transitionFromProperties(r.get('t')) : null));
}
