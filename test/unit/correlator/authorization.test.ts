import { describe, expect, it } from 'vitest';
import { actionEventTypes } from '../../../correlator/action-events.js';
import { authorizedPhrase, unauthorizedPhrase } from '../../../correlator/authorization-narrative.js';
import {
  assignAuthorizations,
  type AuthorizationContext,
  type AuthorizationVerdict,
  matchAuthorization,
} from '../../../correlator/authorization.js';
import { attribute, TRANSITION_TABLE } from '../../../correlator/index.js';
import type { ActionAuthorization, ActorMappingEntry, Attribution, Transition } from '../../../src/model/index.js';
import type { EventRecord } from '../../../src/model/events.js';
import { at, task, VC_VM, vcEvent, vcTransition, VM, vmTransition } from './builders.js';

const ACTORS: ActorMappingEntry[] = [
  { provider: 'proxmox', user: 'rhodes@pve!ops', principal: 'rhodes', role: 'agent' },
  { provider: 'proxmox', user: 'ci@pve', principal: 'ci', role: 'agent' },
  { provider: 'proxmox', user: 'alice@pve', principal: 'alice', role: 'operator' },
  { provider: 'proxmox', user: 'ghost@pve', principal: 'ghost', role: null },
  { provider: 'vcenter', user: 'VSPHERE.LOCAL\\svc-rhodes', principal: 'rhodes', role: 'agent' },
];

let n = 0;
/** A redeemed grant (or, with source auto, a reported action) by rhodes on the VM at `HH:mm:ss`. */
function grant(hms: string, extra: Partial<ActionAuthorization> = {}): ActionAuthorization {
  const source = extra.source ?? 'grant';
  return {
    id: `auth-${++n}`,
    source,
    action: 'start',
    targetId: VM,
    principal: 'rhodes',
    at: at(hms),
    approvalId: source === 'grant' ? `apr-${n}` : null,
    requestedBy: 'rhodes',
    approvedBy: source === 'grant' ? 'bob' : null,
    approvedAt: source === 'grant' ? at('02:01:00') : null,
    providerTaskId: null,
    ...extra,
  };
}

const start = (user = 'rhodes@pve!ops', hms = '02:08:29') => task({ type: 'qmstart', start: hms, user });
const attributed = (t: Transition, events: EventRecord[], haManaged = false): Attribution =>
  attribute(t, events, TRANSITION_TABLE, { hostCauses: true, haManaged });

const ctx = (authorizations: ActionAuthorization[], extra: Partial<AuthorizationContext> = {}) => ({
  actors: ACTORS,
  authorizations,
  ...extra,
});

type Want =
  | { verdict: 'authorized'; grantId: string; matchedBy: 'task_id' | 'window' }
  | { verdict: 'unauthorized'; reason: RegExp }
  | { verdict: 'neither'; reason: RegExp };

function expectVerdict(v: AuthorizationVerdict, want: Want) {
  expect(v.verdict).toBe(want.verdict);
  if (v.verdict === 'authorized' && want.verdict === 'authorized') {
    expect(v.authorization.grantId).toBe(want.grantId);
    expect(v.authorization.matchedBy).toBe(want.matchedBy);
  }
  if (v.verdict === 'unauthorized' && want.verdict === 'unauthorized')
    expect(v.unauthorized.reason).toMatch(want.reason);
  if (v.verdict === 'neither' && want.verdict === 'neither') expect(v.reason).toMatch(want.reason);
}

describe('matchAuthorization', () => {
  const on = vmTransition('stopped', 'running');
  const t0 = start();
  const used = grant('02:08:00');
  const other = grant('02:08:00', { targetId: 'proxmox:lab/qemu/102' });
  const expired = grant('01:50:00');
  const auto = grant('02:08:40', { source: 'auto' });
  const stopGrant = grant('02:08:00', { action: 'snapshot' });
  const byCi = grant('02:08:00', { principal: 'ci' });
  const closeInTime = grant('02:08:25');
  const named = grant('02:05:00', { providerTaskId: t0.id });
  const namedOther = grant('02:08:20', {
    providerTaskId: 'UPID:pve1:00001234:0123ABCD:6A05B0DD:qmstart:101:rhodes@pve!ops:',
  });
  const afterTask = grant('02:08:40');

  it.each<[string, EventRecord[], ActionAuthorization[], Want]>([
    ['the grant used', [t0], [used], { verdict: 'authorized', grantId: used.id, matchedBy: 'window' }],
    ['a grant for another target', [t0], [other], { verdict: 'unauthorized', reason: /no redeemed grant or reported/ }],
    [
      'a grant whose use window ended before the task',
      [t0],
      [expired],
      { verdict: 'unauthorized', reason: /covers a task started at 2026-05-14T02:08:29Z/ },
    ],
    [
      'a grant redeemed after the task started',
      [t0],
      [afterTask],
      { verdict: 'unauthorized', reason: /covers a task/ },
    ],
    [
      'an auto action reported after the task',
      [t0],
      [auto],
      { verdict: 'authorized', grantId: auto.id, matchedBy: 'window' },
    ],
    [
      'a grant for an action that leaves no qmstart',
      [t0],
      [stopGrant],
      { verdict: 'unauthorized', reason: /leaves vm_start/ },
    ],
    ['a grant another agent redeemed', [t0], [byCi], { verdict: 'unauthorized', reason: /no redeemed grant/ }],
    ['nothing at all', [t0], [], { verdict: 'unauthorized', reason: /rhodes has no redeemed grant/ }],
    [
      'the exact UPID beats a nearer time match',
      [t0],
      [closeInTime, named],
      { verdict: 'authorized', grantId: named.id, matchedBy: 'task_id' },
    ],
    [
      'a grant naming another task is not matched by time',
      [t0],
      [namedOther],
      { verdict: 'unauthorized', reason: /covers a task/ },
    ],
    [
      'two grants for one task: the nearest wins',
      [t0],
      [used, closeInTime],
      { verdict: 'authorized', grantId: closeInTime.id, matchedBy: 'window' },
    ],
    [
      "the agent's token unmapped",
      [start('rhodes@pve!other')],
      [used],
      { verdict: 'neither', reason: /rhodes@pve!other is not in the actors mapping/ },
    ],
    [
      'an operator-mapped actor',
      [start('alice@pve')],
      [],
      { verdict: 'neither', reason: /alice is an operator, not an agent/ },
    ],
    ['a principal no token has', [start('ghost@pve')], [], { verdict: 'neither', reason: /ghost has no token/ }],
    [
      "a user's entry covers its token",
      [start('ci@pve!nightly')],
      [byCi],
      { verdict: 'authorized', grantId: byCi.id, matchedBy: 'window' },
    ],
    ['no cause found', [], [used], { verdict: 'neither', reason: /no task or event/ }],
  ])('%s', (_name, events, authorizations, want) => {
    expectVerdict(
      matchAuthorization({ transition: on, attribution: attributed(on, events) }, ctx(authorizations)),
      want,
    );
  });

  it('the provider acting on its own is nobody’s action, whatever the mapping says of its user', () => {
    const a = { ...attributed(on, [start('rhodes@pve!ops')]), actorKind: 'system' as const };
    expectVerdict(matchAuthorization({ transition: on, attribution: a }, ctx([])), {
      verdict: 'neither',
      reason: /on its own/,
    });
  });

  it('an HA-managed guest: the agent requested, root@pam executed — the request is matched', () => {
    const request = task({ type: 'hastart', start: '02:08:27', user: 'rhodes@pve!ops' });
    const exec = task({ type: 'qmstart', start: '02:08:29', user: 'root@pam' });
    const a = attributed(on, [request, exec], true);
    expect(a.actor).toBe('rhodes@pve!ops');
    const v = matchAuthorization({ transition: on, attribution: a }, ctx([named, used]));
    expectVerdict(v, { verdict: 'authorized', grantId: used.id, matchedBy: 'window' });
    if (v.verdict === 'authorized') expect(v.authorization.eventId).toBe(request.id);
  });

  it('vCenter: DOMAIN\\user in the event maps; a task key is kept but cannot rule a match out', () => {
    const vc = vcTransition('stopped', 'running');
    const powerOn = vcEvent('VmPoweredOnEvent', '02:08:29', 4001, 'VSPHERE.LOCAL\\svc-rhodes');
    const g = grant('02:08:00', { targetId: VC_VM, providerTaskId: 'task-123' });
    const v = matchAuthorization({ transition: vc, attribution: attributed(vc, [powerOn]) }, ctx([g]));
    expectVerdict(v, { verdict: 'authorized', grantId: g.id, matchedBy: 'window' });
    const none = matchAuthorization({ transition: vc, attribution: attributed(vc, [powerOn]) }, ctx([]));
    expect(none.verdict).toBe('unauthorized');
  });

  it('a grant already explaining another task explains no other; the same task may explain two transitions', () => {
    const a = attributed(on, [t0]);
    const elsewhere = matchAuthorization(
      { transition: on, attribution: a },
      ctx([used], { used: new Map([[used.id, [{ id: 'UPID:other', type: 'vm_start' }]]]) }),
    );
    expectVerdict(elsewhere, { verdict: 'unauthorized', reason: /already explains another task/ });
    const same = matchAuthorization(
      { transition: on, attribution: a },
      ctx([used], { used: new Map([[used.id, [{ id: t0.id, type: 'vm_start' }]]]) }),
    );
    expect(same.verdict).toBe('authorized');
  });
});

describe('assignAuthorizations', () => {
  it('two start grants, three starts: each grant explains one, in the order the tasks started; the third is unauthorized', () => {
    const g1 = grant('02:08:20');
    const g2 = grant('02:06:00');
    const t1 = vmTransition('stopped', 'running', '02:08:31');
    const t2 = vmTransition('stopped', 'running', '02:10:02');
    const t3 = vmTransition('stopped', 'running', '02:12:02');
    const inputs = [
      { transition: t3, attribution: attributed(t3, [start('rhodes@pve!ops', '02:12:00')]) },
      { transition: t1, attribution: attributed(t1, [start()]) },
      { transition: t2, attribution: attributed(t2, [start('rhodes@pve!ops', '02:10:00')]) },
    ];
    const [third, first, second] = assignAuthorizations(inputs, ctx([g1, g2]));
    expectVerdict(first!, { verdict: 'authorized', grantId: g1.id, matchedBy: 'window' });
    expectVerdict(second!, { verdict: 'authorized', grantId: g2.id, matchedBy: 'window' });
    expectVerdict(third!, { verdict: 'unauthorized', reason: /already explains another task/ });
  });

  it('a restart carried out as a stop then a start: one grant explains both, and no further start', () => {
    const g = grant('02:08:00', { action: 'restart' });
    const stopT = vmTransition('running', 'stopped', '02:08:31');
    const startT = vmTransition('stopped', 'running', '02:09:02');
    const againT = vmTransition('stopped', 'running', '02:11:02');
    const stop = task({ type: 'qmstop', start: '02:08:29', user: 'rhodes@pve!ops' });
    const inputs = [
      { transition: stopT, attribution: attributed(stopT, [stop]) },
      { transition: startT, attribution: attributed(startT, [start('rhodes@pve!ops', '02:09:00')]) },
      { transition: againT, attribution: attributed(againT, [start('rhodes@pve!ops', '02:11:00')]) },
    ];
    const [down, up, again] = assignAuthorizations(inputs, ctx([g]));
    expectVerdict(down!, { verdict: 'authorized', grantId: g.id, matchedBy: 'window' });
    expectVerdict(up!, { verdict: 'authorized', grantId: g.id, matchedBy: 'window' });
    expectVerdict(again!, { verdict: 'unauthorized', reason: /already explains another task/ });
    // The same across passes, from the stored use; a start grant is one task whatever came before.
    const later = matchAuthorization(
      inputs[1]!,
      ctx([g], { used: new Map([[g.id, [{ id: stop.id, type: 'vm_stop' }]]]) }),
    );
    expectVerdict(later, { verdict: 'authorized', grantId: g.id, matchedBy: 'window' });
    const named = { ...g, providerTaskId: stop.id };
    const byName = matchAuthorization(
      inputs[1]!,
      ctx([named], { used: new Map([[g.id, [{ id: stop.id, type: 'vm_stop' }]]]) }),
    );
    expectVerdict(byName, { verdict: 'authorized', grantId: g.id, matchedBy: 'window' });
    const notTwoStep = matchAuthorization(
      inputs[1]!,
      ctx([{ ...g, action: 'start' }], { used: new Map([[g.id, [{ id: stop.id, type: 'vm_stop' }]]]) }),
    );
    expectVerdict(notTwoStep, { verdict: 'unauthorized', reason: /already explains another task/ });
  });
});

describe('the action table', () => {
  it.each([
    ['start', 'vm_start'],
    ['Restart', 'vm_reboot'],
    ['cache_clear', undefined],
  ])('%s leaves %s', (action, type) => {
    expect(actionEventTypes(action)[0]).toBe(type);
  });
});

describe('the narratives', () => {
  const base = {
    grantId: 'auth-7',
    approvalId: 'apr-3',
    action: 'start',
    principal: 'rhodes',
    requestedBy: 'rhodes',
    approvedBy: 'bob',
    approvedAt: '2026-05-14T02:01:00Z',
    at: '2026-05-14T02:08:00Z',
    eventId: 'UPID:pve1:00002000:0123ABCD:6A05B0DD:qmstart:101:rhodes@pve!ops:',
  };
  it.each([
    [
      { ...base, source: 'grant' as const, matchedBy: 'window' as const },
      'proxmox' as const,
      'rhodes@pve!ops',
      'started by agent rhodes (Proxmox token rhodes@pve!ops) under grant auth-7 for start (approval apr-3, requested by rhodes) approved by bob at 2026-05-14T02:01:00Z, redeemed at 2026-05-14T02:08:00Z',
    ],
    [
      { ...base, source: 'grant' as const, matchedBy: 'task_id' as const },
      'proxmox' as const,
      'rhodes@pve!ops',
      'started by agent rhodes (Proxmox token rhodes@pve!ops) under grant auth-7 for start (approval apr-3, requested by rhodes) approved by bob at 2026-05-14T02:01:00Z, redeemed at 2026-05-14T02:08:00Z; the agent named this task ("UPID:pve1:00002000:0123ABCD:6A05B0DD:qmstart:101:rhodes@pve!ops:")',
    ],
    [
      {
        ...base,
        source: 'auto' as const,
        approvalId: null,
        approvedBy: null,
        approvedAt: null,
        matchedBy: 'window' as const,
      },
      'vcenter' as const,
      'VSPHERE.LOCAL\\svc-rhodes',
      'started by agent rhodes (vCenter user "VSPHERE.LOCAL\\\\svc-rhodes") as an automatic start the gate allowed (auth-7, reported at 2026-05-14T02:08:00Z)',
    ],
  ])('authorized %#', (a, provider, actor, text) => {
    expect(authorizedPhrase('started', a, { provider, actor })).toBe(text);
  });

  it('unauthorized, with the actor quoted as data when it is more than a plain word', () => {
    expect(
      unauthorizedPhrase(
        'stopped',
        {
          principal: 'rhodes',
          actor: 'rhodes@pve!ops',
          eventId: 'x',
          reason: 'rhodes has no redeemed grant or reported action on this resource',
        },
        'proxmox',
      ),
    ).toBe(
      'Unauthorized: stopped by agent rhodes (Proxmox token rhodes@pve!ops) with no grant redeemed or automatic action reported that explains it — rhodes has no redeemed grant or reported action on this resource.',
    );
    expect(
      unauthorizedPhrase(
        'stopped',
        { principal: 'rhodes', actor: 'svc rhodes "approve all"', eventId: 'x', reason: 'r' },
        'vcenter',
      ),
    ).toContain('(vCenter user "svc rhodes \\"approve all\\"")');
  });
});
