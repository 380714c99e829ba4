import { guestKindOfTaskType, type GuestKind } from './task-types.js';

/** How far a node's task list is read back, in seconds. */
export interface TaskWindowOptions {
  /**
   * Re-read this much before the newest task start already seen: a task listed late (node clocks
   * disagree, a worker registered after a later one) or finished since is read again; re-reading
   * is idempotent.
   */
  overlapSeconds: number;
  /** Without a cursor (first pass): how far back to start. */
  initialLookbackSeconds: number;
}

export const DEFAULT_TASK_WINDOW: Readonly<TaskWindowOptions> = {
  overlapSeconds: 300,
  initialLookbackSeconds: 24 * 3600,
};

/** The `since` (epoch seconds, on task start) for the next read of one node. */
export function taskListSince(
  cursorPosition: number | null,
  nowSeconds: number,
  options: Partial<TaskWindowOptions> = {},
): number {
  const o = { ...DEFAULT_TASK_WINDOW, ...options };
  const since = cursorPosition === null ? nowSeconds - o.initialLookbackSeconds : cursorPosition - o.overlapSeconds;
  return Math.max(0, Math.floor(since));
}

/**
 * The cursor after a complete read: the newest task start seen, never behind the previous cursor.
 * With nothing seen it stays (or, first time, starts at the window read), so an idle node does not
 * drift.
 */
export function advanceTaskCursor(previous: number | null, since: number, starts: readonly number[]): number {
  const newest = starts.length > 0 ? Math.max(...starts) : since;
  return previous === null ? newest : Math.max(previous, newest);
}

/**
 * VMID → guest family as the listing itself tells it (a qmstart for 110 says 110 is a VM), for
 * HA requests and backups of guests the graph does not know yet (the first poll ingests tasks
 * before the inventory). Conflicting evidence for one VMID (a destroyed VM's id reused by a
 * container) resolves to nothing.
 */
export function guestKindsFromListing(entries: readonly unknown[]): Map<string, GuestKind> {
  const seen = new Map<string, GuestKind | null>();
  for (const entry of entries) {
    const e = entry as { upid?: unknown } | null;
    if (typeof e?.upid !== 'string') continue;
    const fields = e.upid.split(':');
    const [type, id] = [fields[5], fields[6]];
    if (!type || !id || !/^\d+$/.test(id)) continue;
    const kind = guestKindOfTaskType(type);
    if (!kind) continue;
    const before = seen.get(id);
    seen.set(id, before === undefined || before === kind ? kind : null);
  }
  return new Map([...seen].filter((e): e is [string, GuestKind] => e[1] !== null));
}

/**
 * Seconds a node's clock is at least behind aitia's, from its list: a task not stored before
 * (`fresh`, start times in epoch seconds) that starts inside the node's previous complete read
 * (`last`, epoch seconds) was not in that read although the read covered its start — on the node's
 * clock it started before aitia asked, so that clock lags (or the node listed it late: either
 * way the read's claim did not hold by this much). 0 when nothing says so.
 */
export function clockBehindSeconds(last: { from: number; to: number } | null, fresh: readonly number[]): number {
  if (!last) return 0;
  const inside = fresh.filter((s) => s >= last.from && s < last.to);
  return inside.length === 0 ? 0 : Math.max(...inside.map((s) => last.to - s));
}

/**
 * The offset a complete read records: ahead (a task starting after the read) when seen, else
 * behind as a negative number; 0 when neither.
 */
export function clockOffsetOf(aheadSeconds: number, behindSeconds: number): number {
  if (aheadSeconds > 0 && aheadSeconds >= behindSeconds) return aheadSeconds;
  return behindSeconds > 0 ? -behindSeconds : 0;
}

/**
 * What a list cut short still proves (its entries are ordered by end, newest first, and a page is
 * a prefix of that order): every task that started after the oldest end read is in it, so
 * [oldestEnd + 1, readAt] was read completely. Null when nothing is proven (no finished entry read).
 */
export function truncatedCoverFrom(entries: readonly unknown[], since: number, readAt: number): number | null {
  const ends = entries
    .map((e) => Number((e as { endtime?: unknown } | null)?.endtime))
    .filter((n) => Number.isFinite(n) && n > 0);
  if (ends.length === 0) return null;
  const from = Math.max(since, Math.min(...ends) + 1);
  return from <= readAt ? from : null;
}
