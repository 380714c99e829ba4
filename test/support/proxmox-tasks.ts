import type { Driver } from 'neo4j-driver';
import { afterAll } from 'vitest';
import { transformProxmoxTask } from '../../src/ingest/proxmox/tasks-transform.js';
import type { EventRecord } from '../../src/model/events.js';
import { taskEntry, type TaskSpec } from '../../src/demo/proxmox-tasks.js';

// Task lists as Proxmox writes them live in src/demo (the demo plays them too).
export * from '../../src/demo/proxmox-tasks.js';

/** The same task through the real transform, as ingest stores it. */
export function taskEvent(
  cluster: string,
  spec: TaskSpec & { upid?: string },
  guestKind: 'qemu' | 'lxc' = 'qemu',
): EventRecord {
  const r = transformProxmoxTask(taskEntry(spec), { cluster, guestKindOf: () => guestKind });
  if (!r.ok) throw new Error(`test task does not transform: ${r.reason}`);
  return r.event;
}

/**
 * Deletes, after the file, the events of the test's clusters: a UPID has no room for the scope,
 * but the event's hostId (`proxmox:<cluster>/node/<node>`) carries it. Call after useGraph() so it
 * runs before the driver closes.
 */
export function useEventCleanup(driver: Driver, scope: string): void {
  afterAll(async () => {
    await driver.executeQuery('MATCH (e:Event) WHERE e.hostId CONTAINS $scope DETACH DELETE e', { scope });
  });
}
