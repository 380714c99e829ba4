import type { Driver } from 'neo4j-driver';
import type { IngestReport } from '../ingest/report.js';
import { resourcesMissingStateCondition } from '../graph/conditions.js';
import { DEFAULT_CONDITION_POLICY, writeConditions } from './conditions.js';
import { correlateChanges, IO_ERROR_STATE, type CorrelationDeps, type CorrelationReport } from './correlate.js';

/**
 * The one observation path: a source's provider pass (events first, then the inventory, loaded in
 * batches) → the changes it reported → the correlation step (one read, pure ladder and gate, one
 * write) → publish. The Proxmox poller, `aitia ingest … --once`, the vCenter import (CLI and
 * GraphQL) and the demo all call {@link observe}; nothing else sequences an observation.
 */

/** What a provider pass loaded and the state changes it saw. */
export interface SourcePass<Extra> {
  /** The inventory stage: `stateChanges` and `startedAt` (the observation time) feed the correlator. */
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

/** One observation: the pass and the transitions its changes became. */
export interface Observation<Extra> extends SourcePass<Extra> {
  correlation: CorrelationReport;
}

/** Observes a source once: its provider pass, then the correlation of the changes it reported. */
export async function observe<Extra>(
  deps: CorrelationDeps,
  source: ObservationSource<Extra>,
): Promise<Observation<Extra>> {
  const pass = await source.pass(deps.driver);
  const at = { observedAt: pass.report.startedAt, observer: pass.observer };
  const correlation = await correlateChanges(deps, pass.report.stateChanges, at);
  // A resource first seen already paused on an I/O error has no transition, but its condition is real.
  const firstSeen = await resourcesMissingStateCondition(deps.driver, {
    scope: pass.report.scope,
    updateTag: pass.report.updateTag,
    state: IO_ERROR_STATE,
    type: 'paused_io_error',
  });
  if (firstSeen.length > 0) {
    const policy = { ...DEFAULT_CONDITION_POLICY, suppression: deps.suppression, ...deps.conditions };
    const { opened } = await writeConditions(
      deps.driver,
      policy,
      { name: pass.observer, role: 'scheduler' },
      {
        open: firstSeen.map((resourceId) => ({
          resourceId,
          type: 'paused_io_error' as const,
          evidence: { firstSighting: true, state: IO_ERROR_STATE, observedAt: at.observedAt },
          at: at.observedAt,
        })),
      },
    );
    correlation.conditions.opened.push(...opened.filter((o) => o.opened).map((o) => o.condition.id));
  }
  return { ...pass, correlation };
}

/** Every line of an observation: the source's own, the state stage, and the transitions. */
export function formatObservation<Extra>(source: ObservationSource<Extra>, o: Observation<Extra>): string[] {
  return [
    ...(source.summarize?.(o) ?? []),
    `${o.report.scope} state: changes=${o.report.stateChanges.length}${source.stateDetail ? ` ${source.stateDetail(o)}` : ''}`,
    formatCorrelation(o.report.scope, o.correlation),
  ];
}

/** The correlation in one line: `proxmox:lab transitions: new=2 (high=1 …) existing=0 conditions opened=0 …`. */
export function formatCorrelation(scope: string, c: CorrelationReport): string {
  const by = (level: string) => c.created.filter((x) => x.attribution.confidence === level).length;
  return (
    `${scope} transitions: new=${c.created.length} (high=${by('high')} medium=${by('medium')} low=${by('low')} ` +
    `none=${by('none')}) existing=${c.existing.length} conditions opened=${c.conditions.opened.length} ` +
    `resolved=${c.conditions.resolved.length} errors=${c.errors.length}`
  );
}
