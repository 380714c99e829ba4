import type { Driver } from 'neo4j-driver';
import type { IngestReport } from './report.js';

/**
 * What the observation path (src/pipeline/observe.ts) asks of a provider: one pass that loads what
 * it saw into the graph and says what changed. The providers' passes are in
 * src/ingest/proxmox/source.ts and src/ingest/vcenter/source.ts.
 */

/** What a provider pass loaded and the state changes it saw. */
export interface SourcePass<Extra> {
  /**
   * The inventory stage: `stateChanges` and `startedAt` (the observation time) feed the correlator;
   * `conditionOps` (the adapter's reachability) are written with the transitions.
   */
  report: IngestReport;
  /** Who observed, stored on each transition: `scheduler:proxmox:lab`, `import:vcenter:vc01`. */
  observer: string;
  /** What else the source did (e.g. the task stage), for its own report lines. */
  extra: Extra;
}

/** Something that can be observed: one provider pass that loads what it saw into the graph. */
export interface ObservationSource<Extra> {
  /** For logs: `proxmox https://pve1.lan:8006`. */
  name: string;
  pass(driver: Driver): Promise<SourcePass<Extra>>;
  /** Lines that say what the pass did before the inventory (the task stage), for logs and the CLI. */
  summarize?(pass: SourcePass<Extra>): string[];
  /** More words for the state line, e.g. `linked-events=2`. */
  stateDetail?(pass: SourcePass<Extra>): string;
}
