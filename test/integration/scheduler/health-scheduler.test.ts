import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { getResourceById } from '../../../src/graph/resources/read.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { searchConditions } from '../../../src/graph/conditions.js';
import { createCheck, getCheck, removeCheck } from '../../../src/graph/checks.js';
import { createLogger } from '../../../src/log.js';
import { CheckDefinitionSchema } from '../../../src/model/index.js';
import { type HealthScheduler, startHealthScheduler } from '../../../src/scheduler/health-scheduler.js';
import { useGraph } from '../../support/graph.js';
import { checkNetworkAllowing, type ProbeTarget, startProbeTarget } from '../../support/probe-target.js';

const { driver, scope } = useGraph();
const K = 3;
const HISTORY = 5;
let scheduler: HealthScheduler;
let target: ProbeTarget;

const id = (name: string) => `manual:service/${scope}-${name}`;
const vmId = (n: number) => `proxmox:lab-${scope}/qemu/${n}`;

async function addCheck(resourceId: string, def: unknown, critical = false) {
  const definition = CheckDefinitionSchema.parse(def);
  return (
    await createCheck(driver, {
      resourceId,
      definition,
      intervalSeconds: 60,
      critical,
      createdBy: 'test',
      at: DateTime.utc().toISO(),
    })
  ).check;
}
const conditionsOf = async (resourceId: string, type: string, status?: 'open' | 'resolved') =>
  (await searchConditions(driver, { resourceId, type: type as never, status: status ?? null }, { first: 50 })).nodes;
const health = async (resourceId: string) => (await getResourceById(driver, resourceId))!.health;

beforeAll(async () => {
  target = await startProbeTarget();
  scheduler = startHealthScheduler({
    driver,
    log: createLogger('silent'),
    autoTick: false,
    k: K,
    historySize: HISTORY,
    concurrency: 2,
    network: checkNetworkAllowing('127.0.0.1'),
  });
  await upsertResources(driver, [
    { id: id('api'), kind: 'service', provider: 'manual', name: `${scope}-api`, state: 'up' },
    { id: id('bare'), kind: 'service', provider: 'manual', name: `${scope}-bare`, state: 'up' },
    { id: id('slowpool'), kind: 'service', provider: 'manual', name: `${scope}-slowpool`, state: 'up' },
    {
      id: vmId(101),
      kind: 'vm',
      provider: 'proxmox',
      name: `vm101-${scope}`,
      state: 'running',
      attributes: { qemu_guest_agent: 'running' },
    },
  ]);
  // A cold Neo4j plans each statement once (seconds on a small machine): not what we measure.
  for (let i = 0; i < 2; i++) await scheduler.runOnce({ all: true });
});
afterAll(async () => {
  await scheduler?.stop();
  await target?.close();
});

describe('health scheduler (runOnce, real Neo4j, probe target on 127.0.0.1)', () => {
  it('runs checks with bounded concurrency and per-check timeouts', async () => {
    await target.set('slow');
    const checks = [];
    for (let i = 0; i < 6; i++)
      checks.push(
        await addCheck(id('slowpool'), { kind: 'http', spec: { url: `${target.url}?n=${i}`, timeoutMs: 300 } }),
      );
    const before = target.accepted();
    const t0 = performance.now();
    const report = await scheduler.runOnce({ all: true });
    const ms = performance.now() - t0;
    expect(target.accepted() - before).toBe(6);
    // 6 probes that each wait out a 300 ms timeout, 2 at a time (concurrency 2): three rounds of two
    // connections, the rounds a timeout apart. Unbounded, all six would arrive within milliseconds.
    const times = target.acceptTimes().slice(-6);
    const inWindow = times.map((t) => times.filter((u) => u >= t && u < t + 200).length);
    expect(Math.max(...inWindow)).toBe(2);
    expect(ms).toBeGreaterThanOrEqual(850);
    expect(report.fail).toBeGreaterThanOrEqual(6);
    const stored = await getCheck(driver, checks[0]!.id);
    expect(stored!.results[0]).toMatchObject({
      status: 'fail',
      reason: `timed out after 300 ms waiting for 127.0.0.1:${target.port} to answer`,
      unreachable: false,
    });
    expect(await health(id('slowpool'))).toBe('unhealthy');
    for (const c of checks) await removeCheck(driver, c.id);
    await target.set('up');
  });

  it('keeps the last N results per check, newest first, and runs only due checks without `all`', async () => {
    await target.set('up');
    const check = await addCheck(id('api'), { kind: 'http', spec: { url: target.url, timeoutMs: 1000 } });
    for (let i = 0; i < HISTORY + 2; i++) await scheduler.runOnce({ all: true });
    const stored = (await getCheck(driver, check.id))!;
    expect(stored.results).toHaveLength(HISTORY);
    expect(stored.results.map((r) => r.at)).toEqual([...stored.results.map((r) => r.at)].sort().reverse());
    expect(
      DateTime.fromISO(stored.nextDueAt!).diff(DateTime.fromISO(stored.lastRunAt!), 'seconds').seconds,
    ).toBeCloseTo(60, 0);
    const before = target.accepted();
    const report = await scheduler.runOnce();
    expect(target.accepted()).toBe(before);
    expect(report.checksRun).toBe(0);
    expect(await health(id('api'))).toBe('healthy');
  });

  it('opens unmonitored (reporting only) on a resource with no check and resolves it once a check is added', async () => {
    await scheduler.runOnce();
    const [open] = await conditionsOf(id('bare'), 'unmonitored', 'open');
    expect(open!.evidence).toMatchObject({ reportingOnly: true, remediation: expect.stringMatching(/^none/) });
    expect(open!.attribution).toBeNull();
    expect(await conditionsOf(id('api'), 'unmonitored', 'open')).toEqual([]);
    const check = await addCheck(id('bare'), { kind: 'provider_state', spec: {} });
    await scheduler.runOnce();
    expect(await conditionsOf(id('bare'), 'unmonitored', 'open')).toEqual([]);
    const [resolved] = await conditionsOf(id('bare'), 'unmonitored', 'resolved');
    expect(resolved!.resolvedAt).not.toBeNull();
    expect(await health(id('bare'))).toBe('healthy');
    // Removing the last check: health returns to unknown and the resource is unmonitored again.
    await removeCheck(driver, check.id);
    await scheduler.runOnce();
    expect(await health(id('bare'))).toBe('unknown');
    expect(await conditionsOf(id('bare'), 'unmonitored', 'open')).toHaveLength(1);
  });

  it('provider_state reading unreachable opens unreachable and check_failing after K runs; the guest agent check follows qemu_guest_agent', async () => {
    const vm = { id: vmId(101), kind: 'vm', provider: 'proxmox', name: `vm101-${scope}` };
    await addCheck(vm.id, { kind: 'provider_state', spec: {} });
    await addCheck(vm.id, { kind: 'proxmox_agent', spec: {} });
    await scheduler.runOnce({ all: true });
    expect(await health(vm.id)).toBe('healthy');
    await upsertResources(driver, [
      { ...vm, state: 'unreachable', rawState: 'unknown', attributes: { qemu_guest_agent: 'not_running' } },
    ]);
    for (let i = 1; i <= K; i++) {
      await scheduler.runOnce({ all: true });
      expect(await health(vm.id)).toBe('unhealthy');
      expect(await conditionsOf(vm.id, 'unreachable', 'open')).toHaveLength(i === K ? 1 : 0);
    }
    const [unreachable] = await conditionsOf(vm.id, 'unreachable', 'open');
    expect(unreachable!.evidence).toMatchObject({
      source: 'health-scheduler',
      k: K,
      checks: [{ kind: 'provider_state', target: 'state' }],
    });
    expect((unreachable!.evidence as any).checks[0].results).toHaveLength(K);
    expect((await conditionsOf(vm.id, 'check_failing', 'open'))[0]!.evidence).toMatchObject({
      checks: [{ kind: 'provider_state' }, { kind: 'proxmox_agent' }],
    });
    // Back to running with the agent answering: K passes resolve both.
    await upsertResources(driver, [
      { ...vm, state: 'running', rawState: 'running', attributes: { qemu_guest_agent: 'running' } },
    ]);
    for (let i = 1; i <= K; i++) await scheduler.runOnce({ all: true });
    expect(await conditionsOf(vm.id, 'unreachable', 'open')).toEqual([]);
    expect(await conditionsOf(vm.id, 'check_failing', 'open')).toEqual([]);
    expect(await health(vm.id)).toBe('healthy');
  });

  it('a failing critical check makes the resource unhealthy although others pass; removing it resolves check_failing', async () => {
    const critical = await addCheck(
      id('api'),
      { kind: 'tcp', spec: { host: '127.0.0.1', port: 1, timeoutMs: 300 } },
      true,
    );
    for (let i = 0; i < K; i++) await scheduler.runOnce({ all: true });
    expect(await health(id('api'))).toBe('unhealthy');
    expect(await conditionsOf(id('api'), 'check_failing', 'open')).toHaveLength(1);
    await removeCheck(driver, critical.id);
    await scheduler.runOnce();
    const [resolved] = await conditionsOf(id('api'), 'check_failing', 'resolved');
    expect(resolved!.status).toBe('resolved');
    await scheduler.runOnce({ all: true });
    expect(await health(id('api'))).toBe('healthy');
  });

  it('ingest cannot set health: attributes named health land as attributes, the health property is unchanged', async () => {
    const before = await getResourceById(driver, vmId(101));
    await upsertResources(driver, [
      {
        id: vmId(101),
        kind: 'vm',
        provider: 'proxmox',
        name: `vm101-${scope}`,
        state: 'running',
        attributes: { health: 'unhealthy', last_check_at: '2000-01-01T00:00:00Z', qemu_guest_agent: 'running' },
      },
    ]);
    const after = await getResourceById(driver, vmId(101));
    expect(after!.health).toBe(before!.health);
    expect(after!.lastCheckAt).toBe(before!.lastCheckAt);
  });
});
