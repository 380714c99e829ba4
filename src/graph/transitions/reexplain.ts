/**
 * Transitions explained again when a later complete read covers what their first explanation
 * could not read (`unknownReason = log_not_read`): the pending ones of a source, and the write that
 * replaces an attribution while keeping the old one in the transition's `attributionHistory`.
 */
import type { Driver } from 'neo4j-driver';
import type { Attribution, PastAttribution, TransitionDecision, TransitionRecord } from '../../model/index.js';
import { int, isoNow } from '../db/statements.js';
import { transitionFromProperties } from './read.js';
import { attributionProperties } from './record.js';

/** Transitions of a source whose attribution says the log was not read, oldest first (at most `limit`). */
export async function transitionsAwaitingLog(
  driver: Driver,
  input: { source: string; limit: number },
): Promise<TransitionRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (t:Transition) WHERE t.unknownReason = 'log_not_read' AND t.resourceId STARTS WITH $prefix
     RETURN properties(t) AS t ORDER BY t.observedAt LIMIT $limit`,
    { prefix: `${input.source}/`, limit: int(input.limit) },
    { routing: 'READ' },
  );
  return records.map((r) => transitionFromProperties(r.get('t')));
}

/** A new attribution for a stored transition, and the one it replaces (compare-and-set). */
export interface Reattribution {
  transitionId: string;
  /** The stored attribution this replaces: written only if it is still the stored one. */
  replaces: TransitionRecord;
  attribution: Attribution;
  decision: TransitionDecision;
  narrative: string;
  /** Why it was explained again, kept with the old answer. */
  because: string;
}

/**
 * Replaces attributions in ONE statement; the old answer is appended to `attributionHistory`. A
 * transition whose stored attribution changed meanwhile (another replica explained it first) is
 * left alone, so replaying the same re-explanation twice writes it once. Returns the updated records.
 */
export async function replaceAttributions(
  driver: Driver,
  rows: readonly Reattribution[],
  now = isoNow(),
): Promise<TransitionRecord[]> {
  if (rows.length === 0) return [];
  const { records } = await driver.executeQuery(
    `UNWIND $rows AS row
     MATCH (t:Transition {id: row.id}) WHERE t.attribution = row.old
     SET t.attributionHistory = coalesce(t.attributionHistory, []) + [row.past], t += row.props,
         t.reexplainedAt = datetime($now)
     RETURN properties(t) AS t`,
    {
      now,
      rows: rows.map((r) => {
        const past: PastAttribution = {
          attribution: r.replaces.attribution,
          narrative: r.replaces.narrative,
          decision: r.replaces.decision,
          replacedAt: now,
          replacedBecause: r.because,
        };
        return {
          id: r.transitionId,
          old: JSON.stringify(r.replaces.attribution),
          past: JSON.stringify(past),
          props: attributionProperties(r.attribution, r.decision, r.narrative),
        };
      }),
    },
  );
  return records.map((r) => transitionFromProperties(r.get('t')));
}
