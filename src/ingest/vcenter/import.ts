import type { Driver } from 'neo4j-driver';
import { badInput } from '../../model/index.js';
import { isoNow } from '../../graph/db/statements.js';
import { loadInventory, markStaleness } from '../inventory-load.js';
import {
  createReport,
  emitProgress,
  finishReport,
  type IngestReport,
  newUpdateTag,
  type ProgressSink,
} from '../report.js';
import { transformVcenterInventory } from './inventory-transform.js';

/** Where the document came from and whether it is a complete listing. */
export interface ImportVcenterOptions {
  /** Names the vCenter in ids (`vcenter:<server>/vm/<moref>`): morefs are unique per vCenter only. */
  server: string;
  updateTag?: string;
  /**
   * The document lists every object of the kinds it carries (e.g. a full property-collector dump).
   * Only then are resources of those kinds that it does not list marked missing. Default false:
   * a document may well be a partial answer (`govc object.collect` of one VM).
   */
  complete?: boolean;
  batchSize?: number;
  onProgress?: ProgressSink;
}

/**
 * Imports a vCenter inventory document pushed by an ingester, in VMOMI JSON or the older PascalCase
 * encoding: VMs, hosts, clusters, datastores and their RUNS_ON, MEMBER_OF, STORED_ON edges; batched,
 * idempotent. Nothing is deleted; see {@link ImportVcenterOptions.complete} for staleness.
 */
export async function importVcenterInventory(
  driver: Driver,
  document: unknown,
  options: ImportVcenterOptions,
): Promise<IngestReport> {
  if (!/^[^\s/]+$/.test(options.server))
    throw badInput('server', 'must be a name without spaces or slashes, e.g. vc01.lab.local');
  const updateTag = options.updateTag ?? newUpdateTag('vcenter');
  const observedAt = isoNow();
  const inventory = transformVcenterInventory(document, options.server);
  const report = createReport('vcenter', inventory.scope, updateTag);
  report.fetched = inventory.objects;
  report.skipped.push(...inventory.skipped);
  for (const p of inventory.problems)
    report.errors.push({ scope: inventory.scope, path: null, status: null, message: p });
  report.resources.transformed = inventory.rows.length;
  report.edges.transformed = inventory.edges.length;
  // A document that carries no object at all cannot vouch for anything.
  report.complete = Boolean(options.complete) && report.errors.length === 0 && inventory.rows.length > 0;
  emitProgress(options.onProgress, 'transform', report);

  await loadInventory(
    driver,
    inventory.rows,
    inventory.edges,
    { updateTag, observedAt, batchSize: options.batchSize },
    report,
  );
  emitProgress(options.onProgress, 'load', report);

  await markStaleness(driver, report, {
    scope: inventory.scope,
    source: inventory.scope,
    updateTag,
    observedAt,
    kinds: inventory.kinds,
  });
  finishReport(report);
  emitProgress(options.onProgress, 'done', report);
  return report;
}
