/**
 * Counting what a pass asks of the Proxmox API, by kind of call, so each poll can say what it cost
 * (ingest report, logs, `bench:poll`). Every HTTP attempt counts, retries included.
 */

/** What a request reads; the steady state of a poll is `cluster` + `tasks` + `node_list`. */
export type RequestCategory =
  'cluster' | 'tasks' | 'task_status' | 'node_list' | 'guest_status' | 'guest_config' | 'agent_ping' | 'other';

export const REQUEST_CATEGORIES: readonly RequestCategory[] = [
  'cluster',
  'tasks',
  'task_status',
  'node_list',
  'guest_status',
  'guest_config',
  'agent_ping',
  'other',
];

/** Requests sent (attempts, retries included), by category, plus what the API pushed back. */
export interface RequestCounts {
  total: number;
  byCategory: Record<RequestCategory, number>;
  /** Attempts that repeated an earlier one (transient failure, 429/503). */
  retried: number;
  /** Answers 429 or 503: the API asked us to slow down. */
  throttled: number;
  /** Milliseconds spent waiting on a Retry-After or a throttling backoff. */
  backoffMs: number;
}

export function emptyRequestCounts(): RequestCounts {
  return {
    total: 0,
    byCategory: Object.fromEntries(REQUEST_CATEGORIES.map((c) => [c, 0])) as Record<RequestCategory, number>,
    retried: 0,
    throttled: 0,
    backoffMs: 0,
  };
}

/** The category of a request path (below `/api2/json`, without the query). Pure. */
export function requestCategory(method: string, path: string): RequestCategory {
  if (/^\/cluster\/(status|resources)$/.test(path)) return 'cluster';
  if (/^\/nodes\/[^/]+\/tasks$/.test(path)) return 'tasks';
  if (/^\/nodes\/[^/]+\/tasks\/[^/]+\/status$/.test(path)) return 'task_status';
  if (/^\/nodes\/[^/]+\/(qemu|lxc)$/.test(path)) return 'node_list';
  if (/^\/nodes\/[^/]+\/(qemu|lxc)\/\d+\/status\/current$/.test(path)) return 'guest_status';
  if (/^\/nodes\/[^/]+\/(qemu|lxc)\/\d+\/config$/.test(path)) return 'guest_config';
  if (method === 'POST' && /^\/nodes\/[^/]+\/qemu\/\d+\/agent\/ping$/.test(path)) return 'agent_ping';
  return 'other';
}

/** `after - before`: what was sent between two snapshots of the same counter. */
export function diffRequestCounts(after: RequestCounts, before: RequestCounts): RequestCounts {
  const out = emptyRequestCounts();
  out.total = after.total - before.total;
  for (const c of REQUEST_CATEGORIES) out.byCategory[c] = after.byCategory[c] - before.byCategory[c];
  out.retried = after.retried - before.retried;
  out.throttled = after.throttled - before.throttled;
  out.backoffMs = after.backoffMs - before.backoffMs;
  return out;
}

/** `a + b`, e.g. the task stage and the inventory stage of one pass. */
export function addRequestCounts(a: RequestCounts, b: RequestCounts): RequestCounts {
  const out = emptyRequestCounts();
  out.total = a.total + b.total;
  for (const c of REQUEST_CATEGORIES) out.byCategory[c] = a.byCategory[c] + b.byCategory[c];
  out.retried = a.retried + b.retried;
  out.throttled = a.throttled + b.throttled;
  out.backoffMs = a.backoffMs + b.backoffMs;
  return out;
}

/** `requests=11 (cluster=2 tasks=3 node_list=6)`: the non-zero categories, then pushback if any. */
export function formatRequestCounts(r: RequestCounts): string {
  const parts = REQUEST_CATEGORIES.filter((c) => r.byCategory[c] > 0).map((c) => `${c}=${r.byCategory[c]}`);
  if (r.retried > 0) parts.push(`retried=${r.retried}`);
  if (r.throttled > 0) parts.push(`throttled=${r.throttled} backoff=${(r.backoffMs / 1000).toFixed(1)}s`);
  return `requests=${r.total}${parts.length > 0 ? ` (${parts.join(' ')})` : ''}`;
}
