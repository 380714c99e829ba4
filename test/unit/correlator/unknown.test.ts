import { describe, expect, it } from 'vitest';
import { decideUnknown, explain, narrate, TRANSITION_TABLE, unknownSentence } from '../../../correlator/index.js';
import {
  coveredSeconds,
  mergeIntervals,
  type StreamCoverage,
  type UnknownBecause,
  unknownBecauseOf,
  uncoveredParts,
} from '../../../src/model/index.js';
import { at, task, VM, vmTransition } from './builders.js';

/** pve1's task list, read completely over the given HH:mm:ss spans, with failed reads. */
function stream(spans: Array<[string, string]>, extra: Partial<StreamCoverage> = {}): StreamCoverage {
  const intervals = spans.map(([f, t]) => ({ from: at(f), to: at(t) }));
  return {
    streamId: 'proxmox:lab/node/pve1#tasks',
    source: 'proxmox:lab',
    node: 'pve1',
    intervals,
    gaps: [],
    horizon: intervals[0]?.from ?? null,
    clockOffsetSeconds: null,
    ...extra,
  };
}

const stop = vmTransition('running', 'stopped', '02:40:00', { previousObservedAt: at('02:30:00') });
// The cause window: 300 s before the previous observation (02:25:00) to the observation (02:40:00).
const table = { table: TRANSITION_TABLE };

const cases: Array<{
  name: string;
  streams: StreamCoverage[] | null;
  transition?: typeof stop;
  confidence?: 'none' | 'medium' | 'high' | 'low';
  want: Partial<UnknownBecause> | null;
}> = [
  {
    name: 'the whole window read completely: no_record, naming the window',
    streams: [stream([['02:00:00', '02:40:00']])],
    want: { reason: 'no_record', from: at('02:25:00'), to: at('02:40:00') },
  },
  {
    name: 'two overlapping reads cover it: no_record',
    streams: [
      stream([
        ['02:00:00', '02:31:00'],
        ['02:26:00', '02:41:00'],
      ]),
    ],
    want: { reason: 'no_record' },
  },
  {
    name: 'a read that ended a few seconds before the observation, nothing read after it: log_not_read, not read yet',
    // The pass's own sliver (its task read before the inventory): a stop in it may be there.
    streams: [stream([['02:00:00', '02:39:57']])],
    want: {
      reason: 'log_not_read',
      gapReason: 'not_read',
      from: at('02:39:57'),
      to: at('02:40:00'),
      detail: 'not read yet',
    },
  },
  {
    name: 'a few seconds between two complete reads (clock jitter), none failed: no_record',
    streams: [
      stream([
        ['02:00:00', '02:33:00'],
        ['02:33:03', '02:45:00'],
      ]),
    ],
    want: { reason: 'no_record' },
  },
  {
    name: 'a few seconds at the end of the window, the next complete read starting just after it: no_record',
    streams: [
      stream([
        ['02:00:00', '02:39:57'],
        ['02:40:01', '02:45:00'],
      ]),
    ],
    want: { reason: 'no_record' },
  },
  {
    name: 'a short hole inside the window but the next read starts long after it: log_not_read',
    streams: [
      stream([
        ['02:00:00', '02:39:57'],
        ['02:50:00', '02:55:00'],
      ]),
    ],
    want: { reason: 'log_not_read', gapReason: 'not_read', from: at('02:39:57'), to: at('02:40:00') },
  },
  {
    name: 'a top-up read after the inventory covers the sliver: no_record',
    streams: [
      stream([
        ['02:00:00', '02:39:57'],
        ['02:39:57', '02:40:02'],
      ]),
    ],
    want: { reason: 'no_record' },
  },
  {
    name: 'the same few seconds, but a read of them failed (the next pass came quickly and could not read): log_not_read',
    streams: [
      stream([['02:00:00', '02:39:57']], {
        gaps: [
          {
            from: at('02:34:57'),
            to: at('02:40:01'),
            reason: 'source_unreachable',
            detail: 'HTTP 595: no route to host',
            at: at('02:40:01'),
          },
        ],
      }),
    ],
    want: {
      reason: 'log_not_read',
      gapReason: 'source_unreachable',
      from: at('02:39:57'),
      to: at('02:40:00'),
      node: 'pve1',
    },
  },
  {
    name: 'medium gets it too',
    streams: [stream([['02:00:00', '02:40:00']])],
    confidence: 'medium',
    want: { reason: 'no_record' },
  },
  {
    name: 'high says nothing',
    streams: [stream([['02:00:00', '02:40:00']])],
    confidence: 'high',
    want: null,
  },
  {
    name: 'a failed read over part of the window: log_not_read naming that part and why',
    streams: [
      stream([['02:00:00', '02:30:00']], {
        gaps: [
          {
            from: at('02:30:00'),
            to: at('02:45:00'),
            reason: 'source_unreachable',
            detail: 'connect ECONNREFUSED',
            at: at('02:45:00'),
          },
        ],
      }),
    ],
    want: {
      reason: 'log_not_read',
      from: at('02:30:00'),
      to: at('02:40:00'),
      gapReason: 'source_unreachable',
      node: 'pve1',
      detail: 'connect ECONNREFUSED',
    },
  },
  {
    name: 'a truncated read: log_not_read, page_truncated',
    streams: [
      stream([['02:00:00', '02:20:00']], {
        gaps: [
          { from: at('02:15:00'), to: at('02:41:00'), reason: 'page_truncated', detail: 'cut', at: at('02:41:00') },
        ],
      }),
    ],
    want: { reason: 'log_not_read', from: at('02:25:00'), to: at('02:40:00'), gapReason: 'page_truncated' },
  },
  {
    name: 'a failed task stage: log_not_read, task_stage_failed',
    streams: [
      stream([['02:00:00', '02:35:00']], {
        gaps: [
          {
            from: at('02:30:00'),
            to: at('02:41:00'),
            reason: 'task_stage_failed',
            detail: 'HTTP 500',
            at: at('02:41:00'),
          },
        ],
      }),
    ],
    want: { reason: 'log_not_read', from: at('02:35:00'), gapReason: 'task_stage_failed' },
  },
  {
    name: 'the read stopped well before the observation, nothing failed: log_not_read, not_read',
    streams: [stream([['02:00:00', '02:35:00']])],
    want: { reason: 'log_not_read', from: at('02:35:00'), to: at('02:40:00'), gapReason: 'not_read' },
  },
  {
    name: 'no stream of the source was ever read: log_not_read over the whole window',
    streams: [],
    want: { reason: 'log_not_read', from: at('02:25:00'), to: at('02:40:00'), gapReason: 'not_read' },
  },
  {
    name: 'coverage not known at all (null): log_not_read',
    streams: null,
    want: { reason: 'log_not_read', gapReason: 'not_read' },
  },
  {
    name: 'a stream that was never read completely: log_not_read',
    streams: [stream([])],
    want: { reason: 'log_not_read', gapReason: 'not_read', detail: 'this log has never been read completely' },
  },
  {
    name: 'the window lies before the first read (the backfill horizon): beyond_retention',
    streams: [stream([['02:32:00', '03:00:00']])],
    want: { reason: 'beyond_retention', horizon: at('02:32:00'), from: at('02:25:00'), to: at('02:32:00') },
  },
  {
    name: 'a failed read before the horizon: log_not_read, not beyond_retention',
    streams: [
      stream([['02:32:00', '03:00:00']], {
        gaps: [
          { from: at('02:20:00'), to: at('02:32:00'), reason: 'source_unreachable', detail: 'x', at: at('02:32:00') },
        ],
      }),
    ],
    want: { reason: 'log_not_read', gapReason: 'source_unreachable' },
  },
  {
    name: "the node's clock was seen 42 s ahead, beyond the 5 s tolerance: clock_uncertain",
    streams: [stream([['02:00:00', '02:40:00']], { clockOffsetSeconds: 42 })],
    want: { reason: 'clock_uncertain', node: 'pve1', clockOffsetSeconds: 42, toleranceSeconds: 5 },
  },
  {
    name: "the node's clock seen at least 45 s behind (a task listed late inside an earlier read): clock_uncertain",
    streams: [stream([['02:00:00', '02:40:00']], { clockOffsetSeconds: -45 })],
    want: { reason: 'clock_uncertain', node: 'pve1', clockOffsetSeconds: -45, toleranceSeconds: 5 },
  },
  {
    name: 'a clock behind within the tolerance: no_record',
    streams: [stream([['02:00:00', '02:40:00']], { clockOffsetSeconds: -4 })],
    want: { reason: 'no_record' },
  },
  {
    name: 'a clock within the tolerance: no_record',
    streams: [stream([['02:00:00', '02:40:00']], { clockOffsetSeconds: 3 })],
    want: { reason: 'no_record' },
  },
  {
    name: 'a change no task causes (paused on an I/O error): no_log_for_kind',
    streams: [stream([['02:00:00', '02:40:00']])],
    transition: vmTransition('running', 'paused_io_error', '02:40:00'),
    want: { reason: 'no_log_for_kind' },
  },
  {
    name: 'without a previous observation the window is the look-back before the observation',
    streams: [stream([['02:34:00', '02:40:00']])],
    transition: vmTransition('running', 'stopped', '02:40:00'),
    want: { reason: 'no_record', from: at('02:35:00'), to: at('02:40:00') },
  },
];

describe('decideUnknown: every reason', () => {
  for (const c of cases) {
    it(c.name, () => {
      const u = decideUnknown(
        c.transition ?? stop,
        c.confidence ?? 'none',
        c.streams === null ? null : { streams: c.streams },
        table,
      );
      if (c.want === null) expect(u).toBeNull();
      else expect(u).toMatchObject(c.want);
    });
  }
});

describe('coverage intervals', () => {
  it('merge overlapping and touching ones, drop reversed ones', () => {
    expect(
      mergeIntervals([
        { from: at('02:10:00'), to: at('02:20:00') },
        { from: at('02:00:00'), to: at('02:10:00') },
        { from: at('02:30:00'), to: at('02:29:00') },
        { from: at('02:40:00'), to: at('02:50:00') },
      ]),
    ).toEqual([
      { from: at('02:00:00'), to: at('02:20:00') },
      { from: at('02:40:00'), to: at('02:50:00') },
    ]);
  });

  it('uncovered parts and covered seconds of a window', () => {
    const ivs = [{ from: at('02:10:00'), to: at('02:20:00') }];
    const f = Date.parse(at('02:00:00'));
    const t = Date.parse(at('02:30:00'));
    expect(uncoveredParts(f, t, ivs)).toEqual([
      { fromMs: f, toMs: Date.parse(at('02:10:00')) },
      { fromMs: Date.parse(at('02:20:00')), toMs: t },
    ]);
    expect(coveredSeconds(f, t, ivs)).toBe(600);
  });
});

describe('narratives say why, plainly', () => {
  const clock = { label: 'UTC', short: (iso: string) => iso.slice(11, 19) };
  const sentences: Array<[Partial<UnknownBecause> & Pick<UnknownBecause, 'reason'>, string]> = [
    [
      { reason: 'no_record', from: at('02:10:00'), to: at('02:40:00'), node: 'pve1' },
      'No task or event explains this; the task log of pve1 for 02:10:00–02:40:00 UTC was read completely.',
    ],
    [
      {
        reason: 'log_not_read',
        from: at('02:10:00'),
        to: at('02:25:00'),
        node: 'pve2',
        gapReason: 'source_unreachable',
      },
      'Unknown: the task log of pve2 for 02:10:00–02:25:00 UTC could not be read (pve2 unreachable), so the cause may be there.',
    ],
    [
      {
        reason: 'log_not_read',
        from: at('02:10:00'),
        to: at('02:25:00'),
        node: 'pve2',
        gapReason: 'task_stage_failed',
        detail: 'HTTP 500',
      },
      'Unknown: the task log of pve2 for 02:10:00–02:25:00 UTC could not be read (the read failed: "HTTP 500"), so the cause may be there.',
    ],
    [
      { reason: 'log_not_read', from: at('02:10:00'), to: at('02:25:00'), node: 'pve2', gapReason: 'page_truncated' },
      'Unknown: the task log of pve2 for 02:10:00–02:25:00 UTC could not be read (more entries than a read takes: cut short), so the cause may be there.',
    ],
    [
      { reason: 'beyond_retention', node: 'pve1', horizon: at('02:32:00') },
      'Unknown: the change is older than the task log of pve1 aitia has read (from 02:32:00 UTC), so the cause cannot be looked up.',
    ],
    [
      { reason: 'clock_uncertain', node: 'pve1', clockOffsetSeconds: 42, toleranceSeconds: 5 },
      'Unknown: the clock of pve1 was off by 42 s, beyond the 5 s tolerance, so its records cannot be placed against this change.',
    ],
    [
      { reason: 'clock_uncertain', node: 'pve2', clockOffsetSeconds: -45, toleranceSeconds: 5 },
      'Unknown: the clock of pve2 was at least 45 s behind, beyond the 5 s tolerance, so its records cannot be placed against this change.',
    ],
    [
      { reason: 'no_log_for_kind' },
      'Unknown: the provider records no task or event for this kind of change, so no record can explain it.',
    ],
  ];
  for (const [u, text] of sentences) {
    it(u.reason + (u.gapReason ? ` (${u.gapReason})` : ''), () => {
      const { reason, ...facts } = u;
      const full: UnknownBecause = unknownBecauseOf(reason, facts);
      expect(unknownSentence(full, VM, clock)).toBe(text);
    });
  }

  it('a vCenter says its event log', () => {
    expect(
      unknownSentence(
        unknownBecauseOf('no_record', { from: at('02:10:00'), to: at('02:40:00') }),
        'vcenter:vc1/vm/vm-101',
        clock,
      ),
    ).toBe('No task or event explains this; the event log for 02:10:00–02:40:00 UTC was read completely.');
  });

  it('explain() with coverage: the none narrative leads with why, and still ends "the cause is unknown"', () => {
    const x = explain({
      transition: stop,
      resourceName: 'web-01',
      host: { hostId: 'proxmox:lab/node/pve1', node: 'pve1' },
      candidates: [],
      hostActivity: [],
      consumed: [],
      coverage: { streams: [stream([['02:00:00', '02:40:00']])] },
    });
    expect(x.attribution.unknownBecause).toMatchObject({ reason: 'no_record' });
    expect(x.narrative).toBe(
      'vm "web-01" (proxmox:lab/qemu/101) went running → stopped at 2026-05-14 02:40:00 UTC (it was running at the previous observation, 02:30:00 UTC). ' +
        'No task or event explains this; the task log of pve1 for 02:25:00–02:40:00 UTC was read completely. ' +
        'No task or event on this resource in the 300 s before the change; the cause is unknown.',
    );
  });

  it('explain() with coverage: high carries no unknownBecause; medium leads with it', () => {
    const input = {
      transition: stop,
      resourceName: 'web-01',
      host: null,
      hostActivity: [],
      consumed: [],
      coverage: { streams: [stream([['02:00:00', '02:40:00']])] },
    };
    const high = explain({ ...input, candidates: [task({ type: 'qmstop', start: '02:35:00', end: '02:35:01' })] });
    expect(high.attribution.confidence).toBe('high');
    expect(high.attribution.unknownBecause).toBeNull();
    const medium = explain({ ...input, candidates: [task({ type: 'qmconfig', start: '02:38:00', end: '02:38:01' })] });
    expect(medium.attribution.confidence).toBe('medium');
    expect(medium.narrative).toContain('was read completely. Possibly related:');
  });

  it('without coverage facts nothing is added (callers that do not read coverage)', () => {
    const x = explain({
      transition: stop,
      resourceName: null,
      host: null,
      candidates: [],
      hostActivity: [],
      consumed: [],
    });
    expect(x.attribution.unknownBecause).toBeUndefined();
    const n = narrate({ id: VM, kind: 'vm' }, stop, x.attribution);
    expect(n.ok && n.text).not.toContain('read completely');
  });
});
