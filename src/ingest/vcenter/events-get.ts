import { VCENTER_EVENT_TYPES } from './event-types.js';
import { textXml, type Ref, type VsphereClient } from './client.js';
import { decodeAll } from './soap-decode.js';
import { child } from './xml.js';

/**
 * Reading vCenter events forward: an EventHistoryCollector filtered to the event classes aitia
 * explains changes with (power, guest requests, migrations, HA, host connection, tasks) and to
 * events created at or after `since`, rewound to its oldest and read with ReadNextEvents page by
 * page, then destroyed. Which of them are new is the caller's business (the event key cursor).
 */

/** The classes asked for: the event table's, tasks, and the HA restart's EventEx type id. */
export const EVENT_TYPE_IDS: readonly string[] = [
  ...Object.keys(VCENTER_EVENT_TYPES),
  'TaskEvent',
  'com.vmware.vc.ha.VmRestartedByHAEvent',
];

/** Every event of those classes created at or after `since` (ISO-8601), oldest first, in VMOMI JSON. */
export async function readEventsSince(
  client: VsphereClient,
  since: string,
  options: { pageSize?: number } = {},
): Promise<{ events: unknown[]; pages: number }> {
  const sc = await client.serviceContent();
  const filter =
    `<filter><time>${textXml('beginTime', since)}</time>` +
    EVENT_TYPE_IDS.map((t) => textXml('eventTypeId', t)).join('') +
    '</filter>';
  const created = await client.call('CreateCollectorForEvents', sc.eventManager, filter);
  const rv = child(created, 'returnval');
  const collector: Ref = { type: rv?.attrs.type ?? 'EventHistoryCollector', value: rv?.text.trim() ?? '' };
  const events: unknown[] = [];
  let pages = 0;
  try {
    await client.call('RewindCollector', collector);
    for (;;) {
      const page = decodeAll(
        await client.call('ReadNextEvents', collector, textXml('maxCount', options.pageSize ?? 100)),
        'returnval',
      );
      pages++;
      if (page.length === 0) break;
      events.push(...page);
    }
  } finally {
    await client.call('DestroyCollector', collector).catch(() => undefined);
  }
  return { events, pages };
}

/**
 * How far the vCenter's clock is from aitia's, in whole seconds (positive: ahead): its time as
 * `CurrentTime` answered, against the midpoint of the call (the answer was made somewhere in
 * between). Null when the answer is not a time. Pure.
 */
export function serverClockOffsetSeconds(serverTime: string, sentMs: number, receivedMs: number): number | null {
  const server = Date.parse(serverTime);
  if (!Number.isFinite(server) || !/^\d{4}-\d\d-\d\dT/.test(serverTime) || receivedMs < sentMs) return null;
  const offset = (server - (sentMs + receivedMs) / 2) / 1000;
  // Within the call's own uncertainty (half its round trip) the clocks agree as far as can be told.
  const slack = (receivedMs - sentMs) / 2000;
  return Math.abs(offset) <= slack ? 0 : Math.round(offset - Math.sign(offset) * slack);
}

/**
 * `ServiceInstance.CurrentTime`: the vCenter clock's offset from aitia's (one call), so event times
 * can be placed against observations; null when it cannot be told (the call failed or said no time).
 */
export async function readServerClockOffset(client: VsphereClient): Promise<number | null> {
  try {
    const sent = Date.now();
    const answer = await client.call('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' });
    const received = Date.now();
    return serverClockOffsetSeconds(child(answer, 'returnval')?.text.trim() ?? '', sent, received);
  } catch {
    return null;
  }
}
