import type { EventRecord } from '../../model/events.js';
import type { IngestReport } from '../report.js';
import type { ProxmoxClient } from './client.js';
import { ProxmoxApiError } from './client-error.js';
import { getNodeTasks, getTaskStatus } from './tasks-get.js';
import { transformProxmoxTask, type TaskTransformOptions } from './tasks-transform.js';
import { DateTime } from 'luxon';

/** Running tasks re-read per node and pass, at most (the oldest first). */
export const MAX_RECHECKS_PER_NODE = 50;

/** The outcome recorded for a task the node no longer knows: honest, not a guess. */
export const VANISHED_TASK_STATUS = 'no longer reported by the node';

/**
 * Re-reads tasks stored as running that the pass's window no longer lists (the list filters on the
 * start time, so a long task that started before the window would otherwise stay "running"
 * forever). First the list narrowed to that start second, type and VMID (it carries the end time);
 * then the task's status endpoint (no end time). A task neither call knows, while the node
 * answers, is stored with status `unknown`. Returns how many were re-read.
 */
export async function recheckRunningTasks(
  client: ProxmoxClient,
  cluster: string,
  node: string,
  stale: readonly EventRecord[],
  guestKindOf: NonNullable<TaskTransformOptions['guestKindOf']>,
  report: IngestReport,
  out: EventRecord[],
): Promise<number> {
  let done = 0;
  for (const e of stale.slice(0, MAX_RECHECKS_PER_NODE)) {
    const start = Math.floor(DateTime.fromISO(e.startedAt).toSeconds());
    const vmid = e.objectId && /^\d+$/.test(e.objectId) ? e.objectId : undefined;
    try {
      const listed = await getNodeTasks(client, node, {
        since: start,
        until: start,
        limit: 50,
        typefilter: e.rawType,
        ...(vmid ? { vmid } : {}),
      });
      report.fetched++;
      const entry = Array.isArray(listed)
        ? listed.find((x) => (x as { upid?: unknown } | null)?.upid === e.id)
        : undefined;
      const body = entry ?? (await statusOrNull(client, node, e.id, report));
      if (body === null) {
        out.push({ ...e, statusClass: 'unknown', statusText: VANISHED_TASK_STATUS, endedAt: null });
      } else {
        const r = transformProxmoxTask(body, { cluster, guestKindOf });
        if (r.ok) out.push(r.event);
        else report.skipped.push({ what: 'row', id: e.id, reason: r.reason });
      }
      done++;
    } catch (err) {
      const status = err instanceof ProxmoxApiError ? err.status : null;
      report.errors.push({
        scope: `${report.scope}/node/${node}`,
        path: `/nodes/${node}/tasks`,
        status,
        message: `re-reading running task ${e.id}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }
  return done;
}

/** The status body, or null when the node answers that it does not know the task (an HTTP error status). */
async function statusOrNull(client: ProxmoxClient, node: string, upid: string, report: IngestReport): Promise<unknown> {
  try {
    const body = await getTaskStatus(client, node, upid);
    report.fetched++;
    return body;
  } catch (err) {
    // An HTTP answer (4xx/5xx other than "node unreachable") means the node is up and has no such task.
    if (
      err instanceof ProxmoxApiError &&
      err.status !== null &&
      err.status < 595 &&
      err.status !== 401 &&
      err.status !== 403
    )
      return null;
    throw err;
  }
}
