/**
 * bench:ladder — the JS CPU of one explanation without Neo4j: `explain()` (the pure ladder, the
 * unknown-because decision and the UTC narrative) plus the two pure steps explainTransition runs
 * around it (`candidateWindow`, `transitionId`), on contexts shaped like bench:correlate's: 50
 * candidate events on the guest over two hours, node-wide activity on its host, two task-list
 * streams with a failed read. Every context has its own times (as every guest read from the graph
 * has), so no parse is answered from an earlier call; a second pass repeats them (the warm case).
 * BENCH_CONTEXTS / BENCH_ROUNDS scale it.
 */
import { DateTime } from 'luxon';
import { candidateWindow, explain, type ExplainInput } from '../correlator/index.js';
import type { EventRecord, EventType } from '../src/model/events.js';
import { transitionId } from '../src/model/index.js';

const CONTEXTS = Number(process.env.BENCH_CONTEXTS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CANDIDATES = Number(process.env.BENCH_CANDIDATES ?? 50);
const START = DateTime.fromISO('2026-05-01T00:00:00Z', { zone: 'utc' }).toMillis();
const TYPES: Array<[string, EventType]> = [
  ['qmstart', 'vm_start'],
  ['qmstop', 'vm_stop'],
  ['qmshutdown', 'vm_shutdown'],
  ['qmsnapshot', 'vm_snapshot'],
  ['vzdump', 'vm_backup'],
  ['qmconfig', 'vm_config'],
];

/** A deterministic pseudo-random stream. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}
// As Neo4j hands datetimes back: whole seconds without a fraction, a few with milliseconds.
const iso = (ms: number) => DateTime.fromMillis(ms, { zone: 'utc' }).toISO({ suppressMilliseconds: true })!;

function task(i: number, n: number, startMs: number, resource: boolean, pick: number): EventRecord {
  const [rawType, type] = resource ? TYPES[pick % TYPES.length]! : ['startall', 'bulk_start' as EventType];
  const endMs = startMs + 1000 + (pick % 7) * 1000;
  return {
    id: `UPID:pve${i % 16}:${i.toString(16)}:${n}:${rawType}`,
    provider: 'proxmox',
    resourceId: resource ? `proxmox:lab/qemu/${1000 + i}` : null,
    resourceKind: resource ? 'vm' : null,
    objectId: resource ? String(1000 + i) : null,
    hostId: `proxmox:lab/node/pve${i % 16}`,
    node: `pve${i % 16}`,
    sourceNode: null,
    type,
    rawType,
    actor: pick % 3 === 0 ? 'root@pam' : 'alice@pve',
    actorKind: 'human',
    tokenId: null,
    startedAt: iso(startMs),
    endedAt: iso(endMs),
    statusClass: pick % 11 === 0 ? 'error' : 'ok',
    statusText: pick % 11 === 0 ? 'command failed' : 'OK',
    chainId: null,
    message: null,
    pid: null,
    pstart: null,
  };
}

/** Context `i`: a high (a stop 3 s before), a medium (only unrelated tasks near) or a none (nothing near). */
function context(i: number): ExplainInput {
  const r = rng(i + 1);
  const observedMs = START + i * 7_200_000 + Math.floor(r() * 1000) * (i % 4 === 0 ? 1 : 1000);
  const scenario = i % 3;
  const candidates: EventRecord[] = [];
  for (let n = 0; n < CANDIDATES; n++) {
    // Spread over the two hours before the observation; none of them within the look-back for `none`.
    const back = scenario === 2 ? 400_000 + r() * 6_800_000 : r() * 7_200_000;
    candidates.push(task(i, n, observedMs - Math.floor(back / 1000) * 1000, true, Math.floor(r() * 1000)));
  }
  if (scenario === 0)
    candidates.push({ ...task(i, 50, observedMs - 5000, true, 1), type: 'vm_stop', rawType: 'qmstop' });
  if (scenario === 1)
    candidates.push({ ...task(i, 51, observedMs - 20_000, true, 5), type: 'vm_config', rawType: 'qmconfig' });
  const hostActivity = [0, 1, 2].map((n) => task(i, 60 + n, observedMs - 1_800_000 * (n + 1), false, n));
  const hour = 3_600_000;
  const stream = (node: string) => ({
    streamId: `proxmox:lab/node/${node}#tasks`,
    source: 'proxmox:lab',
    node,
    intervals: [
      { from: iso(observedMs - 6 * hour), to: iso(observedMs - 2 * hour) },
      { from: iso(observedMs - 2 * hour + 2000), to: iso(observedMs - 600_000) },
      { from: iso(observedMs - 590_000), to: iso(observedMs + 30_000) },
    ],
    gaps: [
      {
        from: iso(observedMs - 600_000),
        to: iso(observedMs - 590_000),
        reason: 'source_unreachable' as const,
        detail: 'connect ECONNREFUSED',
        at: iso(observedMs - 500_000),
      },
    ],
    horizon: iso(observedMs - 30 * 24 * hour),
    clockOffsetSeconds: 0,
  });
  const node = `pve${i % 16}`;
  return {
    transition: {
      resourceId: `proxmox:lab/qemu/${1000 + i}`,
      kind: 'vm',
      from: 'running',
      to: 'stopped',
      observedAt: iso(observedMs),
      previousObservedAt: iso(observedMs - 10_000),
      observer: 'poll',
      hostId: null,
    },
    resourceName: `web-${i}`,
    host: { hostId: `proxmox:lab/node/${node}`, node },
    candidates,
    hostActivity,
    haManaged: i % 5 === 0,
    consumed: [],
    coverage: { streams: [stream(node), stream(`pve${(i + 1) % 16}`)] },
  };
}

const contexts = Array.from({ length: CONTEXTS }, (_, i) => context(i));
let sink = 0;
/** µs per call of `fn` over every context. */
function perCall(fn: (c: ExplainInput) => number): number {
  const t = process.hrtime.bigint();
  for (const c of contexts) sink += fn(c);
  return Number(process.hrtime.bigint() - t) / 1e3 / contexts.length;
}
const ladder = (c: ExplainInput) => explain(c).narrative.length;
const window = (c: ExplainInput) =>
  candidateWindow(c.transition.observedAt, {}, c.transition.previousObservedAt ?? null)!.from.length;
const id = (c: ExplainInput) => transitionId(c.transition).length;

// Cold: fresh contexts (new texts) per round, so only what one call parses twice can be saved.
const cold = { explain: [] as number[], window: [] as number[], id: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  contexts.splice(0, contexts.length, ...Array.from({ length: CONTEXTS }, (_, i) => context(i + round * CONTEXTS)));
  cold.window.push(perCall(window));
  cold.id.push(perCall(id));
  cold.explain.push(perCall(ladder));
}
// Warm: the last round's contexts again.
const warm = perCall(ladder);
const best = (xs: number[]) => Math.min(...xs);
const us = (x: number) => x.toFixed(1);
const total = best(cold.explain) + best(cold.window) + best(cold.id);
console.log(
  `explain ${us(best(cold.explain))} µs/call (warm ${us(warm)}), candidateWindow ${us(best(cold.window))}, transitionId ${us(best(cold.id))}; ${CONTEXTS} contexts × ${ROUNDS} rounds (checksum ${sink})`,
);
console.log(
  `RESULT explain_ladder explain_us=${us(best(cold.explain))} explain_warm_us=${us(warm)} window_us=${us(best(cold.window))} id_us=${us(best(cold.id))} total_us=${us(total)}`,
);
