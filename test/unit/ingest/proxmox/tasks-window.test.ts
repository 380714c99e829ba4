import { describe, expect, it } from 'vitest';
import {
  advanceTaskCursor,
  guestKindsFromListing,
  taskListSince,
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
