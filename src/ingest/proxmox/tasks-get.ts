import type { ProxmoxClient } from './client.js';

/**
 * Dumb fetchers for task history: one API call each, no reshaping; failures are thrown as
 * ProxmoxApiError and the task sync decides what they mean.
 */

/** Query of `GET /nodes/{node}/tasks`: `since`/`until` filter on the task's start (epoch seconds). */
export interface NodeTasksQuery {
  since: number;
  until?: number;
  limit: number;
  /** Offset into the list (ordered by end, newest first). */
  start?: number;
  typefilter?: string;
  vmid?: string;
}

/**
 * `GET /nodes/{node}/tasks?source=all&…`: the node's complete task list. `source=all` because the
 * default (`archive`) omits running tasks.
 */
export function getNodeTasks(client: ProxmoxClient, node: string, query: NodeTasksQuery): Promise<unknown> {
  const q: Record<string, string | number> = { source: 'all', since: query.since, limit: query.limit };
  if (query.start) q.start = query.start;
  if (query.until !== undefined) q.until = query.until;
  if (query.typefilter) q.typefilter = query.typefilter;
  if (query.vmid) q.vmid = query.vmid;
  return client.get(`/nodes/${encodeURIComponent(node)}/tasks`, q);
}

/**
 * One page of {@link getNodeTasks} with the envelope's `total` (every entry the filters match): a
 * server that honours a smaller `limit` than asked answers fewer rows, and only `total` says the
 * list goes on.
 */
export function getNodeTaskPage(
  client: ProxmoxClient,
  node: string,
  query: NodeTasksQuery,
): Promise<{ data: unknown; total: number | null }> {
  const q: Record<string, string | number> = { source: 'all', since: query.since, limit: query.limit };
  if (query.start) q.start = query.start;
  if (query.until !== undefined) q.until = query.until;
  return client.getList(`/nodes/${encodeURIComponent(node)}/tasks`, q);
}

/** `GET /nodes/{node}/tasks/{upid}/status`: `running | stopped` and `exitstatus` (no end time). */
export function getTaskStatus(client: ProxmoxClient, node: string, upid: string): Promise<unknown> {
  return client.get(`/nodes/${encodeURIComponent(node)}/tasks/${encodeURIComponent(upid)}/status`);
}
