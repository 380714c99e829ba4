/**
 * What the demo owns in a shared Neo4j: the resources its own passes wrote and no one has observed
 * since. Each demo pass stamps what it wrote (`demoTag` = the pass's updateTag, `demoSeen` = its
 * lastSeen); every real observation rewrites `updateTag` (a provider pass) or `lastSeen` (a
 * declaration, a pass that only confirms), so a resource a real source has seen is no longer the
 * demo's, whatever its id. Nothing here trusts an id prefix or a scope marker: a real cluster
 * named like the demo's lives under the same prefix. resetScope, last, deletes a whole scope
 * whoever wrote it: only tests clean up that way.
 */
import { badInput } from '../../model/index.js';
import type { Driver } from 'neo4j-driver';

/** A resource is the demo's: stamped by a demo pass and seen by nothing else since. */
const OWNED = 'r.demoTag IS NOT NULL AND r.demoTag = r.updateTag AND r.demoSeen = r.lastSeen';

/** Stamps the resources one demo pass wrote (tagged `updateTag`) as the demo's. Returns how many. */
export async function markDemoOwned(driver: Driver, updateTag: string): Promise<number> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource {updateTag: $tag}) SET r.demoTag = $tag, r.demoSeen = r.lastSeen RETURN count(r) AS n`,
    { tag: updateTag },
  );
  return Number(records[0]?.get('n') ?? 0);
}

/** Resources under `prefix` (or among `ids`) that are not the demo's: how many, and the first id. */
export async function foreignInDemoScope(
  driver: Driver,
  prefix: string,
  ids: readonly string[],
): Promise<{ count: number; example: string | null }> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE (r.id STARTS WITH $prefix OR r.id IN $ids) AND NOT (${OWNED})
     RETURN count(r) AS n, min(r.id) AS example`,
    { prefix, ids: [...ids] },
  );
  const count = Number(records[0]?.get('n') ?? 0);
  return { count, example: count > 0 ? String(records[0]!.get('example')) : null };
}

/**
 * Deletes the demo's resources under `prefix` (or among `ids`) and what hangs off them: nodes whose
 * `resourceId` or `hostId` is one of them and no kept resource (events, transitions, conditions,
 * checks, feed entries), and their ingest cursors (`<id>#…`). `everything`: the database is the demo's own (its embedded
 * Neo4j), so all of the scope goes, marked or not. Returns the nodes deleted.
 */
export async function resetDemoScope(
  driver: Driver,
  prefix: string,
  ids: readonly string[],
  options: { everything?: boolean } = {},
): Promise<number> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE (r.id STARTS WITH $prefix OR r.id IN $ids) AND ($everything OR (${OWNED}))
     RETURN collect(r.id) AS owned`,
    { prefix, ids: [...ids], everything: options.everything ?? false },
  );
  const owned = (records[0]?.get('owned') as string[] | undefined) ?? [];
  let deleted = 0;
  for (;;) {
    // A node that also belongs to a resource kept (an event of an adopted guest on a demo host) stays.
    const res = await driver.executeQuery(
      `MATCH (n) WHERE n.id IN $owned OR n.resourceId IN $owned OR n.hostId IN $owned
          OR (n:IngestCursor AND any(o IN $owned WHERE n.id STARTS WITH o + '#'))
       WITH n WHERE n.id IN $owned
          OR NOT EXISTS { MATCH (k:Resource) WHERE k.id IN [n.resourceId, n.hostId] AND NOT k.id IN $owned }
       WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n`,
      { owned },
    );
    const n = Number(res.records[0]?.get('n') ?? 0);
    deleted += n;
    if (n === 0) break;
  }
  // The scope marker of earlier versions claimed the whole prefix; ownership is per node now.
  await driver.executeQuery('MATCH (m:DemoScope {prefix: $prefix}) DELETE m', { prefix });
  return deleted;
}

/**
 * Deletes everything of one scope: resources whose id starts with one of `prefixes` or is one of
 * `ids`, and the events, transitions, conditions, checks and cursors that belong to them, whoever
 * wrote them. Only for tests' clean-up: the demo deletes only its own (resetDemoScope).
 * Refuses a prefix that is not a whole scope.
 */
export async function resetScope(
  driver: Driver,
  prefixes: readonly string[],
  ids: readonly string[] = [],
): Promise<number> {
  for (const p of prefixes)
    if (!/^(proxmox|vcenter|manual):[^\s]+\/$/.test(p))
      throw badInput('prefixes', `${p} must be a scope ending in / (e.g. proxmox:homelab/)`);
  let deleted = 0;
  for (;;) {
    const { records } = await driver.executeQuery(
      `MATCH (n) WHERE any(p IN $prefixes WHERE n.id STARTS WITH p OR n.resourceId STARTS WITH p OR n.hostId STARTS WITH p)
          OR n.id IN $ids OR n.resourceId IN $ids
       WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n`,
      { prefixes: [...prefixes], ids: [...ids] },
    );
    const n = Number(records[0]?.get('n') ?? 0);
    deleted += n;
    if (n === 0) return deleted;
  }
}

/**
 * Deletes the approvals an earlier demo run left on its resources (under `prefix` or among `ids`),
 * with their grants' redeems and authorizations, so a replay leaves exactly its own. Call it only
 * once the scope is known to be the demo's (runDemo refuses a scope holding anyone else's).
 */
export async function removeDemoApprovals(driver: Driver, prefix: string, ids: readonly string[]): Promise<number> {
  const { records } = await driver.executeQuery(
    `MATCH (a:Approval) WHERE a.targetId STARTS WITH $prefix OR a.targetId IN $ids
     OPTIONAL MATCH (g:GrantRedeem {approvalId: a.id})
     OPTIONAL MATCH (x:ActionAuthorized {approvalId: a.id})
     WITH collect(DISTINCT a) + collect(DISTINCT g) + collect(DISTINCT x) AS gone
     UNWIND gone AS n DETACH DELETE n RETURN count(*) AS n`,
    { prefix, ids: [...ids] },
  );
  return Number(records[0]?.get('n') ?? 0);
}
