import type { Driver } from 'neo4j-driver';
import { correlateChanges, type CorrelationReport, type CorrelatorSettings } from '../../../correlator/runner.js';
import type { TransitionRecord } from '../../model/index.js';
import type { SuppressionMode } from '../../policy/policy-document.js';
import type { IngestReport } from '../report.js';
import { importVcenterInventory, type ImportVcenterOptions } from './import.js';

/**
 * An imported vCenter inventory is a state observation like a Proxmox poll: the import stores the
 * new states, then each change becomes an attributed, gated Transition, explained by the vCenter
 * events ingested before it (push events first, then inventory).
 */
export async function vcenterInventoryPass(
  driver: Driver,
  document: unknown,
  options: ImportVcenterOptions & {
    suppression: SuppressionMode;
    correlator?: Partial<CorrelatorSettings>;
    publish?: (t: TransitionRecord) => void;
  },
): Promise<{ report: IngestReport; correlation: CorrelationReport }> {
  const report = await importVcenterInventory(driver, document, options);
  const correlation = await correlateChanges(driver, report.stateChanges, {
    observedAt: report.startedAt,
    observer: `import:${report.scope}`,
    suppression: options.suppression,
    ...(options.correlator ? { settings: options.correlator } : {}),
    ...(options.publish ? { publish: options.publish } : {}),
  });
  return { report, correlation };
}
