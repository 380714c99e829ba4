import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapProxmoxVm } from '../../../../src/model/index.js';
import { createAgentPinger } from '../../../../src/ingest/proxmox/agent-on-demand.js';
import { NodeGuestEntrySchema } from '../../../../src/ingest/proxmox/api-shapes.js';
import { createProxmoxClient, ProxmoxApiError } from '../../../../src/ingest/proxmox/client.js';
import { parseRetryAfter } from '../../../../src/ingest/proxmox/client-error.js';
import { parseAgentEnabled } from '../../../../src/ingest/proxmox/guest-config.js';
import {
  agentPingDue,
  configReadReason,
  nextDue,
  phaseOf,
  type GuestPollRecord,
} from '../../../../src/ingest/proxmox/poll-state.js';
import { requestCategory } from '../../../../src/ingest/proxmox/request-stats.js';
import { changesGuestConfig, taskTypeInfo } from '../../../../src/ingest/proxmox/task-types.js';
import { readFixture } from '../../../support/fixtures.js';
import { labRoutes } from '../../../support/proxmox-lab.js';
import { errorResponse, startProxmoxStandin, type ProxmoxStandin } from '../../../support/proxmox-standin.js';

const T = 1_800_000_000_000;
const record = (over: Partial<GuestPollRecord> = {}): GuestPollRecord => ({
  node: 'pve1',
  config: {},
  configReadAt: T - 60_000,
  nextConfigAt: T + 60_000,
  agentPingAt: T - 60_000,
  nextPingAt: T + 60_000,
  running: true,
  ...over,
});

describe('which config a pass reads', () => {
  it.each([
    ['never read: first sight', { record: undefined, node: 'pve1', pending: false, now: T }, 'first'],
    [
      'never read, a task pending too: still first',
      { record: undefined, node: 'pve1', pending: true, now: T },
      'first',
    ],
    ['a config-changing task since', { record: record(), node: 'pve1', pending: true, now: T }, 'task'],
    ['listed on another node: it moved', { record: record(), node: 'pve2', pending: false, now: T }, 'placement'],
    ['rolling refresh due', { record: record({ nextConfigAt: T }), node: 'pve1', pending: false, now: T }, 'refresh'],
    ['nothing changed, refresh not due', { record: record(), node: 'pve1', pending: false, now: T }, null],
  ] as const)('%s → %s', (_name, input, expected) => {
    expect(configReadReason(input)).toBe(expected);
  });

  it('spreads first refreshes over one period and bounds every later one by it', () => {
    const period = 3600_000;
    const ids = Array.from({ length: 3000 }, (_, i) => `proxmox:lab/qemu/${1000 + i}`);
    const first = ids.map((id) => nextDue(id, T, period, true) - T);
    expect(Math.max(...first)).toBeLessThanOrEqual(period);
    expect(Math.min(...first)).toBeGreaterThan(0);
    // Per 30 s poll about 3000 × 30 / 3600 = 25 guests come due, never a burst of them all.
    const perPoll = new Map<number, number>();
    for (const d of first) perPoll.set(Math.floor(d / 30_000), (perPoll.get(Math.floor(d / 30_000)) ?? 0) + 1);
    expect(Math.max(...perPoll.values())).toBeLessThan(60);
    expect(nextDue(ids[0]!, T, period, false)).toBe(T + period);
  });

  // FNV-1a 32-bit of the id (published vectors: "" → 0x811c9dc5, "a" → 0xe40c292c, "foobar" →
  // 0xbf9cf968), then (h mod 10000 + 1) / 10000: a phase in (0, 1], the same on every replica.
  it.each([
    ['', 0.6262],
    ['a', 0.2221],
    ['foobar', 0.5721],
    ['proxmox:lab/qemu/101', 0.6554],
    ['proxmox:lab/qemu/102', 0.3697],
    ['proxmox:homelab/lxc/200', 0.0532],
  ])('phaseOf(%j) is %d', (id, phase) => {
    expect(phaseOf(id)).toBe(phase);
  });
});

describe('when a guest agent is pinged', () => {
  it.each([
    ['agent not enabled', { enabled: false, running: true, record: undefined, now: T }, false],
    ['VM not running', { enabled: true, running: false, record: undefined, now: T }, false],
    ['never pinged', { enabled: true, running: true, record: undefined, now: T }, true],
    [
      'never pinged (known guest)',
      { enabled: true, running: true, record: record({ agentPingAt: null }), now: T },
      true,
    ],
    ['just started', { enabled: true, running: true, record: record({ running: false }), now: T }, true],
    ['cadence due', { enabled: true, running: true, record: record({ nextPingAt: T }), now: T }, true],
    ['pinged recently', { enabled: true, running: true, record: record(), now: T }, false],
  ] as const)('%s → %s', (_name, input, expected) => {
    expect(agentPingDue(input)).toBe(expected);
  });

  it.each([
    [{ agent: '1' }, true],
    [{ agent: 'enabled=1,fstrim_cloned_disks=1' }, true],
    [{ agent: '1,type=isa' }, true],
    [{ agent: '0' }, false],
    [{ agent: 'enabled=0' }, false],
    [{ agent: 'fstrim_cloned_disks=1' }, false],
    [{ agent: 1 }, true],
    [{}, false],
  ])('config %j → agent enabled %s', (config, expected) => {
    expect(parseAgentEnabled(config)).toBe(expected);
  });
});

describe('tasks that re-read a config', () => {
  it.each([
    ['qmconfig', true],
    ['qmcreate', true],
    ['qmclone', true],
    ['qmrestore', true],
    ['qmmove', true],
    ['qmigrate', true],
    ['qmrollback', true],
    ['qmtemplate', true],
    ['resize', true],
    ['move_volume', true],
    ['vzcreate', true],
    ['vzmigrate', true],
    ['qmstart', false],
    ['qmstop', false],
    ['qmsnapshot', false],
    ['vzdump', false],
    ['hamigrate', false],
  ])('%s → %s', (raw, expected) => {
    expect(changesGuestConfig(taskTypeInfo(raw).type, raw)).toBe(expected);
  });
});

describe('request categories and Retry-After', () => {
  it.each([
    ['GET', '/cluster/status', 'cluster'],
    ['GET', '/cluster/resources', 'cluster'],
    ['GET', '/nodes/pve1/tasks', 'tasks'],
    ['GET', '/nodes/pve1/tasks/UPID:pve1:0001:0002:0003:qmstart:101:root@pam:/status', 'task_status'],
    ['GET', '/nodes/pve1/qemu', 'node_list'],
    ['GET', '/nodes/pve1/lxc', 'node_list'],
    ['GET', '/nodes/pve1/qemu/101/status/current', 'guest_status'],
    ['GET', '/nodes/pve1/lxc/200/config', 'guest_config'],
    ['POST', '/nodes/pve1/qemu/101/agent/ping', 'agent_ping'],
    ['GET', '/version', 'other'],
  ] as const)('%s %s → %s', (method, path, expected) => {
    expect(requestCategory(method, path)).toBe(expected);
  });

  it.each([
    ['2', 2000],
    ['0', 0],
    [' 30 ', 30_000],
    [new Date(T + 5000).toUTCString(), 5000],
    [new Date(T - 5000).toUTCString(), 0],
    ['soon', null],
    ['', null],
    [null, null],
  ])('Retry-After %j → %s ms', (value, expected) => {
    expect(parseRetryAfter(value, T)).toBe(expected);
  });
});

describe('node guest lists (fixtures)', () => {
  const list = (name: string) => (readFixture(`proxmox/node-lists/${name}`) as { data: unknown[] }).data;

  it('every entry parses, and the run state comes from the list alone (io-error, prelaunch, template)', () => {
    const states = ['pve1-qemu-full.json', 'pve2-qemu-full.json'].flatMap((f) =>
      list(f).map((raw) => {
        const e = NodeGuestEntrySchema.parse(raw);
        return `${e.vmid}:${mapProxmoxVm({ status: e.status, qmpstatus: e.qmpstatus ?? null, lock: e.lock ?? null }).state}`;
      }),
    );
    expect(states).toEqual(['101:running', '102:stopped', '9000:stopped', '110:running', '113:paused_io_error']);
    expect(NodeGuestEntrySchema.parse(list('pve2-lxc.json')[0])).toMatchObject({ vmid: 202, status: 'stopped' });
    expect(NodeGuestEntrySchema.parse({ ...(list('pve3-lxc.json')[0] as object), vmid: '210' }).vmid).toBe(210);
    // A list entry is not status/current: no HA object, no agent flag.
    for (const e of list('pve2-qemu-full.json'))
      expect(Object.keys(e as object)).not.toEqual(expect.arrayContaining(['ha']));
  });
});

describe('the stand-in and the client', () => {
  let standin: ProxmoxStandin;
  beforeAll(async () => {
    standin = await startProxmoxStandin({ routes: labRoutes('lab') });
  });
  afterAll(async () => {
    await standin.close();
  });
  const client = (over: { maxConcurrent?: number; retries?: number } = {}) =>
    createProxmoxClient({ baseUrl: standin.url, token: standin.token, timeoutMs: 3000, backoffMs: 5, ...over });

  it.each([
    ['/nodes/pve1/qemu', { full: 1 }, 'pve1-qemu-full.json'],
    ['/nodes/pve2/qemu', { full: 1 }, 'pve2-qemu-full.json'],
    ['/nodes/pve2/qemu', undefined, 'pve2-qemu.json'],
    ['/nodes/pve2/lxc', undefined, 'pve2-lxc.json'],
    ['/nodes/pve3/lxc', undefined, 'pve3-lxc.json'],
  ])('derives %s %j from the lab recordings exactly as the fixture %s has it', async (path, query, fixture) => {
    const c = client();
    expect(await c.get(path, query)).toEqual((readFixture(`proxmox/node-lists/${fixture}`) as { data: unknown }).data);
    c.close();
  });

  it('keeps at most maxConcurrent requests in flight and counts them by category', async () => {
    let inFlight = 0;
    let peak = 0;
    standin.route('GET', '/cluster/log', async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      return { body: { data: [] } };
    });
    const c = client({ maxConcurrent: 3 });
    await Promise.all(Array.from({ length: 12 }, () => c.get('/cluster/log')));
    expect(peak).toBe(3);
    expect(c.requestCounts()).toMatchObject({ total: 12, byCategory: { other: 12 }, retried: 0 });
    c.close();
  });

  it('backs off on a 429 for its Retry-After, then succeeds; the whole client waits', async () => {
    standin.fault('/cluster/status', { kind: 'status', status: 429, retryAfter: '1' }, { times: 1 });
    const c = client({ retries: 2 });
    const started = Date.now();
    const [status] = await Promise.all([c.get('/cluster/status'), new Promise((r) => setTimeout(r, 50)).then(() => 0)]);
    expect(Array.isArray(status)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(c.requestCounts()).toMatchObject({ total: 2, retried: 1, throttled: 1 });
    expect(c.requestCounts().backoffMs).toBeGreaterThan(800);
    c.close();
  });

  it('a POST is repeated after a 429 (refused unread) but not after a 503', async () => {
    standin.route('POST', '/nodes/pve1/qemu/101/agent/ping', { body: { data: { result: {} } } });
    standin.fault('/nodes/pve1/qemu/101/agent/ping', { kind: 'status', status: 429, retryAfter: '0' }, { times: 1 });
    const c = client();
    expect(await c.post('/nodes/pve1/qemu/101/agent/ping')).toEqual({ result: {} });
    standin.fault('/nodes/pve1/qemu/101/agent/ping', { kind: 'status', status: 503 }, { times: 1 });
    await expect(c.post('/nodes/pve1/qemu/101/agent/ping')).rejects.toBeInstanceOf(ProxmoxApiError);
    expect(c.requestCounts().byCategory.agent_ping).toBe(3);
    c.close();
  });

  it('the on-demand agent ping is cached, shared by concurrent asks, and bounded', async () => {
    standin.route('POST', '/nodes/pve1/qemu/101/agent/ping', async () => {
      await new Promise((r) => setTimeout(r, 30));
      return { body: { data: { result: {} } } };
    });
    standin.route('POST', '/nodes/pve2/qemu/110/agent/ping', errorResponse(500, 'QEMU guest agent is not running'));
    let now = T;
    const c = client();
    const pinger = createAgentPinger(c, { maxAgeMs: 60_000, now: () => now });
    const before = c.requestCounts().byCategory.agent_ping;
    const [a, b] = await Promise.all([
      pinger.check({ node: 'pve1', vmid: 101 }),
      pinger.check({ node: 'pve1', vmid: 101 }),
    ]);
    expect([a.state, b.state]).toEqual(['running', 'running']);
    expect([a.fresh, b.fresh].sort()).toEqual([false, true]);
    expect((await pinger.check({ node: 'pve2', vmid: 110 })).state).toBe('not_running');
    now += 30_000;
    expect((await pinger.check({ node: 'pve1', vmid: 101 })).fresh).toBe(false);
    expect(c.requestCounts().byCategory.agent_ping - before).toBe(2);
    now += 31_000;
    expect((await pinger.check({ node: 'pve1', vmid: 101 })).fresh).toBe(true);
    expect((await pinger.check({ node: 'pve1', vmid: 101 }, { maxAgeMs: 0 })).fresh).toBe(true);
    expect(c.requestCounts().byCategory.agent_ping - before).toBe(4);
    c.close();
  });
});
