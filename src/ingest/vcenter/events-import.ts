import type { Driver } from 'neo4j-driver';
import { badInput } from '../../model/index.js';
import { appendEvents } from '../../graph/events-append.js';
import type { EventRecord } from '../../model/events.js';
import { createReport, finishReport, type IngestReport, newUpdateTag } from '../report.js';
import { dedupeDocument, type EventNotice } from './events-history.js';
import { transformVcenterEvent } from './events-transform.js';
import { isObject } from './payload.js';

/** An ingest report plus what happened to the events. */
export interface EventImportReport extends IngestReport {
  events: { transformed: number; written: number; created: number; updated: number };
  /** Keys already stored with other content (refused, see events-history.ts) or differing copies in the document. */
  conflicts: EventNotice[];
  /** Keys that appear more than once in the document (imported once). */
  duplicates: EventNotice[];
}

const itemIndex = (item: string) => Number(/\d+/.exec(item)?.[0] ?? 0);

/** Keys under which exports and API answers hold the event list. */
const LIST_KEYS = ['events', 'Events', 'value', 'returnval'];

/**
 * The events of a document: a JSON array, an object holding one under a list key, or a single
 * event (bare or in a CloudEvent envelope). Text is parsed as JSON, else as JSON lines
 * (`govc events -json` writes one object per line). Anything else is bad input naming `field`.
 */
export function eventsOfDocument(document: unknown, field = 'events'): unknown[] {
  if (typeof document === 'string') return eventsOfDocument(parseText(document, field), field);
  if (Array.isArray(document)) return document;
  if (isObject(document)) {
    const key = LIST_KEYS.find((k) => Array.isArray(document[k]));
    return key ? (document[key] as unknown[]) : [document];
  }
  throw badInput(
    field,
    'expected a JSON array of vCenter events, an object holding one (events, Events, value, returnval), or one event',
  );
}

function parseText(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const lines = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '');
    try {
      return lines.map((l) => JSON.parse(l) as unknown);
    } catch (err) {
      throw badInput(field, `neither JSON nor JSON lines: ${(err as Error).message}`);
    }
  }
}

/**
 * Imports vCenter events for one server (ids are `vcenter:<server>/event/<key>`): VMOMI JSON,
 * PascalCase, pyVmomi references, CloudEvent envelopes, short govc records. Events that cannot be
 * read go to `skipped` with the reason; the rest are upserted idempotently (the same key twice is
 * one event) and linked to their resources when those exist. A key already stored with other
 * content is refused (`conflicts`), decided in the write itself; a key repeated in the document is
 * reported (`duplicates`), and one whose copies differ is a conflict, not imported.
 */
export async function importVcenterEvents(
  driver: Driver,
  document: unknown,
  options: { server: string },
): Promise<EventImportReport> {
  if (typeof options.server !== 'string' || !/^[^\s/]+$/.test(options.server)) {
    throw badInput('server', 'must be the vCenter server name as its ids use it (no spaces or slashes), e.g. vc1.lan');
  }
  const items = eventsOfDocument(document);
  const report: EventImportReport = {
    ...createReport('vcenter', `vcenter:${options.server}`, newUpdateTag('vcenter-events')),
    events: { transformed: 0, written: 0, created: 0, updated: 0 },
    conflicts: [],
    duplicates: [],
  };
  report.fetched = items.length;
  const read: Array<{ event: EventRecord; index: number }> = [];
  items.forEach((item, i) => {
    const r = transformVcenterEvent(item, { server: options.server });
    if (r.ok) read.push({ event: r.event, index: i });
    else report.skipped.push({ what: 'row', id: `events[${i}]`, reason: r.reason });
  });
  report.events.transformed = read.length;
  const doc = dedupeDocument(read);
  report.duplicates = doc.duplicates;
  report.conflicts = doc.conflicts;
  // History is append-only: a stored key with other content is refused, never overwritten. The
  // check is part of the write (appendEvents), so two concurrent pushes of one key store one content.
  const written = await appendEvents(
    driver,
    doc.unique.map((e) => e.event),
  );
  const indexOf = new Map(doc.unique.map((e) => [e.event.id, e.index]));
  for (const c of written.conflicts)
    report.conflicts.push({
      item: `events[${indexOf.get(c.id)}]`,
      reason: `${c.id} is already recorded with other content (${c.fields.join(', ')}): history is append-only, the stored event is kept`,
    });
  report.conflicts.sort((a, b) => itemIndex(a.item) - itemIndex(b.item));
  report.events.written = written.written;
  report.events.created = written.created;
  report.events.updated = written.updated;
  report.complete = true;
  return finishReport(report) as EventImportReport;
}
