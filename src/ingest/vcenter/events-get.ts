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
