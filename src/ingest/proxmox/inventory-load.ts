import type { Driver } from 'neo4j-driver';
import { existingResourceIds } from '../../graph/resources/queries.js';
import { markResourcesSeen } from '../../graph/resources/staleness.js';
import { loadInventory, type LoadOptions } from '../inventory-load.js';
import type { IngestReport } from '../report.js';
import type { ProxmoxInventory } from './inventory-transform.js';

/**
 * Loads one cluster's inventory. A coarse row (its guest's detail calls failed) is written only
 * when the resource is new: for a known one, the listing's coarser state would overwrite the
 * stored finer one (running over paused_io_error) and invent a state change; it is only marked seen.
 */
export async function loadProxmoxInventory(
  driver: Driver,
  inventory: ProxmoxInventory,
  options: LoadOptions,
  report: IngestReport,
): Promise<void> {
  const coarse = inventory.rows.filter((r) => r.coarse).map((r) => r.resource.id);
  const known = await existingResourceIds(driver, coarse);
  const rows = inventory.rows.filter((r) => !(r.coarse && known.has(r.resource.id)));
  const kept = coarse.filter((id) => known.has(id));
  for (const id of kept)
    report.skipped.push({
      what: 'resource',
      id,
      reason: 'its status/current or config call failed: the stored state and attributes are kept',
    });
  report.resources.transformed += inventory.rows.length;
  report.edges.transformed += inventory.edges.length;
  await loadInventory(driver, rows, inventory.edges, options, report);
  // The listing did show them: they exist, whatever their detail calls said.
  await markResourcesSeen(driver, kept, { updateTag: options.updateTag, at: options.observedAt });
}
