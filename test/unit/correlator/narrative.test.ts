import { describe, expect, it } from 'vitest';
import { attribute, narrate, TRANSITION_TABLE } from '../../../correlator/index.js';
import type { Transition } from '../../../src/model/index.js';
import type { EventRecord } from '../../../src/model/events.js';
import { task, VM, vmTransition } from './builders.js';

const web01 = { id: VM, kind: 'vm', name: 'web-01' };

function story(t: Transition, events: EventRecord[], zone?: string, options = {}) {
  const a = attribute(t, events, TRANSITION_TABLE, options);
  return narrate(web01, t, a, zone === undefined ? {} : { zone });
}

const stop = task({ type: 'qmstop', start: '02:08:29', end: '02:08:30' });

describe('narrate: high', () => {
  it("UTC by default, in the issue's words", () => {
    expect(story(vmTransition('running', 'stopped'), [stop])).toEqual({
      ok: true,
      zone: 'UTC',
      text:
        `vm "web-01" (proxmox:lab/qemu/101) went running → stopped at 2026-05-14 02:08:31 UTC. ` +
        `Stopped by alice@pve — task qmstop (${stop.id}), 02:08:29–02:08:30 UTC, OK. ` +
        `Confidence high: expected task type, 1 s before the observation.`,
    });
  });

  it('another zone, named with its offset', () => {
    const r = story(vmTransition('running', 'stopped'), [stop], 'Europe/Berlin');
    expect(r).toEqual({
      ok: true,
      zone: 'Europe/Berlin (UTC+02:00)',
      text:
        `vm "web-01" (proxmox:lab/qemu/101) went running → stopped at 2026-05-14 04:08:31 Europe/Berlin (UTC+02:00). ` +
        `Stopped by alice@pve — task qmstop (${stop.id}), 04:08:29–04:08:30 Europe/Berlin (UTC+02:00), OK. ` +
        `Confidence high: expected task type, 1 s before the observation.`,
    });
  });

  it("a zone across midnight shows the event's date when it differs", () => {
    const t = vmTransition('running', 'stopped', '00:00:05');
    const late = task({ type: 'qmstop', start: '00:00:01', end: '00:00:02' });
    const r = story(t, [late], 'America/New_York');
    expect(r.ok && r.text).toContain('at 2026-05-13 20:00:05 America/New_York (UTC-04:00)');
    expect(r.ok && r.text).toContain('20:00:01–20:00:02 America/New_York (UTC-04:00)');
  });

  it('a still-running task says so', () => {
    const running = task({ type: 'qmshutdown', start: '02:08:01', end: null });
    const r = story(vmTransition('running', 'stopped'), [running]);
    expect(r.ok && r.text).toContain(
      'started 02:08:01 UTC, still running. Confidence high: expected task type, still running at the observation.',
    );
  });

  it('HA: the requester is credited and the HA manager named as executor', () => {
    const hastop = task({ type: 'hastop', start: '02:08:00', end: '02:08:00', user: 'bob@pve' });
    const exec = task({ type: 'qmshutdown', start: '02:08:12', end: '02:08:28', user: 'root@pam' });
    const r = story(vmTransition('running', 'stopped'), [hastop, exec]);
    expect(r.ok && r.text).toContain(
      `Stopped by bob@pve via an HA request — task hastop (${hastop.id}), at 02:08:00 UTC, OK; ` +
        `executed by the HA manager as root@pam — task qmshutdown (${exec.id}), 02:08:12–02:08:28 UTC, OK.`,
    );
  });
});

describe('narrate: medium and low never claim a cause', () => {
  it('medium names the related task and says the cause is not established', () => {
    const failed = task({
      type: 'qmstart',
      start: '02:08:20',
      end: '02:08:21',
      user: 'bob@pve',
      status: 'start failed: QEMU exited with code 1',
    });
    const r = story(vmTransition('running', 'stopped'), [failed]);
    expect(r.ok && r.text).toBe(
      `vm "web-01" (proxmox:lab/qemu/101) went running → stopped at 2026-05-14 02:08:31 UTC. ` +
        `Possibly related: task qmstart (${failed.id}) by bob@pve, 02:08:20–02:08:21 UTC, failed: "start failed: QEMU exited with code 1". ` +
        `Confidence medium: unexpected task type for running → stopped, 10 s before the observation; the cause is not established.`,
    );
    expect(r.ok && r.text).not.toMatch(/Stopped by/);
  });

  it('medium for a failed task of the expected type', () => {
    const timeout = task({
      type: 'qmshutdown',
      start: '02:07:20',
      end: '02:08:20',
      status: 'VM quit/powerdown failed - got timeout',
    });
    const r = story(vmTransition('running', 'stopped'), [timeout]);
    expect(r.ok && r.text).toContain(
      'Confidence medium: task of the expected type that did not succeed, 11 s before the observation',
    );
  });

  it('low names provider-level activity and its node', () => {
    const startall = task({ type: 'startall', start: '02:08:05', end: null, vmid: '', user: 'root@pam' });
    const t = vmTransition('stopped', 'running', '02:08:31', { hostId: 'proxmox:lab/node/pve1' });
    const r = story(t, [startall], undefined, { emitLow: true });
    expect(r.ok && r.text).toContain(
      `Provider-level activity nearby: task startall (${startall.id}) by root@pam on pve1, started 02:08:05 UTC, still running. Confidence low`,
    );
    expect(r.ok && r.text).toContain('the cause is not established');
  });
});

describe('narrate: none says unknown and invents nothing', () => {
  it('a node crash', () => {
    const r = story(vmTransition('running', 'stopped'), []);
    expect(r).toEqual({
      ok: true,
      zone: 'UTC',
      text: 'vm "web-01" (proxmox:lab/qemu/101) went running → stopped at 2026-05-14 02:08:31 UTC. No task or event on this resource in the 300 s before the change; the cause is unknown.',
    });
    expect(r.ok && r.text).not.toMatch(/crash|OOM|memory|by /i);
  });

  it('events already consumed are said to explain earlier transitions', () => {
    const t1 = vmTransition('running', 'stopped');
    const a1 = attribute(t1, [stop], TRANSITION_TABLE);
    const t2 = vmTransition('running', 'stopped', '02:08:50');
    const a2 = attribute(t2, [stop], TRANSITION_TABLE, {
      consumed: a1.events.map((e) => ({ eventId: e.id, from: 'running', to: 'stopped' })),
    });
    const r = narrate(web01, t2, a2);
    expect(r.ok && r.text).toContain('already explain earlier transitions; the cause is unknown.');
  });

  it('a resource without a name is named by its id', () => {
    const r = narrate(
      { id: VM, kind: 'vm' },
      vmTransition('running', 'stopped'),
      attribute(vmTransition('running', 'stopped'), [], TRANSITION_TABLE),
    );
    expect(r.ok && r.text.startsWith('vm proxmox:lab/qemu/101 went running → stopped')).toBe(true);
  });
});

describe("narrate: the clock's times, whatever zone the texts carry", () => {
  const timed = (startedAt: string, endedAt: string | null): EventRecord => ({ ...stop, startedAt, endedAt });
  it.each<[string, string, string, string | null, string, string]>([
    [
      'the last millisecond of the day: seconds, never rounded up',
      '2026-05-14T23:59:59.999Z',
      '2026-05-14T23:59:58Z',
      '2026-05-14T23:59:59.5Z',
      'UTC',
      'at 2026-05-14 23:59:59 UTC. Stopped by alice@pve — task qmstop (ID), 23:59:58–23:59:59 UTC, OK.',
    ],
    [
      'a start the day before the observation shows its date',
      '2026-05-15T00:00:00.001Z',
      '2026-05-14T23:59:59.999Z',
      '2026-05-15T00:00:00Z',
      'UTC',
      'at 2026-05-15 00:00:00 UTC. Stopped by alice@pve — task qmstop (ID), 2026-05-14 23:59:59–00:00:00 UTC, OK.',
    ],
    [
      'offsets in the texts are written in UTC',
      '2026-05-14T04:08:31+02:00',
      '2026-05-14T04:08:29+02:00',
      '2026-05-13T21:08:30-05:00',
      'UTC',
      'at 2026-05-14 02:08:31 UTC. Stopped by alice@pve — task qmstop (ID), 02:08:29–02:08:30 UTC, OK.',
    ],
    [
      'fraction digits past the millisecond are cut',
      '2026-05-14T02:08:31.9999Z',
      '2026-05-14T02:08:29.9999Z',
      '2026-05-14T02:08:30.0001Z',
      'utc',
      'at 2026-05-14 02:08:31 UTC. Stopped by alice@pve — task qmstop (ID), 02:08:29–02:08:30 UTC, OK.',
    ],
    [
      'a fixed-offset zone across midnight',
      '2026-05-14T22:00:05Z',
      '2026-05-14T21:59:59Z',
      '2026-05-14T22:00:01Z',
      'UTC+2',
      'at 2026-05-15 00:00:05 UTC+2 (UTC+02:00). Stopped by alice@pve — task qmstop (ID), 2026-05-14 23:59:59–00:00:01 UTC+2 (UTC+02:00), OK.',
    ],
    [
      'Etc/UTC is a zone of its own name',
      '2026-05-14T02:08:31Z',
      '2026-05-14T02:08:29Z',
      '2026-05-14T02:08:30Z',
      'Etc/UTC',
      'at 2026-05-14 02:08:31 Etc/UTC (UTC+00:00). Stopped by alice@pve — task qmstop (ID), 02:08:29–02:08:30 Etc/UTC (UTC+00:00), OK.',
    ],
    [
      'a year past 9999 is written by luxon',
      '+010000-01-01T00:00:05Z',
      '9999-12-31T23:59:59Z',
      '+010000-01-01T00:00:01Z',
      'UTC',
      'at 10000-01-01 00:00:05 UTC. Stopped by alice@pve — task qmstop (ID), 9999-12-31 23:59:59–00:00:01 UTC, OK.',
    ],
    [
      'an end luxon cannot read is written as luxon writes it',
      '2026-05-14T02:08:31Z',
      '2026-05-14T02:08:29Z',
      'soon',
      'UTC',
      'at 2026-05-14 02:08:31 UTC. Stopped by alice@pve — task qmstop (ID), 02:08:29–Invalid DateTime UTC, OK.',
    ],
  ])('%s', (_name, observedAt, startedAt, endedAt, zone, expected) => {
    const t: Transition = { ...vmTransition('running', 'stopped'), observedAt };
    const r = story(t, [timed(startedAt, endedAt)], zone);
    expect(r.ok && r.text).toContain(expected.replace('ID', stop.id));
  });
});

describe('narrate: errors', () => {
  it('an invalid zone is an error naming the zone', () => {
    const r = story(vmTransition('running', 'stopped'), [stop], 'Mars/Olympus_Mons');
    expect(r).toEqual({ ok: false, reason: 'unknown time zone "Mars/Olympus_Mons"' });
  });

  it('an invalid observation time is an error', () => {
    const t = { ...vmTransition('running', 'stopped'), observedAt: 'later' };
    const r = narrate(web01, t, attribute(t, [], TRANSITION_TABLE));
    expect(r.ok).toBe(false);
  });
});
