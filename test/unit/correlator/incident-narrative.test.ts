import { describe, expect, it } from 'vitest';
import { attribute, narrateIncident, TRANSITION_TABLE, type IncidentStory } from '../../../correlator/index.js';
import type { ConditionRecord, EventRecord, TransitionRecord } from '../../../src/model/index.js';
import { at, OBSERVED, task, VM, vmTransition } from './builders.js';

const web01 = { id: VM, kind: 'vm', name: 'web01' };
const pg = { id: `manual:service/pg@${VM}`, kind: 'service', name: 'pg' };
const host = { id: 'proxmox:lab/node/pve1', kind: 'host', name: 'pve1' };

function stored(from: string, to: string, events: EventRecord[], options = {}): TransitionRecord {
  const t = vmTransition(from, to);
  return {
    id: `${VM}#${from}>${to}`,
    resourceId: VM,
    kind: 'vm',
    from,
    to,
    rawFrom: from,
    rawTo: to,
    observedAt: t.observedAt,
    observer: 'test',
    hostId: null,
    attribution: attribute(t, events, TRANSITION_TABLE, options),
    decision: { decision: 'open_incident', reasons: [] },
    narrative: '',
    createdAt: t.observedAt,
    sequence: 1,
  };
}

const condition = (over: Partial<ConditionRecord> = {}): ConditionRecord => ({
  id: `${pg.id}#check_failing#1`,
  type: 'check_failing',
  status: 'open',
  resourceId: pg.id,
  openedAt: at('02:09:40'),
  resolvedAt: null,
  evidence: null,
  attribution: null,
  causeTransitionId: null,
  suppressed: false,
  wouldSuppress: false,
  suppressionReasons: [],
  policyDigest: null,
  ...over,
});

function story(over: Partial<IncidentStory>): IncidentStory {
  return {
    subject: pg,
    since: at('00:00:00'),
    until: at('03:00:00'),
    depth: 2,
    dependencies: [web01, host],
    dependents: [],
    transitions: [],
    conditions: [],
    ...over,
  };
}

const stop = task({ type: 'qmstop', start: '02:08:29', end: '02:08:30' });
const humanStop = stored('running', 'stopped', [stop]);
const unexplained = stored('running', 'stopped', []);
const lateStop = stored('running', 'stopped', [task({ type: 'qmstop', start: '02:05:00', end: '02:05:01' })]);

describe('narrateIncident', () => {
  it.each([
    [
      'a person stopped the VM it runs on: named, expected',
      story({
        transitions: [{ resource: web01, transition: humanStop, expected: true }],
        conditions: [
          {
            resource: pg,
            condition: condition({ causeTransitionId: humanStop.id, suppressed: true }),
            cause: { transition: humanStop, resource: web01, expected: true },
          },
        ],
      }),
      [
        'Incident context for service "pg" (manual:service/pg@proxmox:lab/qemu/101), 2026-05-14 00:00:00 to 2026-05-14 03:00:00 UTC, 2 hop(s) each way.',
        'It depends on vm "web01", host "pve1"; nothing recorded depends on it.',
        `vm "web01" (${VM}) went running → stopped at 2026-05-14 02:08:31 UTC. Stopped by alice@pve — task qmstop (${stop.id})`,
        'service "pg" (manual:service/pg@proxmox:lab/qemu/101) has a failing check since 2026-05-14 02:09:40 UTC (suppressed: nobody paged) — expected (it runs on or depends on vm "web01")',
        `In short: vm "web01" running → stopped at 02:08:31 UTC: by alice@pve (task qmstop ${stop.id}, high confidence) — expected: an intentional change.`,
      ],
    ],
    [
      'a stop with no task: cause unknown, and the condition says so too',
      story({
        transitions: [{ resource: web01, transition: unexplained, expected: false }],
        conditions: [{ resource: pg, condition: condition(), cause: null }],
        causeWindowSeconds: 900,
      }),
      [
        'No task or event on this resource in the',
        'has a failing check since 2026-05-14 02:09:40 UTC — cause unknown: no observed change of it or of what it runs on or depends on in the 900 s before it.',
        'In short: vm "web01" running → stopped at 02:08:31 UTC: cause unknown.',
      ],
    ],
    [
      'a task outside the high window: medium, never claimed as the cause',
      story({ transitions: [{ resource: web01, transition: lateStop, expected: false }] }),
      [
        'Confidence medium',
        'In short: vm "web01" running → stopped at 02:08:31 UTC: cause not established (possibly task qmstop',
      ],
    ],
    [
      'nothing changed but a condition is open: cause unknown',
      story({ conditions: [{ resource: pg, condition: condition(), cause: null }] }),
      [
        'In short: 1 open condition(s) and no state change of it or of what it depends on in the window — cause unknown.',
      ],
    ],
    [
      'nothing at all',
      story({ dependencies: [] }),
      [
        'It depends on nothing recorded; nothing recorded depends on it.',
        'In short: no state change and no open condition in the window.',
      ],
    ],
  ])('%s', (_title, s, parts) => {
    const told = narrateIncident(s);
    expect(told.ok).toBe(true);
    if (!told.ok) return;
    for (const p of parts) expect(told.text).toContain(p);
    expect(told.text).not.toMatch(/OOM|memory/);
  });

  it('lists at most 8 names and counts the rest', () => {
    const many = Array.from({ length: 11 }, (_, i) => ({ id: `manual:service/s${i}`, kind: 'service', name: `s${i}` }));
    const told = narrateIncident(story({ subject: web01, dependencies: [], dependents: many }));
    expect(told.ok && told.text).toContain(
      'service "s0", service "s1", service "s2", service "s3", service "s4", service "s5", service "s6", service "s7" and 3 more depend(s) on it',
    );
  });

  it('writes in the zone asked for and names it; an unknown zone is refused', () => {
    const told = narrateIncident(story({ transitions: [{ resource: web01, transition: humanStop, expected: true }] }), {
      zone: 'Europe/Berlin',
    });
    expect(told).toMatchObject({ ok: true, zone: 'Europe/Berlin (UTC+02:00)' });
    expect(told.ok && told.text).toContain('at 04:08:31 Europe/Berlin (UTC+02:00): by alice@pve');
    expect(narrateIncident(story({}), { zone: 'Mars/Olympus' })).toEqual({
      ok: false,
      reason: 'unknown time zone "Mars/Olympus"',
    });
  });

  it('an observation at the window edge is inside it', () => {
    const told = narrateIncident(
      story({ until: OBSERVED, transitions: [{ resource: web01, transition: humanStop, expected: true }] }),
    );
    expect(told.ok && told.text).toContain('to 2026-05-14 02:08:31 UTC');
  });
});
