import { describeZodIssues, ResourceInputSchema } from '../model/index.js';
import type { InventoryRow } from './inventory-load.js';
import type { SkippedItem } from './report.js';

/** A resource row as the loader writes it; `clear` lists attribute keys its source owns but did not report. */
export interface ResourceRow extends InventoryRow {
  /**
   * Built from a listing alone because the detail calls failed: its state may be coarser than the
   * stored one (no qmpstatus), so it is written only when the resource is new.
   */
  coarse: boolean;
}

/** A row before validation. */
export interface RawRow {
  row: unknown;
  clear: string[];
  coarse: boolean;
}

/**
 * Builds and validates every row; one that throws or fails the model's schema is skipped with its
 * reason and recorded as a problem (it was not seen, so the scope is not completely seen).
 * The first row of an id wins.
 */
export function validRows(
  builders: Array<() => RawRow | RawRow[]>,
  skipped: SkippedItem[],
  problems: string[],
): ResourceRow[] {
  const out = new Map<string, ResourceRow>();
  for (const build of builders) {
    let built: RawRow[];
    try {
      const b = build();
      built = Array.isArray(b) ? b : [b];
    } catch (err) {
      const reason = (err as Error).message;
      skipped.push({ what: 'resource', id: null, reason });
      problems.push(reason);
      continue;
    }
    for (const raw of built) {
      const parsed = ResourceInputSchema.safeParse(raw.row);
      const id = (raw.row as { id?: string }).id ?? null;
      if (!parsed.success) {
        const reason = describeZodIssues(parsed.error.issues);
        skipped.push({ what: 'resource', id, reason });
        problems.push(`${id ?? '(no id)'}: ${reason}`);
      } else if (!out.has(parsed.data.id)) {
        out.set(parsed.data.id, { resource: parsed.data, clear: raw.clear, coarse: raw.coarse });
      }
    }
  }
  return [...out.values()];
}
