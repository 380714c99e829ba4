import { importVcenterEvents } from '../ingest/vcenter/events-import.js';
import { observe } from '../pipeline/observe.js';
import { vcenterDocumentSource } from '../ingest/vcenter/source.js';
import type { SkippedItem, StageCounts } from '../ingest/report.js';
import { badInput, type TransitionRecord } from '../model/index.js';
import { audited } from './audit.js';
import { pipelineDeps, type ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

/** Events per ingestVcenterEvents call: a bigger document is split by the caller. */
const MAX_EVENTS_PER_CALL = 10_000;

/** What one inventory import did; nothing is ever deleted, only a complete import marks unseen resources missing. */
export interface InventoryIngestResult {
  scope: string;
  complete: boolean;
  fetched: number;
  resources: StageCounts;
  edges: StageCounts;
  skipped: SkippedItem[];
  /** `<path>: <message>`, or the message alone. */
  errors: string[];
  markedMissing: number;
  /** State changes this import observed, each stored as an attributed Transition. */
  transitions: TransitionRecord[];
}

/**
 * Imports a vCenter inventory document (ingesters; audited) as a state observation: the changes it
 * sees become attributed, gated Transitions, published on the process's bus.
 */
export function ingestVcenterInventory(
  deps: ServiceDeps,
  principal: Principal,
  input: { server: string; document: unknown; complete?: boolean | null },
): Promise<InventoryIngestResult> {
  return audited(
    deps,
    principal,
    'ingestVcenterInventory',
    [`vcenter:${input.server}`],
    async () => {
      assertCan(principal, 'inventory:ingest');
      const { report, correlation } = await observe(
        pipelineDeps(deps),
        vcenterDocumentSource(input.document, { server: input.server, complete: input.complete ?? false }),
      );
      return {
        scope: report.scope,
        complete: report.complete,
        fetched: report.fetched,
        resources: report.resources,
        edges: report.edges,
        skipped: report.skipped,
        errors: report.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)),
        markedMissing: report.markedMissing,
        transitions: correlation.created,
      };
    },
    undefined,
    { args: input },
  );
}

/** One events document's import: counts and what was left out, with reasons. */
export interface EventIngestResult {
  scope: string;
  received: number;
  written: number;
  created: number;
  updated: number;
  skipped: Array<{ item: string | null; reason: string }>;
  conflicts: Array<{ item: string; reason: string }>;
  duplicates: Array<{ item: string; reason: string }>;
}

/** Imports vCenter events (ingesters; audited); idempotent per event key. */
export function ingestVcenterEvents(
  deps: ServiceDeps,
  principal: Principal,
  input: { server: string; events: unknown },
): Promise<EventIngestResult> {
  const { server, events } = input;
  return audited(
    deps,
    principal,
    'ingestVcenterEvents',
    [`vcenter:${server}`],
    async () => {
      assertCan(principal, 'event:ingest');
      if (Array.isArray(events) && events.length > MAX_EVENTS_PER_CALL) {
        throw badInput(
          'events',
          `at most ${MAX_EVENTS_PER_CALL} events per call (got ${events.length}); split the document`,
        );
      }
      const report = await importVcenterEvents(deps.driver, events, { server });
      return {
        scope: report.scope,
        received: report.fetched,
        written: report.events.written,
        created: report.events.created,
        updated: report.events.updated,
        skipped: report.skipped.map((s) => ({ item: s.id, reason: s.reason })),
        conflicts: report.conflicts,
        duplicates: report.duplicates,
      };
    },
    undefined,
    { args: input },
  );
}
