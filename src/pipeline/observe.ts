import type { PassConditionOp } from '../graph/transitions/record.js';
import { resourcesMissingStateCondition } from '../graph/conditions.js';
import type { ObservationSource, SourcePass } from '../ingest/source.js';
import type { TransitionRecord } from '../model/index.js';
import { correlateChanges, IO_ERROR_STATE, type CorrelationDeps, type CorrelationReport } from './correlate.js';
import { reexplainAwaitingLog } from './reexplain.js';

/**
 * The one observation path: a source's provider pass (events first, then the inventory, loaded in
 * batches) → the changes it reported → the correlation step (one read, pure ladder and gate, one
 * write of the transitions with every condition of the pass) → publish. The Proxmox poller,
 * `aitia ingest … --once`, the vCenter import (CLI and GraphQL) and the demo all call
 * {@link observe}; nothing else sequences an observation.
 */

/** One observation: the pass and the transitions its changes became. */
export interface Observation<Extra> extends SourcePass<Extra> {
  correlation: CorrelationReport;
  /** Earlier transitions of the source explained again now that their log was read (see reexplain.ts). */
  reexplained: TransitionRecord[];
}

/**
 * Observes a source once: its provider pass, then the correlation of the changes it reported,
 * written in one transaction with the adapter's conditions (reported on the pass's report) and the
 * conditions of resources first seen already paused on an I/O error (on the correlation's).
 */
export async function observe<Extra>(
  deps: CorrelationDeps,
  source: ObservationSource<Extra>,
): Promise<Observation<Extra>> {
  const pass = await source.pass(deps.driver);
  const at = { observedAt: pass.report.startedAt, observer: pass.observer };
  const adapterOps = pass.report.conditionOps;
  const firstSeenOps = await firstSightingConditions(deps, pass, at.observedAt);
  const correlation = await correlateChanges(deps, pass.report.stateChanges, at, [...adapterOps, ...firstSeenOps]);
  correlation.passConditions.forEach((r, i) => {
    if (!r.changed || !r.conditionId) return;
    if (i >= adapterOps.length) correlation.conditions.opened.push(r.conditionId);
    else if (r.op.op === 'open') pass.report.conditions.opened.push(r.conditionId);
    else pass.report.conditions.resolved.push(r.conditionId);
  });
  // The pass has read the source's logs: what an earlier pass could not read may be explained now.
  let reexplained: TransitionRecord[] = [];
  try {
    reexplained = await reexplainAwaitingLog(deps, pass.report.scope);
  } catch (err) {
    correlation.errors.push({
      resourceId: pass.report.scope,
      message: `re-explaining transitions awaiting their log failed: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
  return { ...pass, correlation, reexplained };
}

/**
 * A resource first seen already paused on an I/O error has no transition, but its condition is
 * real: it opens with the cause it follows. A resource that changed in this pass is left to its
 * transition, which opens or resolves the condition itself.
 */
async function firstSightingConditions(
  deps: CorrelationDeps,
  pass: SourcePass<unknown>,
  observedAt: string,
): Promise<PassConditionOp[]> {
  const changed = new Set(pass.report.stateChanges.map((c) => c.id));
  const firstSeen = await resourcesMissingStateCondition(deps.driver, {
    scope: pass.report.scope,
    updateTag: pass.report.updateTag,
    state: IO_ERROR_STATE,
    type: 'paused_io_error',
  });
  return firstSeen
    .filter((id) => !changed.has(id))
    .map((resourceId) => ({
      op: 'open' as const,
      resourceId,
      type: 'paused_io_error' as const,
      evidence: { firstSighting: true, state: IO_ERROR_STATE, observedAt },
      at: observedAt,
      caused: true,
    }));
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
