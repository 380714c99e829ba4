import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedDriver, readLeases } from '../../src/graph/db/leases.js';
import { isLeaseLost, pollLeaseName } from '../../src/model/lease.js';
import { observe } from '../../src/pipeline/observe.js';
import { proxmoxSource } from '../../src/ingest/proxmox/source.js';
import { addToken } from '../../src/services/token-store.js';
import { builtCli, cliEnv } from '../support/cli.js';
import { useGraph } from '../support/graph.js';
import { labRoutes, patchData, standinClient } from '../support/proxmox-lab.js';
import { type ProxmoxStandin, startProxmoxStandin } from '../support/proxmox-standin.js';
import { type SseSubscription, subscribeSse } from '../support/sse.js';
import { until as waitUntil } from '../support/until.js';

/**
 * Two `aitia serve` processes share one Neo4j and one Proxmox stand-in, with a 4 s lease: one
 * polls; the leader is killed; the other takes the lease within 2 × the lease and polls on; a VM
 * that starts around the handover yields exactly one transition; the killed leader's token can no
 * longer write; and a subscriber on the second replica receives what the first observed.
 */

const LEASE_SECONDS = 4;
const { driver, scope } = useGraph();
const cluster = scope;
const vm = `proxmox:${cluster}/qemu/101`;
const lease = pollLeaseName(scope);

interface Replica {
  id: string;
  url: string;
  child: ChildProcess;
  /** Its stdout so far (JSON log lines). */
  out(): string;
}

let standin: ProxmoxStandin;
let dir: string;
let agentToken: string;
let cli: string;
const replicas: Replica[] = [];

/** Guests left out, so a pass stays short on a busy machine: web01 (qemu/101) and its neighbour stay. */
const WITHOUT = ['qemu/9000', 'lxc/200', 'qemu/110', 'qemu/113', 'lxc/202', 'qemu/103', 'qemu/130', 'lxc/210'];

/** The lab with web01 (qemu/101) running or stopped. */
function lab(state: 'running' | 'stopped') {
  const table = labRoutes(cluster, {
    without: WITHOUT,
    ...(state === 'stopped' ? { patchListing: { 'qemu/101': { status: 'stopped' } } } : {}),
  });
  if (state === 'stopped')
    patchData(table, 'GET /nodes/pve1/qemu/101/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  return table;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Waits like test/support/until.ts, and on a timeout shows what each replica printed. */
const until = <T>(what: string, ms: number, probe: () => T | Promise<T>) =>
  waitUntil(what, ms, probe, {
    context: () => replicas.map((r) => `--- ${r.id}:\n${r.out().slice(-4000)}`).join('\n'),
  });

async function startReplica(name: string): Promise<Replica> {
  const port = await freePort();
  const id = `${scope}-${name}`;
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: cliEnv({
      AITIA_HOST: '127.0.0.1',
      AITIA_PORT: String(port),
      AITIA_DATA_DIR: dir,
      AITIA_TOKENS_FILE: join(dir, 'tokens.json'),
      AITIA_SOURCES_FILE: join(dir, 'sources.yaml'),
      AITIA_REPLICA_ID: id,
      AITIA_LEASE_SECONDS: String(LEASE_SECONDS),
      AITIA_LOG_LEVEL: 'info',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const replica = { id, url: `http://127.0.0.1:${port}`, child, out: () => out };
  replicas.push(replica);
  await until(`replica ${name} ready`, 90_000, async () => {
    if (child.exitCode !== null) throw new Error(`replica ${name} exited ${child.exitCode}:\n${out}`);
    return fetch(`${replica.url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  });
  return replica;
}

/** Inventory passes a replica has logged. */
const passes = (r: Replica) =>
  r
    .out()
    .split('\n')
    .filter((l) => l.includes(`proxmox ${scope}: inventory pass`)).length;

const holder = async () => (await readLeases(driver)).find((l) => l.name === lease) ?? null;

async function transitionsOf(id: string): Promise<string[]> {
  const { records } = await driver.executeQuery(
    'MATCH (t:Transition {resourceId: $id}) RETURN t.fromState + "->" + t.toState AS change ORDER BY t.observedAt',
    { id },
  );
  return records.map((r) => String(r.get('change')));
}

beforeAll(async () => {
  cli = await builtCli();
  standin = await startProxmoxStandin({ routes: lab('running') });
  dir = mkdtempSync(join(tmpdir(), 'aitia-replicas-'));
  agentToken = addToken(join(dir, 'tokens.json'), `${scope}-agent`, 'agent');
  writeFileSync(
    join(dir, 'sources.yaml'),
    `sources:\n  - kind: proxmox\n    name: ${scope}\n    url: ${standin.url}\n    token: ${standin.token}\n    poll_seconds: 5\n    backfill_hours: 0\n`,
    { mode: 0o600 },
  );
}, 120_000);

afterAll(async () => {
  for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  await standin?.close();
  await driver.executeQuery(
    `MATCH (n) WHERE n.resourceId CONTAINS $scope OR (n:Lease AND n.name = $lease) OR n.name = $scope
     DETACH DELETE n`,
    { scope, lease },
  );
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('two replicas, one leader', () => {
  let a: Replica;
  let b: Replica;
  let subscription: SseSubscription;

  it('only the leader polls; a subscriber on the other replica receives what the leader observed', async () => {
    a = await startReplica('a');
    await until(
      'a to hold the poll lease and pass once',
      60_000,
      async () => (await holder())?.holder === a.id && passes(a) > 0,
    );
    b = await startReplica('b');
    subscription = await subscribeSse(
      b.url,
      agentToken,
      'subscription($r: String) { transitionObserved(resourceId: $r) { resourceId from to } }',
      { r: vm },
    );
    standin.routes(lab('stopped'));
    await until('a to record running->stopped', 60_000, async () => (await transitionsOf(vm)).length === 1);
    expect(await transitionsOf(vm)).toEqual(['running->stopped']);
    expect(await subscription.next(10_000)).toEqual({
      data: { transitionObserved: { resourceId: vm, from: 'running', to: 'stopped' } },
    });
    expect((await holder())?.holder).toBe(a.id);
    expect(passes(b)).toBe(0);
  }, 300_000);

  it('the leader killed: the other polls within 2 × the lease, and the change around the handover is recorded once', async () => {
    const before = (await holder())!;
    // The VM starts again as the leader dies: whichever replica sees it, it becomes one transition.
    standin.routes(lab('running'));
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    await until('a to be gone', 5_000, () => a.child.signalCode !== null);
    // From now on every request the stand-in receives is b's.
    const sentByA = standin.requests.length;
    await until('b to hold the lease', 2 * LEASE_SECONDS * 1000 + 5000, async () => (await holder())?.holder === b.id);
    const acquiredMs = Date.now() - killedAt;
    await until('b to poll', 2 * LEASE_SECONDS * 1000 + 5000, () => standin.requests.length > sentByA);
    const polledMs = Date.now() - killedAt;
    console.log(
      `[replicas] lease ${LEASE_SECONDS} s: b acquired it ${acquiredMs} ms and polled ${polledMs} ms after a was killed`,
    );
    expect(polledMs).toBeLessThan(2 * LEASE_SECONDS * 1000);
    await until("b's first pass", 60_000, () => passes(b) > 0);
    const after = (await holder())!;
    expect(after.token).toBeGreaterThan(before.token);

    // Another pass of b after its first: nothing recorded twice.
    const seen = passes(b);
    await until('a second pass of b', 60_000, () => passes(b) > seen);
    expect(await transitionsOf(vm)).toEqual(['running->stopped', 'stopped->running']);
    expect(await subscription.next(10_000)).toEqual({
      data: { transitionObserved: { resourceId: vm, from: 'stopped', to: 'running' } },
    });

    // The former leader, paused instead of dead, resumes its pass with the token it held: refused,
    // nothing written (the change it would record is there to be seen).
    standin.routes(lab('stopped'));
    const stale = fencedDriver(driver, { lease, holder: a.id, token: before.token });
    await expect(
      observe({ driver: stale, suppression: 'shadow' }, proxmoxSource(standinClient(standin))),
    ).rejects.toSatisfy(isLeaseLost);
    expect(await transitionsOf(vm)).toEqual(['running->stopped', 'stopped->running']);
    subscription.close();
  }, 150_000);

  it('a replica stopped cleanly releases its leases', async () => {
    b.child.kill('SIGTERM');
    await until('b to exit', 20_000, () => b.child.exitCode !== null);
    expect(b.child.exitCode).toBe(0);
    expect(await holder()).toMatchObject({ holder: null });
  }, 30_000);
});
