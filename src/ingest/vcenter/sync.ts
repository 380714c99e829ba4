import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { getIngestCursor, saveIngestCursor } from '../../graph/cursors.js';
import { recordLogReads } from '../../graph/coverage.js';
import { appendEvents } from '../../graph/events-append.js';
import { linkEventsToResources } from '../../graph/events.js';
import { isoNow } from '../../graph/db/statements.js';
import type { EventRecord } from '../../model/events.js';
import { loadInventory, markStaleness } from '../inventory-load.js';
import {
  createReport,
  emitProgress,
  finishReport,
  type IngestReport,
  newUpdateTag,
  type ProgressSink,
} from '../report.js';
import { recordVcenterReachable, recordVcenterUnreachable, vcenterServiceRow } from './adapter-condition.js';
import type { VsphereClient } from './client.js';
import { VsphereApiError } from './client-error.js';
import { readEventsSince, readServerClockOffset } from './events-get.js';
import { transformVcenterEvent } from './events-transform.js';
import { readInventory } from './inventory-get.js';
import { transformVcenterInventory } from './inventory-transform.js';

export interface SyncVcenterOptions {
  /** Names the vCenter in ids (`vcenter:<server>/vm/<moref>`), as a pushed document would. */
  server: string;
  updateTag?: string;
  /** The transitions' observedAt. Default now. */
  observedAt?: string;
  /** Hours of events the first pass reads (no cursor yet). Default 24. */
  backfillHours?: number;
  /** Objects per RetrievePropertiesEx page. Default 500. */
  pageSize?: number;
  batchSize?: number;
  onProgress?: ProgressSink;
}

/** How far before the cursor's createdTime a pass's event window starts. */
export const EVENT_WINDOW_OVERLAP = { minutes: 5 } as const;

/** A pass's report with what it read of the event stream. */
export interface VcenterSyncReport extends IngestReport {
  events: {
    /** Events the collector returned (the window starts before the cursor's time, so some are old). */
    listed: number;
    /** Of those, already read by an earlier pass (key at or below the cursor): not written again. */
    alreadySeen: number;
    written: number;
    created: number;
    /** The newest event key read so far (the cursor), null before any. */
    cursor: number | null;
  };
  /** SOAP calls the pass sent. */
  calls: number;
}

/** The event stream's cursor id: the newest event key read, with its createdTime in `detail`. */
export function vcenterEventCursorId(server: string): string {
  return `vcenter:${server}#events`;
}

/**
 * One pass over a vCenter: read the inventory (ContainerView + PropertyCollector), then the events
 * since the cursor (EventHistoryCollector), and only then write — events first, so every event
 * behind a change the inventory shows is in the graph before the change is explained. Then the
 * inventory goes through the same transform and load as a pushed document.
 *
 * A read that fails anywhere (network, timeout, fault, the server gone mid-pass) writes nothing
 * but `adapter_unreachable`: nothing is marked missing and the cursor does not move. Only a pass
 * that read everything marks what it no longer sees, in the whole `vcenter:<server>` scope.
 */
export async function syncVcenter(
  driver: Driver,
  client: VsphereClient,
  options: SyncVcenterOptions,
): Promise<VcenterSyncReport> {
  const { server } = options;
  const updateTag = options.updateTag ?? newUpdateTag('vcenter');
  const observedAt = options.observedAt ?? isoNow();
  const report: VcenterSyncReport = {
    ...createReport('vcenter', `vcenter:${server}`, updateTag, observedAt),
    events: { listed: 0, alreadySeen: 0, written: 0, created: 0, cursor: null },
    calls: 0,
  };
  const startCalls = client.requestCount();
  const cursorId = vcenterEventCursorId(server);
  const cursor = await getIngestCursor(driver, cursorId);
  report.events.cursor = cursor?.position ?? null;
  const cursorTime = typeof cursor?.detail.createdTime === 'string' ? cursor.detail.createdTime : null;
  // The window starts a little before the cursor's event: a key posted after it may carry an
  // earlier createdTime (host clocks, queued tasks), and a collector may drop the first event of a
  // rewound page (vcsim does). The key cursor below decides what is new, so overlap costs a re-read.
  const since = cursorTime
    ? DateTime.fromISO(cursorTime, { zone: 'utc' }).minus(EVENT_WINDOW_OVERLAP).toISO()!
    : DateTime.fromISO(observedAt, { zone: 'utc' })
        .minus({ hours: options.backfillHours ?? 24 })
        .toISO()!;

  let objects: unknown[];
  let rawEvents: unknown[];
  let about;
  // The event log's coverage: every event created in [since, readAt] is read once the collector is drained.
  const stream = {
    streamId: cursorId,
    source: `vcenter:${server}`,
    node: null,
    apiUrl: client.url,
    provider: 'vcenter' as const,
  };
  let readAt = DateTime.utc().toISO({ suppressMilliseconds: true })!;
  // The vCenter's clock against aitia's (CurrentTime): event times are its own; null: not told.
  let clockOffsetSeconds: number | null;
  try {
    about = (await client.serviceContent()).about;
    objects = (await readInventory(client, { pageSize: options.pageSize })).objects;
    readAt = DateTime.utc().toISO({ suppressMilliseconds: true })!;
    rawEvents = (await readEventsSince(client, since)).events;
    clockOffsetSeconds = await readServerClockOffset(client);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    await recordLogReads(driver, [
      { ...stream, gap: { from: since, to: readAt, reason: 'source_unreachable', detail, at: readAt } },
    ]);
    report.errors.push({
      scope: report.scope,
      path: err instanceof VsphereApiError ? err.method : null,
      status: err instanceof VsphereApiError ? err.status : null,
      message: err instanceof Error ? err.message : String(err),
    });
    await recordVcenterUnreachable(driver, { server, url: client.url, error: err }, report);
    report.calls = client.requestCount() - startCalls;
    finishReport(report);
    emitProgress(options.onProgress, 'done', report);
    return report;
  }
  report.fetched = objects.length + rawEvents.length;
  emitProgress(options.onProgress, 'fetch', report);

  // Events: only those past the cursor, so none is read twice; the cursor moves once they are stored.
  const fresh: EventRecord[] = [];
  const freshIds = new Set<string>();
  let newest: { key: number; createdTime: string } | null = null;
  rawEvents.forEach((raw, i) => {
    const r = transformVcenterEvent(raw, { server });
    if (!r.ok) return void report.skipped.push({ what: 'row', id: `events[${i}]`, reason: r.reason });
    const key = Number(r.event.id.slice(r.event.id.lastIndexOf('/') + 1));
    if (cursor && key <= cursor.position) return void report.events.alreadySeen++;
    // A key the collector listed twice (overlapping pages) is one event, written once.
    if (freshIds.has(r.event.id)) return;
    freshIds.add(r.event.id);
    fresh.push(r.event);
    if (!newest || key > newest.key) newest = { key, createdTime: r.event.startedAt };
  });
  report.events.listed = rawEvents.length;
  // History is append-only (as for pushed events): a key stored with other content is kept, and reported.
  const written = await appendEvents(driver, fresh);
  for (const c of written.conflicts)
    report.skipped.push({
      what: 'row',
      id: c.id,
      reason: `already recorded with other content (${c.fields.join(', ')}): history is append-only, the stored event is kept`,
    });
  report.events.written = written.written;
  report.events.created = written.created;
  // Covered only once the events are stored: what coverage claims read is in the graph.
  await recordLogReads(driver, [{ ...stream, complete: { from: since, to: readAt }, clockOffsetSeconds }]);
  if (newest) {
    const { key, createdTime } = newest;
    report.events.cursor = await saveIngestCursor(driver, {
      id: cursorId,
      position: key,
      at: observedAt,
      detail: { createdTime },
    });
  }

  const inventory = transformVcenterInventory(objects, server);
  report.skipped.push(...inventory.skipped);
  for (const p of inventory.problems) report.errors.push({ scope: report.scope, path: null, status: null, message: p });
  report.resources.transformed = inventory.rows.length + 1;
  report.edges.transformed = inventory.edges.length;
  report.complete = report.errors.length === 0;
  emitProgress(options.onProgress, 'transform', report);
  const rows = [{ resource: vcenterServiceRow(server, { url: client.url, ...about }), clear: [] }, ...inventory.rows];
  await loadInventory(driver, rows, inventory.edges, { updateTag, observedAt, batchSize: options.batchSize }, report);
  await linkEventsToResources(driver, written.unlinkedResourceIds);
  emitProgress(options.onProgress, 'load', report);

  await markStaleness(driver, report, { scope: report.scope, source: inventory.scope, updateTag, observedAt });
  emitProgress(options.onProgress, 'staleness', report);
  if (report.complete) recordVcenterReachable({ server, url: client.url }, report);
  report.calls = client.requestCount() - startCalls;
  finishReport(report);
  emitProgress(options.onProgress, 'done', report);
  return report;
}
