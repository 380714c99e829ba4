/**
 * bench:correlate — with 1,000,000 events stored (20,000 resources, 50 each, batched UNWIND of
 * 10,000 per transaction through the real upsertEvents), explain 10,000 transitions: the candidate
 * look-up on the (resourceId, startedAt) index plus the pure attribute(), against the same look-up
 * forced onto a label scan (`USING SCAN`, on fewer transitions: a scan reads every event).
 * Prints per-transition p50/p99 of both and their ratio. BENCH_EVENTS / BENCH_TRANSITIONS /
 * BENCH_SCANS scale it down for a quick look.
 */
import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { attribute, candidateWindow, TRANSITION_TABLE } from '../correlator/index.js';
import type { Transition } from '../src/model/index.js';
import { explainTransition } from '../src/pipeline/correlate.js';
import { eventFromProperties, findCandidateEvents, upsertEvents } from '../src/graph/events.js';
import type { EventRecord } from '../src/model/events.js';
import { benchNeo4j, fmt, percentile, timeEach } from './support.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RESOURCES = Math.max(1, Math.round(EVENTS / 50));
const TRANSITIONS = Number(process.env.BENCH_TRANSITIONS ?? 10_000);
const SCANS = Number(process.env.BENCH_SCANS ?? 100);
const BATCH = 10_000;
const SPAN_DAYS = 30;
const cluster = `bench-${Date.now().toString(36)}`;
const START = DateTime.fromISO('2026-04-01T00:00:00Z', { zone: 'utc' });
const TYPES = ['qmstart', 'qmstop', 'qmshutdown', 'qmreboot', 'qmsnapshot', 'vzdump', 'qmigrate', 'qmconfig'];
const EVENT_TYPE: Record<string, EventRecord['type']> = {
  qmstart: 'vm_start',
  qmstop: 'vm_stop',
  qmshutdown: 'vm_shutdown',
  qmreboot: 'vm_reboot',
  qmsnapshot: 'vm_snapshot',
  vzdump: 'vm_backup',
  qmigrate: 'vm_migrate',
  qmconfig: 'vm_config',
};

/** A deterministic pseudo-random stream, so two runs store the same graph. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}
const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
const rid = (r: number) => `proxmox:${cluster}/qemu/${1000 + r}`;

/** Event `i`: resource i % RESOURCES, spread over 30 days, 1–90 s long, mostly OK. */
function eventAt(i: number, rand: () => number): EventRecord {
  const r = i % RESOURCES;
  const node = `pve${(r % 16) + 1}`;
  const rawType = TYPES[Math.floor(rand() * TYPES.length)]!;
  const start = START.plus({ seconds: Math.floor(rand() * SPAN_DAYS * 86_400) });
  const end = start.plus({ seconds: 1 + Math.floor(rand() * 90) });
  const user = rand() < 0.2 ? 'root@pam' : `user${r % 50}@pve`;
  return {
    id: `UPID:${node}:${hex8(i)}:00A1B2C3:${hex8(Math.floor(start.toSeconds()))}:${rawType}:${1000 + r}:${user}:`,
    provider: 'proxmox',
    resourceId: rid(r),
    resourceKind: 'vm',
    objectId: String(1000 + r),
    hostId: `proxmox:${cluster}/node/${node}`,
    node,
    sourceNode: null,
    type: EVENT_TYPE[rawType]!,
    rawType,
    actor: user,
    actorKind: 'human',
    tokenId: null,
    startedAt: start.toISO({ suppressMilliseconds: true })!,
    endedAt: end.toISO({ suppressMilliseconds: true })!,
    statusClass: rand() < 0.95 ? 'ok' : 'error',
    statusText: 'OK',
    chainId: null,
    message: null,
    pid: i,
    pstart: 0xa1b2c3,
  };
}

async function store(driver: Driver): Promise<{ seconds: number; stored: number }> {
  const rand = rng(42);
  const t0 = performance.now();
  let stored = 0;
  for (let i = 0; i < EVENTS; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, k) => eventAt(i + k, rand));
    stored += (await upsertEvents(driver, batch, { batchSize: BATCH })).created;
    if ((i / BATCH) % 10 === 9)
      console.log(`  stored ${stored.toLocaleString('en')} events (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  return { seconds: (performance.now() - t0) / 1000, stored };
}

/** The same look-up forced onto a label scan: every Event node is read and filtered. */
async function scanCandidates(driver: Driver, resourceId: string, range: { from: string; to: string }) {
  const { records } = await driver.executeQuery(
    `CALL () {
       MATCH (e:Event) USING SCAN e:Event WHERE e.resourceId = $rid AND e.startedAt >= datetime($from) AND e.startedAt <= datetime($to) RETURN e
       UNION
       MATCH (e:Event) USING SCAN e:Event WHERE e.resourceId = $rid AND e.startedAt < datetime($from) AND e.statusClass = 'running' RETURN e
     }
     RETURN properties(e) AS e ORDER BY e.startedAt, e.id`,
    { rid: resourceId, from: range.from, to: range.to },
    { routing: 'READ' },
  );
  return records.map((r) => eventFromProperties(r.get('e')));
}

/** Transition `j`: a random resource stopping a few seconds after one of its events, or at a random time. */
function transitions(n: number): Transition[] {
  const rand = rng(7);
  const events = rng(42);
  const sample = Array.from({ length: Math.min(EVENTS, 200_000) }, (_, i) => eventAt(i, events));
  return Array.from({ length: n }, () => {
    const near = rand() < 0.5;
    const e = sample[Math.floor(rand() * sample.length)]!;
    const observed = near
      ? DateTime.fromISO(e.endedAt!).plus({ seconds: 1 + Math.floor(rand() * 20) })
      : START.plus({ seconds: Math.floor(rand() * SPAN_DAYS * 86_400) });
    return {
      resourceId: near ? e.resourceId! : rid(Math.floor(rand() * RESOURCES)),
      kind: 'vm',
      from: 'running',
      to: 'stopped',
      observedAt: observed.toISO()!,
      observer: 'bench',
    };
  });
}

const neo = await benchNeo4j();
const wall = performance.now();
try {
  console.log(
    `\naitia bench:correlate — storing ${EVENTS.toLocaleString('en')} events on ${RESOURCES.toLocaleString('en')} resources (Neo4j: ${neo.via})`,
  );
  const stored = await store(neo.driver);
  await neo.driver.executeQuery('CALL db.awaitIndexes(300)');
  const ts = transitions(TRANSITIONS);
  const confidences = new Map<string, number>();
  const explain = async (t: Transition, lookup: typeof findCandidateEvents) => {
    const candidates = await lookup(neo.driver, t.resourceId, candidateWindow(t.observedAt)!);
    return attribute(t, candidates, TRANSITION_TABLE);
  };
  const WARMUP = 500;
  let calls = 0;
  const indexed = await timeEach(TRANSITIONS, WARMUP, async (i) => {
    const a = await explain(ts[i % ts.length]!, findCandidateEvents);
    // Count the timed answers only (timeEach runs the warm-up calls first).
    if (calls++ >= WARMUP) confidences.set(a.confidence, (confidences.get(a.confidence) ?? 0) + 1);
  });
  const scan = await timeEach(SCANS, 2, (i) => explain(ts[(i * 37) % ts.length]!, scanCandidates));
  // The whole read side of the runner (resource, host, candidates, consumed events) for context.
  const full = await timeEach(Math.min(2_000, TRANSITIONS), 100, (i) =>
    explainTransition({ driver: neo.driver, suppression: 'shadow' }, ts[i % ts.length]!),
  );

  const [i50, i99, s50, s99, f50, f99] = [
    percentile(indexed, 50),
    percentile(indexed, 99),
    percentile(scan, 50),
    percentile(scan, 99),
    percentile(full, 50),
    percentile(full, 99),
  ];
  console.log(
    `\nstored ${stored.stored.toLocaleString('en')} events in ${stored.seconds.toFixed(0)} s (${Math.round(stored.stored / stored.seconds).toLocaleString('en')}/s, UNWIND ${BATCH.toLocaleString('en')} per transaction)`,
  );
  console.log(`\nexplain one transition (candidate look-up + attribute())     n       p50 ms    p99 ms`);
  console.log(
    `indexed (resourceId, startedAt) seek                   ${String(indexed.length).padStart(7)}  ${fmt(i50).padStart(9)} ${fmt(i99).padStart(9)}`,
  );
  console.log(
    `label scan (USING SCAN, fewer transitions)             ${String(scan.length).padStart(7)}  ${fmt(s50).padStart(9)} ${fmt(s99).padStart(9)}`,
  );
  console.log(
    `ratio scan / indexed                                            ${fmt(s50 / i50, 0).padStart(9)} ${fmt(s99 / i99, 0).padStart(9)}`,
  );
  console.log(
    `full runner read side (resource, host, candidates, consumed) ${String(full.length).padStart(5)}  ${fmt(f50).padStart(9)} ${fmt(f99).padStart(9)}`,
  );
  console.log(
    `\nindexed answers: ${[...confidences].map(([k, v]) => `${k}=${v}`).join(' ')}; targets: indexed p99 <= 10 ms, ratio >= 100x; wall ${((performance.now() - wall) / 1000).toFixed(0)} s`,
  );
  console.log(
    `RESULT correlate indexed_p50_ms=${fmt(i50, 3)} indexed_p99_ms=${fmt(i99, 3)} scan_p50_ms=${fmt(s50, 1)} scan_p99_ms=${fmt(s99, 1)} ratio=${fmt(s50 / i50, 0)} ratio_p99=${fmt(s99 / i99, 0)} events=${stored.stored} transitions=${indexed.length} scan_transitions=${scan.length}`,
  );
} finally {
  // Only matters against a shared NEO4J_URI (an embedded one is thrown away): delete what was stored.
  const session = neo.driver.session();
  await session
    .run('MATCH (e:Event) WHERE e.hostId STARTS WITH $p CALL (e) { DETACH DELETE e } IN TRANSACTIONS OF 50000 ROWS', {
      p: `proxmox:${cluster}/`,
    })
    .catch(() => {});
  await session.close();
  await neo.stop();
}
