import { describe, expect, it } from 'vitest';
import {
  attribute,
  type AttributeOptions,
  candidateWindow,
  causeRanks,
  explain,
  MIDWAY_RANK,
  narrate,
  needsHostActivity,
  OUTCOME_RANK,
  TRANSITION_TABLE,
} from '../../../correlator/index.js';
import { EVENT_TYPES } from '../../../src/model/events.js';
import { eventsOfDocument } from '../../../src/ingest/vcenter/events-import.js';
import { transformVcenterEvent } from '../../../src/ingest/vcenter/events-transform.js';
import type { Attribution, EventRecord, Transition } from '../../../src/model/index.js';
import { readFixture } from '../../support/fixtures.js';
import { at, CT, ctTransition, task, VC_HOST, vcEvent, vcTransition, vmTransition } from './builders.js';

/** The events of a fixture sequence under test/fixtures/vcenter/sequences/, through the real transform. */
function sequence(name: string): EventRecord[] {
  return eventsOfDocument(readFixture(`vcenter/sequences/${name}.json`)).map((item) => {
    const r = transformVcenterEvent(item, { server: 'vc1' });
    if (!r.ok) throw new Error(`fixture event does not transform: ${r.reason}`);
    return r.event;
  });
}

const hostFailure = sequence('host-failure-ha-restart');
const [connectionLost, hostFailed, haRestart] = hostFailure as [EventRecord, EventRecord, EventRecord];
const guestShutdown = sequence('guest-shutdown');
const [shutdownRequest, poweredOff] = guestShutdown as [EventRecord, EventRecord];

/** A host-level event on another host than the VM's. */
const otherHostLost = vcEvent('HostConnectionLostEvent', '02:08:20', 9301, '');
otherHostLost.resourceId = 'vcenter:vc1/host/host-22';
otherHostLost.hostId = 'vcenter:vc1/host/host-22';

interface Want {
  confidence: Attribution['confidence'];
  /** Index into the case's events of the cause; absent for none. */
  cause?: number;
  /** Indexes of the requests behind the cause, nearest first (the last is credited). */
  requests?: number[];
  actor?: string | null;
  actorKind?: Attribution['actorKind'];
  requestedBy?: string | null;
  executor?: string | null;
  executorKind?: Attribution['executorKind'];
  systemContext?: Attribution['systemContext'];
  deltaSeconds?: number | null;
  expectedType?: boolean;
  previousObservedAt?: string | null;
  /** Text the reason must contain. */
  reason?: string;
}

interface Case {
  name: string;
  transition: Transition;
  events: EventRecord[];
  options?: Partial<AttributeOptions>;
  want: Want;
}

const PREVIOUS = { previousObservedAt: at('02:03:31') };

/** 1. The high window is about the change: it lies between the previous observation and this one. */
const CHANGE_INTERVAL: Case[] = [
  {
    name: 'a 5-minute poll: a stop 210 s before the observation, after the previous one, is high',
    transition: vmTransition('running', 'stopped', '02:08:31', PREVIOUS),
    events: [task({ type: 'qmstop', start: '02:05:00', end: '02:05:01' })],
    want: {
      confidence: 'high',
      cause: 0,
      actor: 'alice@pve',
      deltaSeconds: 210,
      previousObservedAt: at('02:03:31'),
      reason: 'after the previous observation',
    },
  },
  {
    name: 'the same stop without a previous observation: medium, as before',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:05:00', end: '02:05:01' })],
    want: { confidence: 'medium', cause: 0, expectedType: true, previousObservedAt: null },
  },
  {
    name: 'a stop that ended 20 s before the previous observation (state reports lag): high',
    transition: vmTransition('running', 'stopped', '02:08:31', PREVIOUS),
    events: [task({ type: 'qmstop', start: '02:03:10', end: '02:03:11' })],
    want: { confidence: 'high', cause: 0, deltaSeconds: 320 },
  },
  {
    name: 'a stop 60 s before the previous observation: medium (outside the high window of the interval)',
    transition: vmTransition('running', 'stopped', '02:08:31', PREVIOUS),
    events: [task({ type: 'qmstop', start: '02:02:30', end: '02:02:31' })],
    want: { confidence: 'medium', cause: 0, expectedType: true, reason: 'from the change interval' },
  },
  {
    name: 'the look-back counts from the interval too: a config change 200 s before the previous observation is medium',
    transition: vmTransition('running', 'stopped', '02:08:31', PREVIOUS),
    events: [task({ type: 'qmconfig', start: '02:00:11', end: '02:00:11' })],
    want: { confidence: 'medium', cause: 0, expectedType: false },
  },
  {
    name: 'a previous observation 3 h back is cut to 1 h: a stop 50 min before the observation is high',
    transition: vmTransition('running', 'stopped', '02:08:31', { previousObservedAt: '2026-05-13T23:08:31Z' }),
    events: [task({ type: 'qmstop', start: '01:18:31', end: '01:18:32' })],
    want: { confidence: 'high', cause: 0, reason: 'only the last 3600 s of that interval were searched' },
  },
  {
    name: '… and a stop 2 h before the observation is out of view',
    transition: vmTransition('running', 'stopped', '02:08:31', { previousObservedAt: '2026-05-13T23:08:31Z' }),
    events: [task({ type: 'qmstop', start: '00:08:31', end: '00:08:32' })],
    want: { confidence: 'none', reason: 'only the last 3600 s' },
  },
  {
    name: 'a previous observation after this one is ignored: measured from the observation',
    transition: vmTransition('running', 'stopped', '02:08:31', { previousObservedAt: at('02:09:00') }),
    events: [task({ type: 'qmstop', start: '02:05:00', end: '02:05:01' })],
    want: { confidence: 'medium', cause: 0, previousObservedAt: null },
  },
  {
    name: 'an expected stop that a later start undid is not the cause of a later stop: the start is only related',
    transition: vmTransition('running', 'stopped', '02:08:31', PREVIOUS),
    events: [
      task({ type: 'qmstop', start: '02:04:00', end: '02:04:01' }),
      task({ type: 'qmstart', start: '02:05:00', end: '02:05:02' }),
    ],
    want: { confidence: 'medium', cause: 1, expectedType: false, reason: 'undid it before the observation' },
  },
  {
    name: 'an undo inside the high window does not count (the reported state may lag): the stop is high',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'qmstop', start: '02:08:00', end: '02:08:01' }),
      task({ type: 'qmstart', start: '02:08:10', end: '02:08:12' }),
    ],
    want: { confidence: 'high', cause: 0 },
  },
];

/** 2. A container reboot can be seen half-way; 3b. an event whose outcome is the change beats the nearest. */
const MIDWAY: Case[] = [
  {
    name: 'vzreboot still running explains a container going running → stopped',
    transition: ctTransition('running', 'stopped', '02:08:15'),
    events: [task({ type: 'vzreboot', start: '02:08:00', end: null })],
    want: { confidence: 'high', cause: 0, actor: 'alice@pve', deltaSeconds: 0, expectedType: true },
  },
  {
    name: 'vzreboot finished: its start half explains stopped → running',
    transition: ctTransition('stopped', 'running'),
    events: [task({ type: 'vzreboot', start: '02:08:00', end: '02:08:28' })],
    want: { confidence: 'high', cause: 0, deltaSeconds: 3 },
  },
  {
    name: 'a stop beats a nearer reboot still running: the stop ends stopped, the reboot only passes through it',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'qmreboot', start: '02:08:20', end: null, user: 'bob@pve' }),
      task({ type: 'qmstop', start: '02:08:25', end: '02:08:27' }),
    ],
    want: { confidence: 'high', cause: 1, actor: 'alice@pve', deltaSeconds: 4 },
  },
  {
    name: 'a container stop beats a restart migration spanning the observation',
    transition: ctTransition('running', 'stopped'),
    events: [
      task({ type: 'vzmigrate', start: '02:08:00', end: null, user: 'bob@pve' }),
      task({ type: 'vzstop', start: '02:08:28', end: '02:08:29' }),
    ],
    want: { confidence: 'high', cause: 1, actor: 'alice@pve' },
  },
  {
    name: 'a stop and a backup both near a running → stopped: the stop explains it',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'vzdump', start: '02:05:00', end: null, user: 'root@pam' }),
      task({ type: 'qmstop', start: '02:08:20', end: '02:08:21' }),
    ],
    want: { confidence: 'high', cause: 1, actor: 'alice@pve' },
  },
];

/** 3a. Request chains followed to the end. */
const CHAINS: Case[] = [
  {
    name: 'HA migrate of a VM, target side: qmresume ← qmigrate ← hamigrate: bob is credited',
    transition: vmTransition('migrating', 'running'),
    events: [
      task({ type: 'hamigrate', start: '02:07:40', end: '02:07:40', user: 'bob@pve', node: 'pve1' }),
      task({ type: 'qmigrate', start: '02:07:52', end: '02:08:20', user: 'root@pam', node: 'pve1' }),
      task({ type: 'qmstart', start: '02:07:55', end: '02:07:56', user: 'root@pam', node: 'pve2' }),
      task({ type: 'qmresume', start: '02:08:27', end: '02:08:28', user: 'root@pam', node: 'pve2' }),
    ],
    want: {
      confidence: 'high',
      cause: 3,
      requests: [1, 0],
      actor: 'bob@pve',
      actorKind: 'human',
      requestedBy: 'bob@pve',
      executor: 'root@pam',
      executorKind: 'ha_manager',
      systemContext: null,
    },
  },
  {
    name: 'HA migrate of a VM, source side: qmigrate by root@pam ← hamigrate',
    transition: vmTransition('running', 'migrating', '02:08:00'),
    events: [
      task({ type: 'hamigrate', start: '02:07:40', end: '02:07:40', user: 'bob@pve' }),
      task({ type: 'qmigrate', start: '02:07:52', end: null, user: 'root@pam' }),
    ],
    want: { confidence: 'high', cause: 1, requests: [0], actor: 'bob@pve', executorKind: 'ha_manager' },
  },
  {
    name: 'HA migrate of a container (a relocation), source: the shutdown by root@pam is credited to bob',
    transition: ctTransition('running', 'stopped'),
    events: [
      task({ type: 'hamigrate', start: '02:07:40', end: '02:07:40', user: 'bob@pve', guestKind: 'lxc' }),
      task({ type: 'vzshutdown', start: '02:07:52', end: '02:08:05', user: 'root@pam' }),
    ],
    want: { confidence: 'high', cause: 1, requests: [0], actor: 'bob@pve', executor: 'root@pam' },
  },
  {
    name: 'HA migrate of a container, target: vzstart ← vzmigrate ← hamigrate: bob is credited',
    transition: ctTransition('stopped', 'running'),
    events: [
      task({ type: 'hamigrate', start: '02:07:00', end: '02:07:00', user: 'bob@pve', guestKind: 'lxc' }),
      task({ type: 'vzshutdown', start: '02:07:10', end: '02:07:20', user: 'root@pam' }),
      task({ type: 'vzmigrate', start: '02:07:25', end: '02:08:10', user: 'root@pam' }),
      task({ type: 'vzstart', start: '02:08:15', end: '02:08:17', user: 'root@pam', node: 'pve2' }),
    ],
    want: {
      confidence: 'high',
      cause: 3,
      requests: [2, 0],
      actor: 'bob@pve',
      requestedBy: 'bob@pve',
      executor: 'root@pam',
      executorKind: 'ha_manager',
    },
  },
  {
    name: 'a migration by a person ends the chain there: qmresume ← qmigrate by alice',
    transition: vmTransition('migrating', 'running'),
    events: [
      task({ type: 'hamigrate', start: '02:07:40', end: '02:07:40', user: 'bob@pve' }),
      task({ type: 'qmigrate', start: '02:07:50', end: '02:08:20' }),
      task({ type: 'qmresume', start: '02:08:27', end: '02:08:28', user: 'root@pam', node: 'pve2' }),
    ],
    want: { confidence: 'high', cause: 2, requests: [1], actor: 'alice@pve', executorKind: 'system' },
  },
  {
    name: 'a root@pam migration with no HA request above it: root@pam, a person (the CLI)',
    transition: vmTransition('migrating', 'running'),
    events: [
      task({ type: 'qmigrate', start: '02:07:50', end: '02:08:20', user: 'root@pam' }),
      task({ type: 'qmresume', start: '02:08:27', end: '02:08:28', user: 'root@pam', node: 'pve2' }),
    ],
    want: { confidence: 'high', cause: 1, requests: [0], actor: 'root@pam', actorKind: 'human', systemContext: null },
  },
];

const startall = (node = 'pve1', user = 'root@pam') =>
  task({ type: 'startall', start: '02:08:05', end: null, vmid: '', user, node });

/** 4. Tasks run as root@pam by the system are the system's. */
const SYSTEM: Case[] = [
  {
    name: "node start-up: a qmstart by root@pam inside the node's startall is the system's",
    transition: vmTransition('stopped', 'running'),
    events: [startall(), task({ type: 'qmstart', start: '02:08:10', end: '02:08:12', user: 'root@pam' })],
    want: {
      confidence: 'high',
      cause: 1,
      actor: 'root@pam',
      actorKind: 'system',
      requestedBy: null,
      executor: null,
      systemContext: { label: 'node start-up: startall', eventId: expect.stringContaining(':startall::root@pam:') },
    },
  },
  {
    name: "node shutdown: a qmshutdown by root@pam inside stopall is the system's",
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'stopall', start: '02:08:00', end: null, vmid: '', user: 'root@pam' }),
      task({ type: 'qmshutdown', start: '02:08:02', end: '02:08:20', user: 'root@pam' }),
    ],
    want: {
      confidence: 'high',
      cause: 1,
      actorKind: 'system',
      systemContext: { label: 'node shutdown: stopall', eventId: expect.stringContaining(':stopall::root@pam:') },
    },
  },
  {
    name: "a container's vzstart inside startall is the system's too",
    transition: ctTransition('stopped', 'running'),
    events: [startall(), task({ type: 'vzstart', start: '02:08:10', end: '02:08:12', user: 'root@pam' })],
    want: { confidence: 'high', cause: 1, actorKind: 'system' },
  },
  {
    name: "startall on another node says nothing about this guest's qmstart: root@pam stays a person",
    transition: vmTransition('stopped', 'running'),
    events: [startall('pve2'), task({ type: 'qmstart', start: '02:08:10', end: '02:08:12', user: 'root@pam' })],
    want: { confidence: 'high', cause: 1, actor: 'root@pam', actorKind: 'human', systemContext: null },
  },
  {
    name: 'a qmstart by root@pam after startall ended is not part of it',
    transition: vmTransition('stopped', 'running'),
    events: [
      task({ type: 'startall', start: '02:07:00', end: '02:07:30', vmid: '', user: 'root@pam' }),
      task({ type: 'qmstart', start: '02:08:10', end: '02:08:12', user: 'root@pam' }),
    ],
    want: { confidence: 'high', cause: 1, actorKind: 'human', systemContext: null },
  },
  {
    name: "a bulk start from the web UI by alice: the qmstart is alice's",
    transition: vmTransition('stopped', 'running'),
    events: [startall('pve1', 'alice@pve'), task({ type: 'qmstart', start: '02:08:10', end: '02:08:12' })],
    want: { confidence: 'high', cause: 1, actor: 'alice@pve', actorKind: 'human', systemContext: null },
  },
  {
    name: 'suspendall is never the node acting on its own: the root@pam qmsuspend stays a person',
    transition: vmTransition('running', 'suspended'),
    events: [
      task({ type: 'suspendall', start: '02:08:00', end: null, vmid: '', user: 'root@pam' }),
      task({ type: 'qmsuspend', start: '02:08:05', end: '02:08:20', user: 'root@pam' }),
    ],
    want: { confidence: 'high', cause: 1, actorKind: 'human', systemContext: null },
  },
  {
    name: 'HA-managed guest, qmstart by root@pam with no request: the HA manager on its own',
    transition: vmTransition('stopped', 'running'),
    events: [task({ type: 'qmstart', start: '02:08:14', end: '02:08:16', user: 'root@pam' })],
    options: { haManaged: true },
    want: {
      confidence: 'high',
      cause: 0,
      actor: 'root@pam',
      actorKind: 'system',
      requestedBy: null,
      systemContext: { label: 'HA manager', eventId: null },
    },
  },
  {
    name: 'HA-managed guest, an HA request too long before: still the HA manager, not a person',
    transition: vmTransition('stopped', 'running'),
    events: [
      task({ type: 'hastart', start: '02:05:00', end: '02:05:00', user: 'bob@pve' }),
      task({ type: 'qmstart', start: '02:08:20', end: '02:08:21', user: 'root@pam' }),
    ],
    options: { haManaged: true },
    want: { confidence: 'high', cause: 1, actorKind: 'system', requestedBy: null },
  },
  {
    name: 'HA-managed guest with a request: the requester, the HA manager as executor (no system context)',
    transition: vmTransition('running', 'stopped'),
    events: [
      task({ type: 'hastop', start: '02:08:00', end: '02:08:00', user: 'bob@pve' }),
      task({ type: 'qmshutdown', start: '02:08:12', end: '02:08:28', user: 'root@pam' }),
    ],
    options: { haManaged: true },
    want: {
      confidence: 'high',
      cause: 1,
      requests: [0],
      actor: 'bob@pve',
      actorKind: 'human',
      executorKind: 'ha_manager',
      systemContext: null,
    },
  },
  {
    name: 'HA-managed guest migrated by HA on its own (maintenance): qmresume ← qmigrate by root@pam is the system',
    transition: vmTransition('migrating', 'running'),
    events: [
      task({ type: 'qmigrate', start: '02:07:50', end: '02:08:20', user: 'root@pam' }),
      task({ type: 'qmresume', start: '02:08:27', end: '02:08:28', user: 'root@pam', node: 'pve2' }),
    ],
    options: { haManaged: true },
    want: {
      confidence: 'high',
      cause: 1,
      requests: [0],
      actorKind: 'system',
      requestedBy: null,
      systemContext: { label: 'HA manager', eventId: null },
    },
  },
  {
    name: 'HA-managed guest, a qmreboot by root@pam: reboots are not handed to HA, so a person',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmreboot', start: '02:08:10', end: null, user: 'root@pam' })],
    options: { haManaged: true },
    want: { confidence: 'high', cause: 0, actorKind: 'human', systemContext: null },
  },
  {
    name: 'HA-managed guest, an API token of root@pam: the token',
    transition: vmTransition('stopped', 'running'),
    events: [task({ type: 'qmstart', start: '02:08:14', end: '02:08:16', user: 'root@pam!automation' })],
    options: { haManaged: true },
    want: { confidence: 'high', cause: 0, actorKind: 'api_token', systemContext: null },
  },
  {
    name: 'not HA-managed: a root@pam qmstop is a person (the CLI, the web UI)',
    transition: vmTransition('running', 'stopped'),
    events: [task({ type: 'qmstop', start: '02:08:29', end: '02:08:30', user: 'root@pam' })],
    want: { confidence: 'high', cause: 0, actor: 'root@pam', actorKind: 'human', systemContext: null },
  },
];

const HOSTS = { hostCauses: true };

/** 5. vCenter: host failures, vSphere HA restarts, guest shutdown requests. */
const VCENTER: Case[] = [
  {
    name: 'the host lost its connection 11 s before the VM went unreachable: high, on the host',
    transition: vcTransition('running', 'unreachable'),
    events: [connectionLost],
    options: HOSTS,
    want: {
      confidence: 'high',
      cause: 0,
      actor: null,
      actorKind: 'system',
      deltaSeconds: 10.588,
      reason: 'on the host',
    },
  },
  {
    name: 'a powered-off VM on the lost host goes unreachable too',
    transition: vcTransition('stopped', 'unreachable'),
    events: [connectionLost],
    options: HOSTS,
    want: { confidence: 'high', cause: 0 },
  },
  {
    name: 'vSphere HA declared the host failed (DasHostFailedEvent, failedHost): high',
    transition: vcTransition('running', 'unreachable', '02:08:50'),
    events: [connectionLost, hostFailed],
    options: HOSTS,
    want: { confidence: 'high', cause: 1, actorKind: 'system', deltaSeconds: 7.993 },
  },
  {
    name: 'the host event 150 s before the change: medium',
    transition: vcTransition('running', 'unreachable', '02:10:50'),
    events: [connectionLost],
    options: HOSTS,
    want: { confidence: 'medium', cause: 0, expectedType: true },
  },
  {
    name: "another host's connection loss never explains this VM",
    transition: vcTransition('running', 'unreachable'),
    events: [otherHostLost],
    options: HOSTS,
    want: { confidence: 'none' },
  },
  {
    name: 'without knowing the host it ran on, a host event explains nothing',
    transition: vcTransition('running', 'unreachable', '02:08:31', { hostId: null }),
    events: [connectionLost],
    options: HOSTS,
    want: { confidence: 'none' },
  },
  {
    name: 'a host event is not a cause of other changes (running → stopped)',
    transition: vcTransition('running', 'stopped'),
    events: [connectionLost],
    options: HOSTS,
    want: { confidence: 'none' },
  },
  {
    name: 'vSphere HA restarted the unreachable VM on another host: high, vSphere HA',
    transition: vcTransition('unreachable', 'running', '02:09:41'),
    events: hostFailure,
    options: HOSTS,
    want: {
      confidence: 'high',
      cause: 2,
      actor: null,
      actorKind: 'ha_manager',
      systemContext: { label: 'vSphere HA', eventId: null },
    },
  },
  {
    name: 'a guest shutdown requested by alice, then the power-off with no user: alice is credited',
    transition: vcTransition('running', 'stopped'),
    events: guestShutdown,
    want: {
      confidence: 'high',
      cause: 1,
      requests: [0],
      actor: 'VSPHERE.LOCAL\\alice',
      actorKind: 'human',
      requestedBy: 'VSPHERE.LOCAL\\alice',
      executor: null,
      executorKind: 'system',
    },
  },
  {
    name: 'a guest shutdown request more than 300 s before the power-off is not credited',
    transition: vcTransition('running', 'stopped'),
    events: [vcEvent('VmGuestShutdownEvent', '02:03:00', 9401, 'VSPHERE.LOCAL\\alice'), poweredOff],
    want: { confidence: 'high', cause: 1, actor: null, actorKind: 'system', requestedBy: null },
  },
  {
    name: "a power-off by bob after alice's guest shutdown request is bob's",
    transition: vcTransition('running', 'stopped'),
    events: [shutdownRequest, vcEvent('VmPoweredOffEvent', '02:08:25', 9402, 'VSPHERE.LOCAL\\bob')],
    want: { confidence: 'high', cause: 1, actor: 'VSPHERE.LOCAL\\bob', requestedBy: null },
  },
  {
    name: 'a guest standby request, then the suspend with no user: the requester is credited',
    transition: vcTransition('running', 'suspended'),
    events: [
      vcEvent('VmGuestStandbyEvent', '02:07:30', 9501, 'VSPHERE.LOCAL\\carol'),
      vcEvent('VmSuspendedEvent', '02:08:10', 9502, ''),
    ],
    want: { confidence: 'high', cause: 1, requests: [0], actor: 'VSPHERE.LOCAL\\carol' },
  },
];

describe.each([
  ['1. the high window is about the change', CHANGE_INTERVAL],
  ['2./3. seen half-way, and the outcome beats the nearest', MIDWAY],
  ['3. request chains followed to the end', CHAINS],
  ['4. the system, not root@pam as a person', SYSTEM],
  ['5. vCenter hosts, HA restarts, guest requests', VCENTER],
] as const)('attribute: %s', (_title, cases) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const a = attribute(c.transition, c.events, TRANSITION_TABLE, c.options);
    const { cause, requests, reason, ...rest } = c.want;
    expect(a).toMatchObject(rest);
    const want: Array<[string, string]> = [];
    if (cause !== undefined) want.push(['cause', c.events[cause]!.id]);
    for (const r of requests ?? []) want.push(['request', c.events[r]!.id]);
    expect(a.events.map((e) => [e.role, e.id])).toEqual(want);
    if (reason) expect(a.reason).toContain(reason);
  });
});

describe('candidateWindow: a long interval since the previous observation is fetched, up to an hour', () => {
  it.each([
    ['no previous observation: as before', null, {}, '2026-05-14T01:03:26.000Z'],
    [
      '5 minutes since the previous observation: 5 minutes earlier',
      '2026-05-14T02:03:31Z',
      {},
      '2026-05-14T00:58:26.000Z',
    ],
    [
      'a day since the previous observation: capped at one hour',
      '2026-05-13T02:08:31Z',
      {},
      '2026-05-14T00:03:26.000Z',
    ],
    [
      'a smaller cap',
      '2026-05-13T02:08:31Z',
      { maxChangeIntervalSeconds: 600, maxTaskSeconds: 0 },
      '2026-05-14T01:53:26.000Z',
    ],
    ['a previous observation after this one is ignored', '2026-05-14T02:09:00Z', {}, '2026-05-14T01:03:26.000Z'],
    ['an unparseable previous observation is ignored', 'yesterday', {}, '2026-05-14T01:03:26.000Z'],
  ] as const)('%s', (_name, previous, options, from) => {
    expect(candidateWindow('2026-05-14T02:08:31Z', options, previous)).toEqual({
      from,
      to: '2026-05-14T02:08:36.000Z',
    });
  });
});

describe('needsHostActivity: which changes read the host', () => {
  it.each([
    ['vm', 'running', 'unreachable', false, true],
    ['vm', 'stopped', 'unreachable', false, true],
    ['vm', 'running', 'stopped', false, true],
    ['vm', 'stopped', 'running', false, true],
    ['lxc', 'stopped', 'running', false, true],
    ['vm', 'running', 'paused', false, false],
    ['vm', 'running', 'paused_io_error', false, false],
    ['storage', 'available', 'unavailable', false, false],
    ['vm', 'running', 'paused', true, true],
  ] as const)('%s %s → %s (emitLow %s): %s', (kind, from, to, emitLow, want) => {
    expect(needsHostActivity({ kind, from, to }, { emitLow })).toBe(want);
  });
});

describe('explain: what the graph read is used for', () => {
  const host = { hostId: VC_HOST, node: 'esx1.lan' };
  const base = { resourceName: 'web-01', candidates: [], consumed: [] };

  it("the host's connection loss in hostActivity explains the VM going unreachable", () => {
    const x = explain({
      ...base,
      transition: vcTransition('running', 'unreachable', '02:08:31', { hostId: null }),
      host,
      hostActivity: [connectionLost],
    });
    expect(x.transition.hostId).toBe(VC_HOST);
    expect(x.attribution).toMatchObject({ confidence: 'high', actorKind: 'system' });
    expect(x.narrative).toContain(
      `Made unreachable by the system (no user recorded) — on its host esx1.lan, event HostConnectionLostEvent (${connectionLost.id}), at 02:08:20 UTC.`,
    );
    expect(x.narrative).toContain(
      'Confidence high: expected event type on the host it ran on, 11 s before the observation.',
    );
  });

  it('a startall in hostActivity names the system without emitLow; it is never low without it', () => {
    const s = startall();
    const start = task({ type: 'qmstart', start: '02:08:10', end: '02:08:12', user: 'root@pam' });
    const t = vmTransition('stopped', 'running');
    const x = explain({
      ...base,
      transition: t,
      host: { hostId: 'proxmox:lab/node/pve1', node: 'pve1' },
      candidates: [start],
      hostActivity: [s],
    });
    expect(x.attribution).toMatchObject({
      confidence: 'high',
      actorKind: 'system',
      systemContext: { label: 'node start-up: startall', eventId: s.id },
    });
    const alone = explain({
      ...base,
      transition: t,
      host: { hostId: 'proxmox:lab/node/pve1', node: 'pve1' },
      hostActivity: [s],
    });
    expect(alone.attribution.confidence).toBe('none');
  });

  it("haManaged from the graph makes a requestless root@pam start the HA manager's", () => {
    const start = task({ type: 'qmstart', start: '02:08:14', end: '02:08:16', user: 'root@pam' });
    const t = vmTransition('stopped', 'running');
    const managed = explain({
      ...base,
      transition: t,
      host: null,
      candidates: [start],
      hostActivity: [],
      haManaged: true,
    });
    expect(managed.attribution.actorKind).toBe('system');
    const unknown = explain({ ...base, transition: t, host: null, candidates: [start], hostActivity: [] });
    expect(unknown.attribution.actorKind).toBe('human');
  });

  it('previousObservedAt on the transition reaches the ladder', () => {
    const stop = task({ type: 'qmstop', start: '02:05:00', end: '02:05:01' });
    const x = explain({
      ...base,
      transition: vmTransition('running', 'stopped', '02:08:31', PREVIOUS),
      host: null,
      candidates: [stop],
      hostActivity: [],
    });
    expect(x.attribution).toMatchObject({ confidence: 'high', previousObservedAt: at('02:03:31') });
  });
});

describe('narratives: the system, chains, hosts', () => {
  const story = (
    t: Transition,
    events: EventRecord[],
    options: Partial<AttributeOptions> = {},
    kind = t.kind as string,
  ) => {
    const r = narrate({ id: t.resourceId, kind, name: 'web-01' }, t, attribute(t, events, TRANSITION_TABLE, options));
    if (!r.ok) throw new Error(r.reason);
    return r.text;
  };

  it('node start-up: the system, not root@pam as a person', () => {
    const s = startall();
    const start = task({ type: 'qmstart', start: '02:08:10', end: '02:08:12', user: 'root@pam' });
    expect(story(vmTransition('stopped', 'running'), [s, start])).toContain(
      `Started by the system (node start-up: startall) — task qmstart (${start.id}), 02:08:10–02:08:12 UTC, OK. Confidence high`,
    );
  });

  it('the HA manager on its own', () => {
    const start = task({ type: 'qmstart', start: '02:08:14', end: '02:08:16', user: 'root@pam' });
    expect(story(vmTransition('stopped', 'running'), [start], { haManaged: true })).toContain(
      `Started by the system (HA manager) — task qmstart (${start.id})`,
    );
  });

  it('an HA migration followed to the end names every task in order', () => {
    const ha = task({ type: 'hamigrate', start: '02:07:40', end: '02:07:40', user: 'bob@pve' });
    const mig = task({ type: 'qmigrate', start: '02:07:52', end: '02:08:20', user: 'root@pam' });
    const res = task({ type: 'qmresume', start: '02:08:27', end: '02:08:28', user: 'root@pam', node: 'pve2' });
    expect(story(vmTransition('migrating', 'running'), [ha, mig, res])).toContain(
      `Migrated by bob@pve via an HA request — task hamigrate (${ha.id}), at 02:07:40 UTC, OK; ` +
        `executed by the HA manager as root@pam — task qmigrate (${mig.id}), 02:07:52–02:08:20 UTC, OK, ` +
        `then task qmresume (${res.id}), 02:08:27–02:08:28 UTC, OK. Confidence high`,
    );
  });

  it('vSphere HA restarted it', () => {
    expect(story(vcTransition('unreachable', 'running', '02:09:41'), hostFailure, HOSTS)).toContain(
      `Restarted by the system (vSphere HA) — event com.vmware.vc.ha.VmRestartedByHAEvent (${haRestart.id}), at 02:09:35 UTC, warning. Confidence high`,
    );
  });

  it('a guest shutdown request: the requester, carried out by the guest OS', () => {
    expect(story(vcTransition('running', 'stopped'), guestShutdown)).toContain(
      `Stopped by "VSPHERE.LOCAL\\\\alice" via a guest shutdown request — event VmGuestShutdownEvent (${shutdownRequest.id}), at 02:07:00 UTC; ` +
        `executed by the guest OS — event VmPoweredOffEvent (${poweredOff.id}), at 02:08:25 UTC. Confidence high: expected event type, 5 s before the observation.`,
    );
  });

  it("a host's own connection loss is on the host itself, not 'its host'", () => {
    const t: Transition = {
      resourceId: VC_HOST,
      kind: 'host',
      from: 'online',
      to: 'unreachable',
      observedAt: at('02:08:31'),
    };
    expect(story(t, [connectionLost])).toContain(
      `Made unreachable by the system (no user recorded) — event HostConnectionLostEvent (${connectionLost.id}), at 02:08:20 UTC. Confidence high: expected event type, 11 s before the observation.`,
    );
  });

  it('the previous observation is named, and the narrative renders it from the attribution alone', () => {
    const stop = task({ type: 'qmstop', start: '02:05:00', end: '02:05:01' });
    expect(story(vmTransition('running', 'stopped', '02:08:31', PREVIOUS), [stop])).toBe(
      `vm "web-01" (proxmox:lab/qemu/101) went running → stopped at 2026-05-14 02:08:31 UTC (it was running at the previous observation, 02:03:31 UTC). ` +
        `Stopped by alice@pve — task qmstop (${stop.id}), 02:05:00–02:05:01 UTC, OK. Confidence high: expected task type, 210 s before the observation.`,
    );
  });

  it('a container reboot seen half-way', () => {
    const reboot = task({ type: 'vzreboot', start: '02:08:00', end: null });
    expect(story(ctTransition('running', 'stopped', '02:08:15'), [reboot])).toBe(
      `lxc "web-01" (${CT}) went running → stopped at 2026-05-14 02:08:15 UTC. ` +
        `Stopped by alice@pve — task vzreboot (${reboot.id}), started 02:08:00 UTC, still running. ` +
        `Confidence high: expected task type, still running at the observation.`,
    );
  });
});

describe('the table: outcome and midway causes', () => {
  it.each([
    ['vm', 'running', 'stopped', 'vm_stop', OUTCOME_RANK],
    ['vm', 'running', 'stopped', 'vm_guest_shutdown_request', OUTCOME_RANK],
    ['vm', 'running', 'stopped', 'vm_reboot', MIDWAY_RANK],
    ['lxc', 'running', 'stopped', 'vm_shutdown', OUTCOME_RANK],
    ['lxc', 'running', 'stopped', 'vm_reboot', MIDWAY_RANK],
    ['lxc', 'running', 'stopped', 'vm_migrate', MIDWAY_RANK],
    ['lxc', 'stopped', 'running', 'vm_reboot', OUTCOME_RANK],
    ['vm', 'running', 'unreachable', 'host_connection_lost', OUTCOME_RANK],
    ['vm', 'suspended', 'unreachable', 'host_failure', OUTCOME_RANK],
    ['vm', 'unreachable', 'running', 'vm_restarted_by_ha', OUTCOME_RANK],
    ['host', 'online', 'unreachable', 'host_failure', OUTCOME_RANK],
    ['vm', 'running', 'stopped', 'vm_backup', undefined],
    ['vm', 'running', 'stopped', 'host_connection_lost', undefined],
  ] as const)('%s %s → %s: %s ranks %s', (kind, from, to, type, rank) => {
    expect(causeRanks(TRANSITION_TABLE, kind, from, to).get(type)).toBe(rank);
  });

  it.each(TRANSITION_TABLE.filter((r) => r.midway).map((r) => [`${r.kind} ${r.from} → ${r.to}`, r] as const))(
    'midway types of %s are known types and never requests',
    (_n, row) => {
      for (const t of row.midway ?? []) {
        expect(EVENT_TYPES).toContain(t);
        expect(t.endsWith('_request')).toBe(false);
      }
    },
  );
});
