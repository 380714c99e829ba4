import type { Driver } from 'neo4j-driver';
import { upsertEdges, withdrawInferredEdges } from '../../graph/edges.js';
import { type IdentityFacts, listIdentityFacts } from '../../graph/resources/queries.js';
import { newUpdateTag } from '../report.js';
import { identityKeys, matchIdentities } from './identity-match.js';
import { inferredEdgeOf, MANIFESTS_AS_SOURCE, resolveManifestsAs } from './manifests-as.js';

/**
 * The `manifests_as` resolver after every complete pass, incrementally. The tracker remembers each
 * machine's identity values (`smbios_uuid=…`, `mac_address=…`, `serial=…`, `name=…`) as the last
 * run saw them. A run reads the facts (one query), and when nothing changed it writes nothing. When
 * something did, the affected resources are those whose values changed (or that appeared or
 * vanished) plus every resource sharing one of their old or new values (a new holder can make a
 * value ambiguous, or a match conflicting); only edges touching them are re-asserted or withdrawn.
 * The first run of a process is a full run.
 */

export interface IdentityRun {
  /** `full` (first run), `incremental`, or `unchanged` (nothing to do). */
  mode: 'full' | 'incremental' | 'unchanged';
  /** Resources whose edges were reconsidered (all of them on a full run). */
  affected: number;
  created: number;
  withdrawn: number;
}

export interface IdentityTracker {
  /** Runs the resolver if any identity fact changed since the last run. Runs never overlap. */
  run(driver: Driver): Promise<IdentityRun>;
}

const fingerprint = (f: IdentityFacts) => identityKeys(f).sort().join('\n');

/** `idPrefixes` confines the tracker to some scopes (tests); default the whole graph. */
export function createIdentityTracker(options: { idPrefixes?: readonly string[] } = {}): IdentityTracker {
  const idPrefixes = options.idPrefixes ?? null;
  let known: Map<string, IdentityFacts> | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  async function runOnce(driver: Driver): Promise<IdentityRun> {
    const facts = await listIdentityFacts(driver, { idPrefixes });
    const now = new Map(facts.map((f) => [f.id, f]));
    if (!known) {
      const full = await resolveManifestsAs(driver, { idPrefixes });
      known = now;
      return { mode: 'full', affected: facts.length, created: full.created, withdrawn: full.withdrawn };
    }
    const before = known;
    const changed = new Set<string>();
    for (const [id, f] of now) if (!before.has(id) || fingerprint(before.get(id)!) !== fingerprint(f)) changed.add(id);
    for (const id of before.keys()) if (!now.has(id)) changed.add(id);
    if (changed.size === 0) return { mode: 'unchanged', affected: 0, created: 0, withdrawn: 0 };
    const values = new Set<string>();
    for (const id of changed)
      for (const f of [before.get(id), now.get(id)]) if (f) for (const k of identityKeys(f)) values.add(k);
    const affected = new Set(changed);
    for (const f of facts) if (identityKeys(f).some((k) => values.has(k))) affected.add(f.id);

    const updateTag = newUpdateTag('resolver');
    const edges = matchIdentities(facts)
      .matches.filter((m) => affected.has(m.fromId) || affected.has(m.toId))
      .map(inferredEdgeOf);
    const written = await upsertEdges(driver, edges, { updateTag });
    const { withdrawn } = await withdrawInferredEdges(driver, {
      source: MANIFESTS_AS_SOURCE,
      exceptTag: updateTag,
      touching: [...affected],
      idPrefixes,
    });
    known = now;
    return { mode: 'incremental', affected: affected.size, created: written.created, withdrawn };
  }

  return {
    run(driver) {
      const next = queue.then(() => runOnce(driver));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
