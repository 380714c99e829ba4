/**
 * Log coverage in the graph: per log stream (a Proxmox node's task list, a vCenter's event log)
 * `(:LogStream {id})` holds the intervals read completely (`covFrom`/`covTo`, merged, oldest
 * first, the last {@link MAX_INTERVALS}), the failed reads (`gaps`, newest first, the last
 * {@link MAX_GAPS}) and the clock offset its last read saw. In Neo4j, so restarts and replicas
 * share it; every write is one statement whatever the number of streams, and idempotent (the same
 * read recorded twice merges into the same interval).
 */
import type { Driver } from 'neo4j-driver';
import type { LogGap, LogInterval, StreamCoverage } from '../model/index.js';
import { isoNow, toPlain } from './db/statements.js';

export const MAX_INTERVALS = 1000;
export const MAX_GAPS = 200;

/** What one pass read of one stream: completely (an interval) or not (a gap with its reason). */
export interface LogRead {
  streamId: string;
  source: string;
  node: string | null;
  /** The API the stream is read through: a source-wide failure (no cluster name) is recorded on its streams by it. */
  apiUrl?: string | null;
  provider: 'proxmox' | 'vcenter';
  /** Read completely: every page, no error, nothing cut short. */
  complete?: LogInterval | null;
  /** The read failed or was partial: nothing is covered, the reason is kept. */
  gap?: LogGap | null;
  /** The stream's clock seen ahead of aitia's, in seconds (complete reads only); null: no evidence. */
  clockOffsetSeconds?: number | null;
}

/**
 * Records a pass's reads: complete ones merge into the stream's intervals, failed ones add a gap.
 * Reads of one stream in one call are folded first (one row per stream, so the statement's rows
 * never race each other). The stream's node is write-locked before its lists are read, so two
 * replicas recording at once both land.
 */
export async function recordLogReads(driver: Driver, reads: readonly LogRead[], now = isoNow()): Promise<void> {
  const byStream = new Map<
    string,
    { read: LogRead; intervals: LogInterval[]; gaps: string[]; clock: number | null; sawComplete: boolean }
  >();
  for (const r of reads) {
    const row = byStream.get(r.streamId) ?? { read: r, intervals: [], gaps: [], clock: null, sawComplete: false };
    if (r.complete) {
      row.intervals.push(r.complete);
      row.sawComplete = true;
      row.clock = r.clockOffsetSeconds ?? row.clock;
    }
    if (r.gap) row.gaps.push(JSON.stringify(r.gap));
    byStream.set(r.streamId, row);
  }
  if (byStream.size === 0) return;
  await driver.executeQuery(
    `UNWIND $rows AS row
     MERGE (s:LogStream {id: row.id})
     SET s.touchedAt = datetime($now), s.source = row.source, s.node = row.node, s.provider = row.provider,
         s.apiUrl = coalesce(row.apiUrl, s.apiUrl)
     WITH s, row,
       [i IN range(0, size(coalesce(s.covFrom, [])) - 1) | {f: s.covFrom[i], t: s.covTo[i]}] +
       [iv IN row.intervals | {f: datetime(iv.from), t: datetime(iv.to)}] AS ivs
     CALL (ivs) { UNWIND ivs AS iv WITH iv ORDER BY iv.f RETURN collect(iv) AS sorted }
     WITH s, row, reduce(acc = [], iv IN sorted |
       CASE WHEN size(acc) > 0 AND iv.f <= acc[-1].t + duration({seconds: 1})
         THEN acc[0..-1] + [{f: acc[-1].f, t: CASE WHEN iv.t > acc[-1].t THEN iv.t ELSE acc[-1].t END}]
         ELSE acc + [iv] END) AS merged
     WITH s, row, merged[-${MAX_INTERVALS}..] AS kept
     SET s.covFrom = [m IN kept | m.f], s.covTo = [m IN kept | m.t],
         s.gaps = (row.gaps + coalesce(s.gaps, []))[0..${MAX_GAPS}],
         s.clockOffsetSeconds = CASE WHEN row.sawComplete THEN row.clock ELSE s.clockOffsetSeconds END`,
    {
      now,
      rows: [...byStream.entries()].map(([id, r]) => ({
        id,
        source: r.read.source,
        node: r.read.node,
        provider: r.read.provider,
        apiUrl: r.read.apiUrl ?? null,
        intervals: r.intervals,
        gaps: r.gaps,
        clock: r.clock,
        sawComplete: r.sawComplete,
      })),
    },
  );
}

/**
 * A source-wide failure before its streams could be named (Proxmox's `/cluster/status` did not
 * answer, so the cluster is not known): a gap on every stream read through `apiUrl`, from where
 * each was last read completely (or `since`) to `to`.
 */
export async function recordApiGap(
  driver: Driver,
  input: { apiUrl: string; to: string; since: string; reason: LogGap['reason']; detail: string },
): Promise<number> {
  const { records } = await driver.executeQuery(
    `MATCH (s:LogStream {apiUrl: $apiUrl})
     WITH s, coalesce(s.covTo[-1], datetime($since)) AS last
     SET s.gaps = ([$gapHead + toString(last) + $gapTail] + coalesce(s.gaps, []))[0..${MAX_GAPS}]
     RETURN count(s) AS n`,
    {
      apiUrl: input.apiUrl,
      since: input.since,
      // JSON assembled around the stream's own `from`.
      gapHead: '{"from":"',
      gapTail: `","to":${JSON.stringify(input.to)},"reason":${JSON.stringify(input.reason)},"detail":${JSON.stringify(input.detail)},"at":${JSON.stringify(input.to)}}`,
    },
  );
  return Number(toPlain(records[0]?.get('n')) ?? 0);
}

/** Parses a stream's stored properties (as {@link STREAM_PROJECTION} returns them) into its coverage. */
export function streamFromProperties(raw: unknown): StreamCoverage {
  const p = toPlain(raw) as Record<string, unknown>;
  const froms = (p.covFrom as string[] | null) ?? [];
  const tos = (p.covTo as string[] | null) ?? [];
  const gaps = ((p.gaps as string[] | null) ?? []).flatMap((g): LogGap[] => {
    try {
      return [JSON.parse(g) as LogGap];
    } catch {
      return [];
    }
  });
  return {
    streamId: String(p.id),
    source: String(p.source ?? ''),
    node: (p.node as string | null) ?? null,
    intervals: froms.map((from, i) => ({ from, to: tos[i] ?? from })),
    gaps,
    horizon: (p.horizon as string | null) ?? froms[0] ?? null,
    clockOffsetSeconds: typeof p.clockOffsetSeconds === 'number' ? p.clockOffsetSeconds : null,
  };
}

/**
 * How far beyond [from, to] a projection keeps intervals: a hole at the window's edge is judged
 * by the reads on both sides of it (jitter between two reads, or nothing read after it yet).
 */
export const PROJECTION_SLACK_SECONDS = 300;

/**
 * The Cypher map of one stream `s` with only the intervals and gaps near [fromExpr, toExpr] (the
 * horizon is kept whole): what a correlation read returns per change, bounded whatever the history.
 */
export function streamProjection(s: string, fromExpr: string, toExpr: string): string {
  const near = `${s}.covTo[ci] >= datetime(${fromExpr}) - duration({seconds: ${PROJECTION_SLACK_SECONDS}})
      AND ${s}.covFrom[ci] <= datetime(${toExpr}) + duration({seconds: ${PROJECTION_SLACK_SECONDS}})`;
  return `{id: ${s}.id, source: ${s}.source, node: ${s}.node, clockOffsetSeconds: ${s}.clockOffsetSeconds,
    horizon: ${s}.covFrom[0],
    covFrom: [ci IN range(0, size(coalesce(${s}.covFrom, [])) - 1) WHERE ${near} | ${s}.covFrom[ci]],
    covTo: [ci IN range(0, size(coalesce(${s}.covFrom, [])) - 1) WHERE ${near} | ${s}.covTo[ci]],
    gaps: [g IN coalesce(${s}.gaps, [])][0..50]}`;
}

/** The source of a resource id: `proxmox:lab/qemu/101` → `proxmox:lab`. */
export function sourceOf(resourceId: string): string {
  const slash = resourceId.indexOf('/');
  return slash < 0 ? resourceId : resourceId.slice(0, slash);
}

/** Every stream of a source (or of all sources), with the intervals and gaps near [since, until]. */
export async function streamCoverages(
  driver: Driver,
  input: { source: string | null; since: string; until: string },
): Promise<StreamCoverage[]> {
  const { records } = await driver.executeQuery(
    `MATCH (s:LogStream) WHERE $source IS NULL OR s.source = $source
     RETURN ${streamProjection('s', '$since', '$until')} AS s ORDER BY s.id`,
    input,
    { routing: 'READ' },
  );
  return records.map((r) => streamFromProperties(r.get('s')));
}

/** The streams of several sources, with the intervals and gaps near [since, until]. */
export async function streamCoveragesOf(
  driver: Driver,
  input: { sources: readonly string[]; since: string; until: string },
): Promise<StreamCoverage[]> {
  if (input.sources.length === 0) return [];
  const { records } = await driver.executeQuery(
    `MATCH (s:LogStream) WHERE s.source IN $sources
     RETURN ${streamProjection('s', '$since', '$until')} AS s ORDER BY s.id`,
    { sources: [...input.sources], since: input.since, until: input.until },
    { routing: 'READ' },
  );
  return records.map((r) => streamFromProperties(r.get('s')));
}

/**
 * A stream's newest complete read, and which of `eventIds` the graph already holds: a task the
 * node lists now, not stored yet, that started inside that read was not in it — the node's clock
 * is behind (or it listed the task late). One read.
 */
export async function lastReadAndKnownEvents(
  driver: Driver,
  streamId: string,
  eventIds: readonly string[],
): Promise<{ last: LogInterval | null; known: Set<string> }> {
  const { records } = await driver.executeQuery(
    `OPTIONAL MATCH (s:LogStream {id: $id})
     RETURN toString(s.covFrom[-1]) AS f, toString(s.covTo[-1]) AS t,
       [x IN $ids WHERE EXISTS { MATCH (:Event {id: x}) }] AS known`,
    { id: streamId, ids: [...eventIds] },
    { routing: 'READ' },
  );
  const r = records[0];
  const f = (r?.get('f') as string | null) ?? null;
  const t = (r?.get('t') as string | null) ?? null;
  return { last: f && t ? { from: f, to: t } : null, known: new Set((r?.get('known') as string[]) ?? []) };
}

/**
 * The Proxmox nodes whose task lists could hold the causes of these resources' changes: the node
 * each runs on now (observed edges). Null when any has no known host: then every node's list matters.
 */
export async function taskNodesOf(driver: Driver, resourceIds: readonly string[]): Promise<string[] | null> {
  if (resourceIds.length === 0) return [];
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS id
     OPTIONAL MATCH (:Resource {id: id})-[e:RUNS_ON]->(h:Resource)
     WHERE e.missingSince IS NULL AND coalesce(e.provenance, 'observed') = 'observed'
     RETURN id, collect(DISTINCT h.name) AS nodes`,
    { ids: [...new Set(resourceIds)] },
    { routing: 'READ' },
  );
  const nodes = new Set<string>();
  for (const r of records) {
    const names = (r.get('nodes') as Array<string | null>).filter((n): n is string => typeof n === 'string');
    if (names.length === 0) return null;
    names.forEach((n) => nodes.add(n));
  }
  return [...nodes].sort();
}
