/**
 * What the transitions of a window say about what aitia could know: counts by confidence and by
 * why not (`unknownReason`), in one statement on the observedAt index.
 */
import type { Driver } from 'neo4j-driver';
import type { AttributionConfidence, UnknownReason } from '../../model/index.js';
import { toPlain } from '../db/statements.js';

export interface TransitionCoverageCounts {
  transitions: number;
  byConfidence: Array<{ confidence: AttributionConfidence; count: number }>;
  byUnknownBecause: Array<{ reason: UnknownReason; count: number }>;
  /** none/medium transitions stored before unknownBecause existed. */
  unclassified: number;
}

/** Counts of transitions observed in [since, until], of one source (`proxmox:lab`) or all. */
export async function transitionCoverageCounts(
  driver: Driver,
  input: { since: string; until: string; source: string | null },
): Promise<TransitionCoverageCounts> {
  const { records } = await driver.executeQuery(
    `MATCH (t:Transition)
     WHERE t.observedAt >= datetime($since) AND t.observedAt <= datetime($until)
       AND ($prefix IS NULL OR t.resourceId STARTS WITH $prefix)
     RETURN t.confidence AS confidence, t.unknownReason AS reason, count(*) AS n`,
    { since: input.since, until: input.until, prefix: input.source ? `${input.source}/` : null },
    { routing: 'READ' },
  );
  const rows = records.map((r) => ({
    confidence: String(r.get('confidence')) as AttributionConfidence,
    reason: (r.get('reason') as UnknownReason | null) ?? null,
    n: Number(toPlain(r.get('n'))),
  }));
  const sum = <K extends string>(key: (r: (typeof rows)[number]) => K | null) => {
    const m = new Map<K, number>();
    for (const r of rows) {
      const k = key(r);
      if (k !== null) m.set(k, (m.get(k) ?? 0) + r.n);
    }
    return [...m].sort(([a], [b]) => a.localeCompare(b));
  };
  return {
    transitions: rows.reduce((s, r) => s + r.n, 0),
    byConfidence: sum((r) => r.confidence).map(([confidence, count]) => ({ confidence, count })),
    byUnknownBecause: sum((r) => r.reason).map(([reason, count]) => ({ reason, count })),
    unclassified: rows
      .filter((r) => r.reason === null && (r.confidence === 'none' || r.confidence === 'medium'))
      .reduce((s, r) => s + r.n, 0),
  };
}
