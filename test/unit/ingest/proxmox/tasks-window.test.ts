import { describe, expect, it } from 'vitest';
import {
  advanceTaskCursor,
  clockBehindSeconds,
  clockOffsetOf,
  guestKindsFromListing,
  taskListSince,
  truncatedCoverFrom,
} from '../../../../src/ingest/proxmox/tasks-window.js';

const NOW = 1_778_724_511;

describe('taskListSince', () => {
  it.each([
    ['first pass: the initial look-back (24 h)', null, {}, NOW - 86_400],
    ['next pass: the cursor minus the overlap (300 s)', NOW - 60, {}, NOW - 360],
    ['a configured overlap', NOW - 60, { overlapSeconds: 30 }, NOW - 90],
    ['a configured first look-back', null, { initialLookbackSeconds: 3600 }, NOW - 3600],
    ['never before the epoch', 100, {}, 0],
  ] as const)('%s', (_name, cursor, options, since) => {
    expect(taskListSince(cursor, NOW, options)).toBe(since);
  });
});

describe('advanceTaskCursor', () => {
  it.each([
    ['first pass with tasks: the newest start', null, 10, [50, 70, 60], 70],
    ['first pass, no tasks: where the window began', null, 10, [], 10],
    ['later pass: the newest start', 40, 10, [50, 45], 50],
    ['never backwards (only older tasks re-read)', 80, 10, [50], 80],
    ['an idle node stays put', 80, 75, [], 80],
  ] as const)('%s', (_name, previous, since, starts, next) => {
    expect(advanceTaskCursor(previous, since, starts)).toBe(next);
  });
});

describe('clockBehindSeconds: a new task inside the previous complete read', () => {
  const last = { from: NOW - 3600, to: NOW };
  it.each([
    ['no previous read: no evidence', null, [NOW - 30], 0],
    ['no new task: no evidence', last, [], 0],
    ['a new task after the previous read: the normal case', last, [NOW + 20], 0],
    ['a new task starting at the read itself: no evidence', last, [NOW], 0],
    ['a new task 42 s before the previous read: 42 s behind', last, [NOW - 42], 42],
    ['the oldest such task says how far, at least', last, [NOW - 10, NOW - 90, NOW + 5], 90],
    ['a new task before the previous read began (re-read by the overlap): no evidence', last, [NOW - 4000], 0],
  ] as const)('%s', (_name, read, fresh, behind) => {
    expect(clockBehindSeconds(read, fresh)).toBe(behind);
  });
});

describe('clockOffsetOf: ahead positive, behind negative', () => {
  it.each([
    ['neither', 0, 0, 0],
    ['ahead 60', 60, 0, 60],
    ['behind 42', 0, 42, -42],
    ['both: the larger', 3, 42, -42],
    ['both: the larger (ahead)', 50, 42, 50],
  ] as const)('%s', (_name, ahead, behind, offset) => {
    expect(clockOffsetOf(ahead, behind)).toBe(offset);
  });
});

describe('truncatedCoverFrom: what a list cut short still proves', () => {
  const e = (endtime?: number) => (endtime === undefined ? { status: 'RUNNING' } : { endtime });
  it.each([
    ['nothing read: nothing proven', [], null],
    ['only running entries: nothing proven', [e(), e()], null],
    ['finished entries: from one second after the oldest end', [e(), e(NOW - 10), e(NOW - 100)], NOW - 99],
    ['never before since', [e(NOW - 5000)], NOW - 3600],
    ['the oldest end at the read: nothing left to prove', [e(NOW)], null],
  ] as const)('%s', (_name, entries, from) => {
    expect(truncatedCoverFrom(entries, NOW - 3600, NOW)).toBe(from);
  });
});

describe('guestKindsFromListing', () => {
  const e = (type: string, id: string) => ({ upid: `UPID:pve1:00001234:00A1B2C3:6A05A0C0:${type}:${id}:root@pam:` });
  it('learns VM or container from qm*/vz* tasks; HA, backup and node tasks say nothing', () => {
    const kinds = guestKindsFromListing([
      e('qmstart', '110'),
      e('hastop', '110'),
      e('vzstart', '200'),
      e('vzdump', '300'),
      e('srvreload', 'pveproxy'),
      e('startall', ''),
      { upid: 42 },
      null,
    ]);
    expect([...kinds].sort()).toEqual([
      ['110', 'qemu'],
      ['200', 'lxc'],
    ]);
  });

  it('conflicting evidence for one VMID (an id reused by the other family) resolves to nothing', () => {
    expect(
      guestKindsFromListing([e('qmdestroy', '120'), e('vzcreate', '120'), e('qmstop', '121'), e('qmstart', '121')]),
    ).toEqual(new Map([['121', 'qemu']]));
  });
});
