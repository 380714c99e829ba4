import { describe, expect, it } from 'vitest';
import { TransitionOut } from '../../../src/mcp/records.js';

/** MCP's transition answers carry earlier answers in summary, whatever else the stored one held. */
const transition = {
  id: 't1',
  resourceId: 'proxmox:lab/qemu/101',
  kind: 'vm',
  from: 'running',
  to: 'stopped',
  rawFrom: null,
  rawTo: null,
  observedAt: '2026-05-14T02:08:31.000Z',
  observer: 'poller',
  attribution: {
    confidence: 'high',
    actor: 'alice@pve',
    actorKind: 'human',
    requestedBy: null,
    executor: null,
    executorKind: null,
    deltaSeconds: 2,
    expectedType: true,
    consideredEvents: 1,
    lookbackSeconds: 900,
    reason: 'task qmstop',
    events: [],
  },
  decision: { decision: 'open_incident', reasons: [] },
  narrative: 'Stopped by alice@pve',
};

describe('TransitionOut.attributionHistory', () => {
  it('is empty for a transition never explained again', () => {
    expect(TransitionOut.parse(transition).attributionHistory).toEqual([]);
  });

  it('summarises each earlier answer: who, how sure, why not surer, when and why replaced', () => {
    const out = TransitionOut.parse({
      ...transition,
      attributionHistory: [
        {
          attribution: {
            confidence: 'none',
            actor: null,
            actorKind: null,
            unknownBecause: { reason: 'log_not_read', node: 'pve1' },
            events: [],
          },
          narrative: 'Unknown: the task log of pve1 … could not be read',
          decision: { decision: 'open_incident', reasons: [] },
          replacedAt: '2026-05-14T02:20:00.000Z',
          replacedBecause: 'the log for 02:05–02:15 (pve1) was read later',
        },
      ],
    });
    expect(out.attributionHistory).toEqual([
      {
        attribution: { confidence: 'none', actor: null, actorKind: null, unknownBecause: { reason: 'log_not_read' } },
        narrative: 'Unknown: the task log of pve1 … could not be read',
        replacedAt: '2026-05-14T02:20:00.000Z',
        replacedBecause: 'the log for 02:05–02:15 (pve1) was read later',
      },
    ]);
  });
});
