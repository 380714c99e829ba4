import { join } from 'node:path';
import { findPackageRoot } from '../package-root.js';
import { loadRecordedRoutes, type RecordedResponse, type RouteTable } from './proxmox-standin.js';
import { taskEntry, taskListResponder } from './proxmox-tasks.js';
import type { GuestChange, StoryStep } from './story.js';

/** The recorded API answers of the demo cluster (recordings/proxmox-homelab/, one file per request). */
export const HOMELAB_RECORDINGS = (): string => join(findPackageRoot(), 'recordings', 'proxmox-homelab');

const NODES = ['pve1', 'pve2', 'pve3'] as const;

function recorded(table: RouteTable, key: string): { data: unknown } {
  const r = table.get(key) as RecordedResponse | undefined;
  if (!r || typeof r === 'function') throw new Error(`demo recordings lack ${key}`);
  return structuredClone(r.body) as { data: unknown };
}

/**
 * A mutable view of the homelab's recordings: the route table the Proxmox stand-in serves, plus
 * the nodes' task logs, which grow as the story goes on.
 */
export class HomelabRoutes {
  readonly table: RouteTable;
  private readonly tasks: Record<string, unknown>[] = [];

  constructor(dir: string = HOMELAB_RECORDINGS()) {
    this.table = loadRecordedRoutes(dir);
    for (const node of NODES)
      this.table.set(
        `GET /nodes/${node}/tasks`,
        taskListResponder(() => this.tasks),
      );
  }

  /** Applies a step: its tasks join the nodes' logs, its guests' answers change. */
  apply(step: StoryStep): void {
    for (const t of step.tasks) this.tasks.push(taskEntry(t));
    for (const c of step.changes) this.change(c);
  }

  private change(c: GuestChange): void {
    const statusKey = `GET /nodes/${c.node}/${c.guest}/status/current`;
    const status = recorded(this.table, statusKey);
    this.table.set(statusKey, { body: { ...status, data: { ...(status.data as object), ...c.status } } });
    const listing = recorded(this.table, 'GET /cluster/resources');
    listing.data = (listing.data as Array<Record<string, unknown>>).map((e) =>
      e.id === c.guest ? { ...e, ...c.listing } : e,
    );
    this.table.set('GET /cluster/resources', { body: listing });
  }
}
