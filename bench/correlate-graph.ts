/**
 * The graph bench:correlate explains against: `events` task events spread over 30 days on
 * events / 50 guests, each guest on one of 16 nodes (a host resource, an observed RUNS_ON edge) and
 * every node's task list covered for the 30 days but for a failed read every 3 hours — what a
 * polled cluster holds, so explainTransition reads the host, its activity and the coverage as it
 * does in production. Deterministic: two runs store the same graph.
 */
import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { recordLogReads, type LogRead } from '../src/graph/coverage.js';
import { upsertEdges } from '../src/graph/edges.js';
import { upsertEvents } from '../src/graph/events.js';
import { upsertResources } from '../src/graph/resources/upsert.js';
import type { EventRecord } from '../src/model/events.js';
import type { Transition } from '../src/model/index.js';

const BATCH = 10_000;
const NODES = 16;
const SPAN_DAYS = 30;
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

/** A deterministic pseudo-random stream. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}
const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
const iso = (t: DateTime) => t.toISO({ suppressMilliseconds: true })!;

export function correlateGraph(cluster: string, events: number) {
  const resources = Math.max(1, Math.round(events / 50));
  const rid = (r: number) => `proxmox:${cluster}/qemu/${1000 + r}`;
  const nodeOf = (r: number) => `pve${(r % NODES) + 1}`;
  const hostId = (node: string) => `proxmox:${cluster}/node/${node}`;

  /** Event `i`: resource i % resources, spread over 30 days, 1–90 s long, mostly OK. */
  function eventAt(i: number, rand: () => number): EventRecord {
    const r = i % resources;
    const node = nodeOf(r);
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
      hostId: hostId(node),
      node,
      sourceNode: null,
      type: EVENT_TYPE[rawType]!,
      rawType,
      actor: user,
      actorKind: 'human',
      tokenId: null,
      startedAt: iso(start),
      endedAt: iso(end),
      statusClass: rand() < 0.95 ? 'ok' : 'error',
      statusText: 'OK',
      chainId: null,
      message: null,
      pid: i,
      pstart: 0xa1b2c3,
    };
  }

  /** The events, through the real upsertEvents, BATCH per transaction. */
  async function storeEvents(driver: Driver): Promise<{ seconds: number; stored: number }> {
    const rand = rng(42);
    const t0 = performance.now();
    let stored = 0;
    for (let i = 0; i < events; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, events - i) }, (_, k) => eventAt(i + k, rand));
      stored += (await upsertEvents(driver, batch, { batchSize: BATCH })).created;
      if ((i / BATCH) % 10 === 9)
        console.log(
          `  stored ${stored.toLocaleString('en')} events (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
        );
    }
    return { seconds: (performance.now() - t0) / 1000, stored };
  }

  /** Nodes, guests and RUNS_ON through the real upserts; the task lists' coverage through recordLogReads. */
  async function storeTopology(driver: Driver): Promise<void> {
    const nodes = Array.from({ length: NODES }, (_, n) => `pve${n + 1}`);
    await upsertResources(
      driver,
      nodes.map((node) => ({ id: hostId(node), kind: 'host', provider: 'proxmox', name: node, state: 'online' })),
    );
    const guests = Array.from({ length: resources }, (_, r) => r);
    for (let i = 0; i < resources; i += BATCH) {
      const part = guests.slice(i, i + BATCH);
      await upsertResources(
        driver,
        part.map((r) => ({ id: rid(r), kind: 'vm', provider: 'proxmox', name: `vm-${1000 + r}`, state: 'running' })),
      );
      await upsertEdges(
        driver,
        part.map((r) => ({
          type: 'RUNS_ON' as const,
          fromId: rid(r),
          toId: hostId(nodeOf(r)),
          provenance: 'observed' as const,
          source: `proxmox:${cluster}`,
        })),
      );
    }
    const reads: LogRead[] = [];
    for (const node of nodes) {
      const base = {
        streamId: `${hostId(node)}#tasks`,
        source: `proxmox:${cluster}`,
        node,
        provider: 'proxmox' as const,
      };
      for (let h = 0; h < SPAN_DAYS * 24; h += 3) {
        const from = START.plus({ hours: h });
        // Three hours read completely but for its last minute: a failed read, recorded as a gap.
        reads.push({ ...base, complete: { from: iso(from), to: iso(from.plus({ minutes: 179 })) } });
        const gapFrom = iso(from.plus({ minutes: 179 }));
        reads.push({
          ...base,
          gap: {
            from: gapFrom,
            to: iso(from.plus({ hours: 3 })),
            reason: 'task_stage_failed',
            detail: 'bench',
            at: gapFrom,
          },
        });
      }
    }
    await recordLogReads(driver, reads);
  }

  /** The first `n` events stored, as stored (the same random stream). */
  function firstEvents(n: number): EventRecord[] {
    const rand = rng(42);
    return Array.from({ length: Math.min(events, n) }, (_, i) => eventAt(i, rand));
  }

  /** Transition `j`: a random guest stopping a few seconds after one of its events, or at a random time. */
  function transitions(n: number): Transition[] {
    const rand = rng(7);
    const sample = firstEvents(200_000);
    return Array.from({ length: n }, () => {
      const near = rand() < 0.5;
      const e = sample[Math.floor(rand() * sample.length)]!;
      const observed = near
        ? DateTime.fromISO(e.endedAt!).plus({ seconds: 1 + Math.floor(rand() * 20) })
        : START.plus({ seconds: Math.floor(rand() * SPAN_DAYS * 86_400) });
      return {
        resourceId: near ? e.resourceId! : rid(Math.floor(rand() * resources)),
        kind: 'vm',
        from: 'running',
        to: 'stopped',
        observedAt: observed.toISO()!,
        observer: 'bench',
      };
    });
  }

  return { resources, firstEvents, storeEvents, storeTopology, transitions };
}
