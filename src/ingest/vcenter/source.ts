/**
 * The vCenter provider passes as observation sources (src/ingest/source.ts): a pushed inventory
 * document, and a polled vCenter; the observation path runs them.
 */
import type { Driver } from 'neo4j-driver';
import type { ObservationSource } from '../source.js';
import type { VsphereClient } from './client.js';
import { importVcenterInventory, type ImportVcenterOptions } from './import.js';
import { syncVcenter, type SyncVcenterOptions, type VcenterSyncReport } from './sync.js';

/**
 * An inventory document a vCenter ingester pushed (GraphQL `ingestVcenterInventory`, `aitia ingest
 * vcenter --file`): its state changes are explained by the vCenter events ingested before it.
 */
export function vcenterDocumentSource(document: unknown, options: ImportVcenterOptions): ObservationSource<null> {
  return {
    name: `vcenter ${options.server} (document)`,
    async pass(driver: Driver) {
      const report = await importVcenterInventory(driver, document, options);
      return { report, observer: `import:${report.scope}`, extra: null };
    },
  };
}

/**
 * A polled vCenter: one {@link syncVcenter} pass (inventory and events read, events written first,
 * then the inventory), its changes explained by the events it has just stored.
 */
export function vcenterSource(
  client: VsphereClient,
  options: SyncVcenterOptions,
): ObservationSource<VcenterSyncReport['events']> {
  return {
    name: `vcenter ${options.server} ${client.url}`,
    async pass(driver: Driver) {
      const report = await syncVcenter(driver, client, options);
      return { report, observer: `scheduler:${report.scope}`, extra: report.events };
    },
    summarize: ({ report, extra }) => [
      `${report.scope} events: listed=${extra.listed} already-seen=${extra.alreadySeen} new=${extra.created} ` +
        `cursor=${extra.cursor ?? 'none'}`,
    ],
  };
}
