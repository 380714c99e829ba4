import type { Driver } from 'neo4j-driver';
import { upsertEdges, withdrawInferredEdges } from '../../graph/edges.js';
import { listIdentityFacts } from '../../graph/resources/queries.js';
import type { EdgeInput } from '../../model/index.js';
import { newUpdateTag } from '../report.js';
import {
  type AmbiguousValue,
  IDENTITY_RULES,
  type IdentityMatch,
  type IdentityRule,
  matchIdentities,
} from './identity-match.js';

export { withdrawInferredEdges } from '../../graph/edges.js';
export { matchIdentities, IDENTITY_RULES, type IdentityMatch, type IdentityRule } from './identity-match.js';

/** The source every edge of this resolver carries; withdrawing by it never touches observed edges. */
export const MANIFESTS_AS_SOURCE = 'resolver:manifests_as';

/** What one resolver run matched, wrote and withdrew. */
/** The inferred MANIFESTS_AS edge a match asserts, under the resolver's name. */
export function inferredEdgeOf(m: IdentityMatch): EdgeInput {
  return {
    type: 'MANIFESTS_AS',
    fromId: m.fromId,
    toId: m.toId,
    provenance: 'inferred',
    source: MANIFESTS_AS_SOURCE,
    rule: m.rule,
    confidence: m.confidence,
    evidence: m.evidence,
  };
}

export interface ManifestsAsResult {
  matches: IdentityMatch[];
  ambiguous: AmbiguousValue[];
  written: number;
  created: number;
  /** Inferred edges of earlier runs that this run no longer infers, removed. */
  withdrawn: number;
  skipped: Array<{ edge: EdgeInput; reason: string }>;
}

/**
 * Runs the resolver over the graph: reads identity facts of machines, matches them across
 * providers (pure), upserts the MANIFESTS_AS edges as `inferred` with rule, confidence and evidence,
 * then withdraws its own edges from earlier runs that no longer match. Identity is never a merge:
 * each provider keeps its resource. `idPrefixes` confines a run (and its withdrawals) to some scopes.
 */
export async function resolveManifestsAs(
  driver: Driver,
  options: { idPrefixes?: readonly string[] | null; rules?: readonly IdentityRule[]; batchSize?: number } = {},
): Promise<ManifestsAsResult> {
  const facts = await listIdentityFacts(driver, { idPrefixes: options.idPrefixes ?? null });
  const { matches, ambiguous } = matchIdentities(facts, options.rules ?? IDENTITY_RULES);
  const updateTag = newUpdateTag('resolver');
  const edges = matches.map(inferredEdgeOf);
  const written = await upsertEdges(driver, edges, { updateTag, batchSize: options.batchSize });
  // A run limited to some rules only withdraws edges it could have re-asserted.
  let withdrawn = 0;
  for (const rule of options.rules ? [...options.rules] : [null]) {
    const res = await withdrawInferredEdges(driver, {
      source: MANIFESTS_AS_SOURCE,
      rule,
      exceptTag: updateTag,
      idPrefixes: options.idPrefixes ?? null,
    });
    withdrawn += res.withdrawn;
  }
  return {
    matches,
    ambiguous,
    written: written.written,
    created: written.created,
    withdrawn,
    skipped: written.skipped,
  };
}
