import { describe, expect, it } from 'vitest';
import { eventFromProperties, eventProperties, validateEventRecords } from '../../../src/graph/events.js';
import { transitionId } from '../../../src/model/index.js';
import { transformProxmoxTask } from '../../../src/ingest/proxmox/tasks-transform.js';
import type { EventRecord } from '../../../src/model/events.js';

const r = transformProxmoxTask(
  { upid: 'UPID:pve1:0023A1B2:07CE94E2:6A05A0C0:qmstop:101:alice@pve:', status: 'OK', endtime: 0x6a05a0c2 },
  { cluster: 'lab', guestKindOf: () => 'qemu' },
);
if (!r.ok) throw new Error(r.reason);
const good: EventRecord = r.event;

describe('validateEventRecords: what the graph relies on, checked before any write', () => {
  it('accepts what the transforms produce', () => {
    expect(() => validateEventRecords([good])).not.toThrow();
  });

  it.each([
    ['id', { id: ' ' }, /events\[1\]\.id: must be a non-empty string/],
    ['provider', { provider: 'xen' }, /events\[1\]\.provider: must be proxmox or vcenter/],
    ['type', { type: 'vm_explode' }, /events\[1\]\.type: unknown event type "vm_explode"/],
    ['statusClass', { statusClass: 'fine' }, /events\[1\]\.statusClass: unknown status class "fine"/],
    ['actorKind', { actorKind: 'robot' }, /events\[1\]\.actorKind: unknown actor kind "robot"/],
    ['startedAt', { startedAt: '14 May' }, /events\[1\]\.startedAt: must be an ISO-8601 time/],
    ['endedAt', { endedAt: 'later' }, /events\[1\]\.endedAt: must be null or an ISO-8601 time/],
  ])('names a bad %s with its index', (_f, patch, message) => {
    expect(() => validateEventRecords([good, { ...good, ...patch } as EventRecord])).toThrow(message);
  });
});

describe('the Event node shape', () => {
  it('round-trips an EventRecord (times and resource travel beside the property map)', () => {
    const props = eventProperties(good);
    expect(props).not.toHaveProperty('startedAt');
    expect(props).not.toHaveProperty('resourceId');
    const stored = eventFromProperties({
      ...props,
      id: good.id,
      resourceId: good.resourceId,
      resourceKind: good.resourceKind,
      startedAt: good.startedAt,
      endedAt: good.endedAt,
    });
    expect(stored).toEqual({ ...good, ingestedAt: null, updatedAt: null });
  });
});

describe('transitionId: the natural key of an observation', () => {
  it('is resource, change and observation time in epoch ms, whatever the offset written', () => {
    const a = transitionId({
      resourceId: 'proxmox:lab/qemu/101',
      from: 'running',
      to: 'stopped',
      observedAt: '2026-05-14T02:08:31Z',
    });
    const b = transitionId({
      resourceId: 'proxmox:lab/qemu/101',
      from: 'running',
      to: 'stopped',
      observedAt: '2026-05-14T04:08:31+02:00',
    });
    expect(a).toBe('proxmox:lab/qemu/101#running>stopped@1778724511000');
    expect(b).toBe(a);
  });
});
