import { DateTime } from 'luxon';
import { EVENT_CONTENT_FIELDS, type EventRecord, type StoredEventRecord } from '../../model/events.js';

/**
 * vCenter's event log is history: an event, once logged under its key, never changes. So a re-push
 * of a key already stored must carry the same content; one that differs (who, what, when, outcome)
 * is refused and reported as a conflict, never written over the stored one. The same key twice in
 * one document is reported as a duplicate and imported once; copies that differ are a conflict,
 * and none of them is imported (which one is history cannot be told from the document). Where the resource link is concerned a re-push may still add what was not
 * known (linking is not content).
 */

function same(field: (typeof EVENT_CONTENT_FIELDS)[number], a: unknown, b: unknown): boolean {
  if ((field === 'startedAt' || field === 'endedAt') && typeof a === 'string' && typeof b === 'string')
    return DateTime.fromISO(a, { setZone: true }).toMillis() === DateTime.fromISO(b, { setZone: true }).toMillis();
  return (a ?? null) === (b ?? null);
}

/** The content fields in which two records of one key differ (empty: the same event). */
export function eventDifferences(a: EventRecord | StoredEventRecord, b: EventRecord): string[] {
  return EVENT_CONTENT_FIELDS.filter((f) => !same(f, a[f], b[f]));
}

/** An event refused or folded, by its place in the document. */
export interface EventNotice {
  item: string;
  reason: string;
}

/** Splits a document's events: one copy of each key whose copies agree, duplicates and in-document conflicts. */
export function dedupeDocument(events: ReadonlyArray<{ event: EventRecord; index: number }>): {
  unique: Array<{ event: EventRecord; index: number }>;
  duplicates: EventNotice[];
  conflicts: EventNotice[];
} {
  const first = new Map<string, { event: EventRecord; index: number }>();
  const duplicates: EventNotice[] = [];
  const conflicts: EventNotice[] = [];
  const conflicted = new Set<string>();
  for (const e of events) {
    const seen = first.get(e.event.id);
    if (!seen) {
      first.set(e.event.id, e);
      continue;
    }
    const item = `events[${e.index}]`;
    duplicates.push({ item, reason: `${e.event.id} is also events[${seen.index}]: imported once` });
    const diff = eventDifferences(seen.event, e.event);
    if (diff.length > 0) {
      conflicted.add(e.event.id);
      conflicts.push({
        item,
        reason: `${e.event.id} differs from events[${seen.index}] (${diff.join(', ')}): one key, two contents; neither is imported`,
      });
    }
  }
  return { unique: [...first.values()].filter((e) => !conflicted.has(e.event.id)), duplicates, conflicts };
}
