import { describe, expect, it } from 'vitest';
import { attribute, type AttributeOptions, consumedBy, TRANSITION_TABLE } from '../../../correlator/index.js';
import type { Attribution, Transition } from '../../../src/model/index.js';
import type { EventRecord } from '../../../src/model/events.js';
import { at, task, vcEvent, vmTransition } from './builders.js';

interface Want {
  confidence: Attribution['confidence'];
  /** Index into the case's events of the cause; absent for none. */
  cause?: number;
  /** Index of the request event (HA, reboot, migration) credited. */
  request?: number;
  actor?: string | null;
  actorKind?: Attribution['actorKind'];
  requestedBy?: string | null;
  executor?: string | null;
  executorKind?: Attribution['executorKind'];
  deltaSeconds?: number | null;
  expectedType?: boolean;
}

interface Case {
  name: string;
  transition: Transition;
  events: EventRecord[];
  options?: Partial<AttributeOptions>;
  want: Want;
}

const CASES: Case[] = [
  {
    name: 'a plain stop',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:08:29', end: '02:08:30' })],
    want: {
      confidence: 'high',
      cause: 0,
      actor: 'alice@pve',
      actorKind: 'human',
      requestedBy: null,
      executor: null,
      deltaSeconds: 1,
      expectedType: true,
    },
  },
  {
    name: 'a shutdown that timed out, then a stop: the stop explains it',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({
        type: 'qmshutdown',
        start: '02:07:20',
        end: '02:08:20',
        status: 'VM quit/powerdown failed - got timeout',
      }),
      task({ type: 'qmstop', start: '02:08:22', end: '02:08:23', user: 'bob@pve' }),
    ],
    want: { confidence: 'high', cause: 1, actor: 'bob@pve', deltaSeconds: 8 },
  },
  {
    name: 'only the timed-out shutdown: failed task of the expected type is medium',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({
        type: 'qmshutdown',
        start: '02:07:20',
        end: '02:08:20',
        status: 'VM quit/powerdown failed - got timeout',
      }),
    ],
    want: { confidence: 'medium', cause: 0, actor: 'alice@pve', expectedType: true, deltaSeconds: 11 },
  },
  {
    name: 'a reboot, stop half: qmreboot (still running) explains running → stopped',
    transition: vmTransition('running', 'stopped', '02:08:15'),
    events: [task({ type: 'qmreboot', start: '02:08:00', end: null })],
    want: { confidence: 'high', cause: 0, actor: 'alice@pve', deltaSeconds: 0 },
  },
  {
    name: 'a reboot, start half: the qmstart by root@pam is credited to the reboot requester',
    transition: vmTransition('stopped', 'running'),
    events: [
      task({ type: 'qmreboot', start: '02:08:00', end: '02:08:20' }),
      task({ type: 'qmstart', start: '02:08:21', end: '02:08:22', user: 'root@pam' }),
    ],
    want: {
      confidence: 'high',
      cause: 1,
      request: 0,
      actor: 'alice@pve',
      actorKind: 'human',
      requestedBy: 'alice@pve',
      executor: 'root@pam',
      executorKind: 'system',
      deltaSeconds: 9,
    },
  },
  {
    name: 'live migration, source side: qmigrate running explains running → migrating',
    transition: vmTransition('running', 'migrating', '02:08:00'),
    events: [
      task({ type: 'qmigrate', start: '02:07:50', end: null, node: 'pve1' }),
      task({ type: 'qmstart', start: '02:07:55', end: '02:07:56', node: 'pve2', user: 'root@pam' }),
    ],
    want: { confidence: 'high', cause: 0, actor: 'alice@pve', deltaSeconds: 0 },
  },
  {
    name: 'live migration, target side: qmresume by root@pam on the target, credited to the migrating user',
    transition: vmTransition('migrating', 'running'),
    events: [
      task({ type: 'qmigrate', start: '02:07:50', end: '02:08:20', node: 'pve1' }),
      task({ type: 'qmstart', start: '02:07:55', end: '02:07:56', node: 'pve2', user: 'root@pam' }),
      task({ type: 'qmresume', start: '02:08:27', end: '02:08:28', node: 'pve2', user: 'root@pam' }),
    ],
    want: {
      confidence: 'high',
      cause: 2,
      request: 0,
      actor: 'alice@pve',
      requestedBy: 'alice@pve',
      executor: 'root@pam',
      executorKind: 'system',
      deltaSeconds: 3,
    },
  },
  {
    name: 'HA start: hastart by bob, qmstart by root@pam 14 s later',
    transition: vmTransition('stopped', 'running'),
    events: [
      task({ type: 'hastart', start: '02:08:00', end: '02:08:00', user: 'bob@pve', node: 'pve2' }),
      task({ type: 'qmstart', start: '02:08:14', end: '02:08:16', user: 'root@pam' }),
    ],
    want: {
      confidence: 'high',
      cause: 1,
      request: 0,
      actor: 'bob@pve',
      actorKind: 'human',
      requestedBy: 'bob@pve',
      executor: 'root@pam',
      executorKind: 'ha_manager',
      deltaSeconds: 15,
    },
  },
  {
    name: 'HA stop by an API token: the token is credited',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'hastop', start: '02:08:00', end: '02:08:01', user: 'ops@pve!deploy' }),
      task({ type: 'qmshutdown', start: '02:08:12', end: '02:08:28', user: 'root@pam' }),
    ],
    want: {
      confidence: 'high',
      cause: 1,
      request: 0,
      actor: 'ops@pve!deploy',
      actorKind: 'api_token',
      requestedBy: 'ops@pve!deploy',
      executor: 'root@pam',
      executorKind: 'ha_manager',
    },
  },
  {
    name: 'HA request too long before the executing task: not credited',
    transition: vmTransition('stopped', 'running'),
    events: [
      task({ type: 'hastart', start: '02:05:00', end: '02:05:00', user: 'bob@pve' }),
      task({ type: 'qmstart', start: '02:08:20', end: '02:08:21', user: 'root@pam' }),
    ],
    want: {
      confidence: 'high',
      cause: 1,
      actor: 'root@pam',
      actorKind: 'human',
      requestedBy: null,
      executor: null,
      executorKind: null,
    },
  },
  {
    name: "a start by a named user after an HA request is that user's, not the requester's",
    transition: vmTransition('stopped', 'running'),
    events: [
      task({ type: 'hastart', start: '02:08:00', end: '02:08:00', user: 'bob@pve' }),
      task({ type: 'qmstart', start: '02:08:14', end: '02:08:16', user: 'carol@pve' }),
    ],
    want: { confidence: 'high', cause: 1, actor: 'carol@pve', requestedBy: null },
  },
  {
    name: "a node crash: guests stop with no task → none (other guests' tasks never match)",
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'qmstart', start: '02:08:20', end: '02:08:21', vmid: '102' }),
      task({ type: 'vzdump', start: '02:05:00', end: '02:09:00', vmid: '103', status: 'unexpected status' }),
    ],
    want: { confidence: 'none', actor: null, actorKind: null, deltaSeconds: null },
  },
  {
    name: 'boot-time startall alone is provider-level: not emitted by default',
    transition: vmTransition('stopped', 'running', '02:08:31', { hostId: 'proxmox:lab/node/pve1' }),
    events: [task({ type: 'startall', start: '02:08:05', end: null, vmid: '', user: 'root@pam' })],
    want: { confidence: 'none' },
  },
  {
    name: 'boot-time startall alone with emitLow: low',
    transition: vmTransition('stopped', 'running', '02:08:31', { hostId: 'proxmox:lab/node/pve1' }),
    events: [task({ type: 'startall', start: '02:08:05', end: null, vmid: '', user: 'root@pam' })],
    options: { emitLow: true },
    want: { confidence: 'low', cause: 0, actor: 'root@pam', expectedType: true, deltaSeconds: 0 },
  },
  {
    name: 'startall on another node is not low for this VM',
    transition: vmTransition('stopped', 'running', '02:08:31', { hostId: 'proxmox:lab/node/pve1' }),
    events: [task({ type: 'startall', start: '02:08:05', end: null, vmid: '', user: 'root@pam', node: 'pve2' })],
    options: { emitLow: true },
    want: { confidence: 'none' },
  },
  {
    name: 'startall in another cluster is not low either (no host given: same-cluster scope)',
    transition: vmTransition('stopped', 'running'),
    events: [task({ type: 'startall', start: '02:08:05', end: null, vmid: '', user: 'root@pam', cluster: 'other' })],
    options: { emitLow: true },
    want: { confidence: 'none' },
  },
  {
    name: 'startall with its per-guest qmstart: the qmstart is high',
    transition: vmTransition('stopped', 'running', '02:08:31', { hostId: 'proxmox:lab/node/pve1' }),
    events: [
      task({ type: 'startall', start: '02:08:05', end: null, vmid: '', user: 'root@pam' }),
      task({ type: 'qmstart', start: '02:08:10', end: '02:08:12', user: 'root@pam' }),
    ],
    options: { emitLow: true },
    want: { confidence: 'high', cause: 1, actor: 'root@pam' },
  },
  {
    name: 'a failed start near a running → stopped is medium at most',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({
        type: 'qmstart',
        start: '02:08:20',
        end: '02:08:21',
        user: 'bob@pve',
        status: 'start failed: QEMU exited with code 1',
      }),
    ],
    want: { confidence: 'medium', cause: 0, actor: 'bob@pve', expectedType: false },
  },
  {
    name: 'a failed start of the expected type is medium, not high',
    transition: vmTransition('stopped', 'running'),
    events: [
      task({
        type: 'qmstart',
        start: '02:08:20',
        end: '02:08:21',
        user: 'bob@pve',
        status: 'start failed: QEMU exited with code 1',
      }),
    ],
    want: { confidence: 'medium', cause: 0, expectedType: true },
  },
  {
    name: 'a still-running shutdown at the observation is high',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmshutdown', start: '02:08:01', end: null })],
    want: { confidence: 'high', cause: 0, actor: 'alice@pve', deltaSeconds: 0 },
  },
  {
    name: 'a long shutdown whose interval ends near the observation is high though it started 90 s before',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmshutdown', start: '02:07:00', end: '02:08:25' })],
    want: { confidence: 'high', cause: 0, deltaSeconds: 6 },
  },
  {
    name: 'an API-token actor',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:08:29', end: '02:08:30', user: 'root@pam!automation' })],
    want: { confidence: 'high', cause: 0, actor: 'root@pam!automation', actorKind: 'api_token' },
  },
  {
    name: 'VMID 101 of another cluster never matches',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:08:29', end: '02:08:30', cluster: 'other' })],
    want: { confidence: 'none' },
  },
  {
    name: 'clock skew: 33 s before the observation is high with 5 s tolerance',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:07:57', end: '02:07:58' })],
    options: { clockSkewSeconds: 5 },
    want: { confidence: 'high', cause: 0, deltaSeconds: 33 },
  },
  {
    name: 'clock skew: 33 s before the observation is medium without tolerance',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:07:57', end: '02:07:58' })],
    options: { clockSkewSeconds: 0 },
    want: { confidence: 'medium', cause: 0, expectedType: true },
  },
  {
    name: 'clock skew: a task that starts 3 s after the observation is within a 5 s tolerance',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:08:34', end: '02:08:35' })],
    options: { clockSkewSeconds: 5 },
    want: { confidence: 'high', cause: 0, deltaSeconds: -3 },
  },
  {
    name: 'clock skew: a task that starts after the observation cannot cause it without tolerance',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:08:34', end: '02:08:35' })],
    options: { clockSkewSeconds: 0 },
    want: { confidence: 'none' },
  },
  {
    name: 'the expected type beats a nearer unexpected one',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'qmstop', start: '02:08:10', end: '02:08:11' }),
      task({ type: 'qmconfig', start: '02:08:30', end: '02:08:30', user: 'bob@pve' }),
    ],
    want: { confidence: 'high', cause: 0 },
  },
  {
    name: 'among expected types the nearest wins',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'qmshutdown', start: '02:08:00', end: '02:08:10' }),
      task({ type: 'qmstop', start: '02:08:28', end: '02:08:29', user: 'bob@pve' }),
    ],
    want: { confidence: 'high', cause: 1, actor: 'bob@pve' },
  },
  {
    name: 'medium: a failed expected task beats a nearer unexpected one',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({
        type: 'qmshutdown',
        start: '02:06:00',
        end: '02:07:00',
        status: 'VM quit/powerdown failed - got timeout',
      }),
      task({ type: 'qmconfig', start: '02:08:30', end: '02:08:30', user: 'bob@pve' }),
    ],
    want: { confidence: 'medium', cause: 0, expectedType: true },
  },
  {
    name: 'look-back: an unexpected task 200 s before is medium',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmconfig', start: '02:05:10', end: '02:05:11' })],
    want: { confidence: 'medium', cause: 0, expectedType: false },
  },
  {
    name: 'look-back: a task 400 s before is out of view',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:01:50', end: '02:01:51' })],
    want: { confidence: 'none' },
  },
  {
    name: 'a crash with a backup running: the backup is medium, never high',
    transition: vmTransition('running', 'crashed'),
    events: [task({ type: 'vzdump', start: '02:00:00', end: null, user: 'root@pam' })],
    want: { confidence: 'medium', cause: 0, expectedType: false, deltaSeconds: 0 },
  },
  {
    name: 'vCenter: VmPoweredOffEvent by a user',
    transition: {
      resourceId: 'vcenter:vc1/vm/vm-101',
      kind: 'vm',
      from: 'running',
      to: 'stopped',
      observedAt: at('02:08:31'),
    },
    events: [vcEvent('VmPoweredOffEvent', '02:08:25', 9001, 'VSPHERE.LOCAL\\alice')],
    want: { confidence: 'high', cause: 0, actor: 'VSPHERE.LOCAL\\alice', actorKind: 'human', deltaSeconds: 6 },
  },
  {
    name: "vCenter: a guest-initiated power-off is the system's",
    transition: {
      resourceId: 'vcenter:vc1/vm/vm-101',
      kind: 'vm',
      from: 'running',
      to: 'stopped',
      observedAt: at('02:08:31'),
    },
    events: [vcEvent('VmPoweredOffEvent', '02:08:25', 9001, '')],
    want: { confidence: 'high', cause: 0, actor: null, actorKind: 'system' },
  },
  {
    name: 'vCenter: the host lost its connection — an event on the host, not on the VM: none by default',
    transition: {
      resourceId: 'vcenter:vc1/vm/vm-101',
      kind: 'vm',
      from: 'running',
      to: 'unreachable',
      observedAt: at('02:08:31'),
      hostId: 'vcenter:vc1/host/host-21',
    },
    events: [vcEvent('HostConnectionLostEvent', '02:08:20', 9003, '')],
    want: { confidence: 'none' },
  },
  {
    name: 'vCenter: the host lost its connection — low with emitLow',
    transition: {
      resourceId: 'vcenter:vc1/vm/vm-101',
      kind: 'vm',
      from: 'running',
      to: 'unreachable',
      observedAt: at('02:08:31'),
      hostId: 'vcenter:vc1/host/host-21',
    },
    events: [vcEvent('HostConnectionLostEvent', '02:08:20', 9003, '')],
    options: { emitLow: true },
    want: { confidence: 'low', cause: 0, actorKind: 'system', expectedType: true },
  },
  {
    name: 'vCenter: restarted by HA',
    transition: {
      resourceId: 'vcenter:vc1/vm/vm-101',
      kind: 'vm',
      from: 'stopped',
      to: 'running',
      observedAt: at('02:08:31'),
    },
    events: [vcEvent('VmRestartedByHAEvent', '02:08:20', 9002, '')],
    want: { confidence: 'high', cause: 0, actor: null, actorKind: 'ha_manager' },
  },
];

describe('attribute: the ladder', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const a = attribute(c.transition, c.events, TRANSITION_TABLE, c.options);
    const { cause, request, ...rest } = c.want;
    expect(a).toMatchObject(rest);
    const ids = a.events.map((e) => [e.role, e.id]);
    const want: Array<[string, string]> = [];
    if (cause !== undefined) want.push(['cause', c.events[cause]!.id]);
    if (request !== undefined) want.push(['request', c.events[request]!.id]);
    expect(ids).toEqual(want);
    expect(a.reason.length).toBeGreaterThan(10);
  });
});

describe('attribute: one task does not explain two transitions of the same kind', () => {
  const stop = task({ type: 'qmstop', start: '02:08:29', end: '02:08:30' });
  const first = vmTransition('running', 'stopped', '02:08:31');
  const second = vmTransition('running', 'stopped', '02:08:50');

  it('the second running → stopped finds the stop consumed', () => {
    const a1 = attribute(first, [stop], TRANSITION_TABLE);
    expect(a1.confidence).toBe('high');
    const a2 = attribute(second, [stop], TRANSITION_TABLE, { consumed: consumedBy(first, a1) });
    expect(a2.confidence).toBe('none');
    expect(a2.consideredEvents).toBe(1);
    expect(a2.reason).toContain('already explain');
  });

  it('without the consumed list the same stop would explain both (the runner must pass it)', () => {
    expect(attribute(second, [stop], TRANSITION_TABLE).confidence).toBe('high');
  });

  it('a task consumed by one kind may still explain another kind (running → migrating, then migrating → running)', () => {
    const migrate = task({ type: 'qmigrate', start: '02:08:00', end: '02:08:40' });
    const out = vmTransition('running', 'migrating', '02:08:10');
    const back = vmTransition('migrating', 'running', '02:08:45');
    const a1 = attribute(out, [migrate], TRANSITION_TABLE);
    const a2 = attribute(back, [migrate], TRANSITION_TABLE, { consumed: consumedBy(out, a1) });
    expect([a1.confidence, a2.confidence]).toEqual(['high', 'high']);
  });

  it('a consumed HA request is not credited again', () => {
    const hastop = task({ type: 'hastop', start: '02:08:00', end: '02:08:00', user: 'bob@pve' });
    const exec1 = task({ type: 'qmshutdown', start: '02:08:12', end: '02:08:20', user: 'root@pam' });
    const exec2 = task({ type: 'qmstop', start: '02:08:40', end: '02:08:41', user: 'root@pam' });
    const a1 = attribute(first, [hastop, exec1], TRANSITION_TABLE);
    expect(a1.actor).toBe('bob@pve');
    const a2 = attribute(vmTransition('running', 'stopped', '02:08:45'), [hastop, exec1, exec2], TRANSITION_TABLE, {
      consumed: consumedBy(first, a1),
    });
    expect([a2.confidence, a2.actor, a2.requestedBy]).toEqual(['high', 'root@pam', null]);
  });
});

describe('attribute: inputs it cannot use', () => {
  it('an unparseable observedAt is none, with the reason', () => {
    const a = attribute({ ...vmTransition('running', 'stopped'), observedAt: 'yesterday' }, [], TRANSITION_TABLE);
    expect(a.confidence).toBe('none');
    expect(a.reason).toContain('yesterday');
  });

  it('an event with an unparseable time is skipped', () => {
    const broken = { ...task({ type: 'qmstop', start: '02:08:29', end: '02:08:30' }), startedAt: 'nope' };
    expect(attribute(vmTransition('running', 'stopped'), [broken], TRANSITION_TABLE).confidence).toBe('none');
  });

  it('a kind without rows expects nothing: events are at most medium', () => {
    const t: Transition = {
      resourceId: VM_STORAGE,
      kind: 'storage',
      from: 'available',
      to: 'unavailable',
      observedAt: at('02:08:31'),
    };
    const ev = { ...task({ type: 'qmstop', start: '02:08:29', end: '02:08:30' }), resourceId: VM_STORAGE };
    expect(attribute(t, [ev], TRANSITION_TABLE).confidence).toBe('medium');
  });
});

const VM_STORAGE = 'proxmox:lab/storage/local';
