import { DateTime } from 'luxon';
import type { RecordedResponse, StandinRequest } from './proxmox-standin.js';

/** A task as a test describes it; times are ISO-8601 (or epoch seconds). */
export interface TaskSpec {
  node: string;
  type: string;
  /** The UPID id field: a VMID, '' for node-wide tasks. */
  id?: string;
  user?: string;
  start: string | number;
  /** null: still running. Default: the start. */
  end?: string | number | null;
  status?: string;
  /** Worker pid; a fresh one per task unless given. */
  pid?: number;
}

const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
const seconds = (t: string | number) => (typeof t === 'number' ? t : Math.floor(DateTime.fromISO(t).toSeconds()));
// Random start: UPIDs of different test files never collide in the shared test database.
let nextPid = 0x100000 + Math.floor(Math.random() * 0xe00000);

/** The UPID of a task spec (trailing colon included). */
export function upidOf(spec: TaskSpec): string {
  const pid = spec.pid ?? nextPid++;
  return `UPID:${spec.node}:${hex8(pid)}:00A1B2C3:${hex8(seconds(spec.start))}:${spec.type}:${spec.id ?? ''}:${spec.user ?? 'root@pam'}:`;
}

/**
 * An entry of `GET /nodes/{node}/tasks?source=all` as Proxmox writes it: finished entries split an
 * API token's user and tokenid and carry endtime + status; running ones carry status RUNNING.
 */
export function taskEntry(spec: TaskSpec & { upid?: string }): Record<string, unknown> {
  const upid = spec.upid ?? upidOf(spec);
  const [, node, pid, pstart, start, type, id, user] = upid.split(':') as string[];
  const base: Record<string, unknown> = {
    upid,
    node,
    pid: parseInt(pid!, 16),
    pstart: parseInt(pstart!, 16),
    starttime: parseInt(start!, 16),
    type,
    id,
    user,
  };
  if (spec.end === null) return { ...base, status: 'RUNNING' };
  const bang = user!.indexOf('!');
  const split = bang > 0 ? { user: user!.slice(0, bang), tokenid: user!.slice(bang + 1) } : {};
  return { ...base, ...split, endtime: seconds(spec.end ?? spec.start), status: spec.status ?? 'OK' };
}

/**
 * A responder for `GET /nodes/{node}/tasks` over a mutable list of entries, as Proxmox answers:
 * the node's entries (running ones only with `source=all`) filtered by `since`/`until` (on starttime), `typefilter`, `vmid`, ordered by
 * end time newest first (running first), paged by `start`/`limit` (default 50).
 */
export function taskListResponder(entries: () => ReadonlyArray<Record<string, unknown>>) {
  return (req: StandinRequest): RecordedResponse => {
    const node = /^\/nodes\/([^/]+)\/tasks$/.exec(req.path)?.[1];
    const q = req.query;
    const num = (k: string) => (q.has(k) ? Number(q.get(k)) : null);
    const [since, until, start, limit] = [num('since'), num('until'), num('start') ?? 0, num('limit') ?? 50];
    const list = entries()
      .filter((e) => e.node === node)
      // The default source (archive) omits running tasks, as Proxmox does.
      .filter((e) => q.get('source') === 'all' || e.status !== 'RUNNING')
      .filter((e) => since === null || Number(e.starttime) >= since)
      .filter((e) => until === null || Number(e.starttime) <= until)
      .filter((e) => !q.has('typefilter') || e.type === q.get('typefilter'))
      .filter((e) => !q.has('vmid') || String(e.id) === q.get('vmid'))
      .sort((a, b) => Number(b.endtime ?? Number.MAX_SAFE_INTEGER) - Number(a.endtime ?? Number.MAX_SAFE_INTEGER));
    return { body: { data: list.slice(start, start + limit), total: list.length } };
  };
}
