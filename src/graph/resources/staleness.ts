/**
 * Staleness, never deletion. Only a complete, successful sync of a scope may call the marking
 * functions here (Cartography's cleanup after a partial fetch deleted valid data: aitia marks, and
 * only after a complete fetch). A resource seen again is un-marked by upsertResources.
 */
import type { Kind, Provider, ResourceRecord } from '../../model/index.js';
import { int, isoNow } from '../db/statements.js';
import { resourceFromProperties } from './read.js';
import type { Driver } from 'neo4j-driver';

/** A scope is an id prefix such as `proxmox:lab` (matched as `proxmox:lab/…`). */
function prefixOf(scope: string): string {
  return scope.endsWith('/') ? scope : `${scope}/`;
}

/**
 * Marks resources of the scope that the sync tagged `updateTag` did not touch: `missingSince`
 * (kept from the first time) and lifecycle `missing`. `kinds` narrows the scope (an import that
 * only carried VMs must not mark hosts). Destroyed resources are left alone.
 */
export async function markUnseenResourcesMissing(
  driver: Driver,
  options: { scope: string; updateTag: string; kinds?: readonly Kind[] | null; at?: string },
): Promise<{ marked: number; newlyMarked: number }> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource)
     WHERE r.id STARTS WITH $prefix AND coalesce(r.updateTag, '') <> $tag
       AND ($kinds IS NULL OR r.kind IN $kinds) AND coalesce(r.lifecycle, 'active') <> 'destroyed'
     WITH r, r.missingSince IS NULL AS fresh
     SET r.missingSince = coalesce(r.missingSince, datetime($at)),
        r.lifecycleBeforeMissing = CASE WHEN r.lifecycle = 'missing' THEN r.lifecycleBeforeMissing ELSE coalesce(r.lifecycle, 'active') END,
        r.lifecycle = 'missing'
     RETURN count(r) AS marked, sum(CASE WHEN fresh THEN 1 ELSE 0 END) AS newly`,
    {
      prefix: prefixOf(options.scope),
      tag: options.updateTag,
      kinds: options.kinds ?? null,
      at: options.at ?? isoNow(),
    },
  );
  return { marked: Number(records[0]?.get('marked') ?? 0), newlyMarked: Number(records[0]?.get('newly') ?? 0) };
}

/**
 * Records that resources were seen by the sync tagged `updateTag` without rewriting their state or
 * attributes (a guest the listing showed whose detail calls failed): their existence is confirmed,
 * so a complete sync must not mark them missing, and a missing mark is lifted.
 */
export async function markResourcesSeen(
  driver: Driver,
  ids: readonly string[],
  options: { updateTag: string; at?: string },
): Promise<number> {
  if (ids.length === 0) return 0;
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS id MATCH (r:Resource {id: id})
     SET r.updateTag = $tag, r.lastSeen = datetime($at), r.missingSince = null,
         r.lifecycle = CASE WHEN r.lifecycle = 'missing' THEN coalesce(r.lifecycleBeforeMissing, 'active') ELSE r.lifecycle END,
         r.lifecycleBeforeMissing = null
     RETURN count(r) AS n`,
    { ids: [...ids], tag: options.updateTag, at: options.at ?? isoNow() },
  );
  return Number(records[0]?.get('n') ?? 0);
}

/** Marks named resources missing (e.g. a placeholder superseded by the real cluster). */
export async function markResourcesMissing(
  driver: Driver,
  ids: readonly string[],
  at: string = isoNow(),
): Promise<number> {
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS id MATCH (r:Resource {id: id})
     SET r.missingSince = coalesce(r.missingSince, datetime($at)),
        r.lifecycleBeforeMissing = CASE WHEN r.lifecycle = 'missing' THEN r.lifecycleBeforeMissing ELSE coalesce(r.lifecycle, 'active') END,
        r.lifecycle = 'missing'
     RETURN count(r) AS n`,
    { ids: [...ids], at },
  );
  return Number(records[0]?.get('n') ?? 0);
}

/**
 * Observed edges asserted by `source` from resources of the scope: those the sync tagged
 * `updateTag` lose any `missingSince`; when `markUnseen` (a complete sync) the others get one.
 * `kinds` narrows to edges leaving resources of those kinds (what a partial-kind import covered).
 * Edges are marked like resources, not deleted, so what was once observed stays auditable.
 */
export async function refreshEdgeStaleness(
  driver: Driver,
  options: {
    scope: string;
    source: string;
    updateTag: string;
    markUnseen: boolean;
    kinds?: readonly Kind[] | null;
    at?: string;
  },
): Promise<{ marked: number; cleared: number }> {
  const { records } = await driver.executeQuery(
    `MATCH (a:Resource)-[e]->(:Resource)
     WHERE a.id STARTS WITH $prefix AND e.source = $source AND e.provenance = 'observed'
       AND ($kinds IS NULL OR a.kind IN $kinds)
     WITH e, coalesce(e.updateTag = $tag, false) AS seen
     WHERE (seen AND e.missingSince IS NOT NULL) OR (NOT seen AND $mark AND e.missingSince IS NULL)
     SET e.missingSince = CASE WHEN seen THEN null ELSE datetime($at) END
     RETURN sum(CASE WHEN seen THEN 0 ELSE 1 END) AS marked, sum(CASE WHEN seen THEN 1 ELSE 0 END) AS cleared`,
    {
      prefix: prefixOf(options.scope),
      source: options.source,
      tag: options.updateTag,
      mark: options.markUnseen,
      kinds: options.kinds ?? null,
      at: options.at ?? isoNow(),
    },
  );
  return { marked: Number(records[0]?.get('marked') ?? 0), cleared: Number(records[0]?.get('cleared') ?? 0) };
}

/** Resources a complete sync no longer saw, oldest first: for operators to confirm or clean up. */
export async function listMissingResources(
  driver: Driver,
  options: { provider?: Provider | null; scope?: string | null; first?: number } = {},
): Promise<ResourceRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.missingSince IS NOT NULL
       AND ($provider IS NULL OR r.provider = $provider)
       AND ($prefix IS NULL OR r.id STARTS WITH $prefix)
     RETURN properties(r) AS p ORDER BY r.missingSince, r.id LIMIT $first`,
    {
      provider: options.provider ?? null,
      prefix: options.scope ? prefixOf(options.scope) : null,
      first: int(Math.min(Math.max(options.first ?? 500, 1), 10_000)),
    },
    { routing: 'READ' },
  );
  return records.map((r) => resourceFromProperties(r.get('p')));
}
