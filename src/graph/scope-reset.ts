import type { Driver } from 'neo4j-driver';
import { badInput } from '../errors.js';

/**
 * Deletes everything of one demo scope: resources whose id starts with one of `prefixes` or is one
 * of `ids`, and the
 * events, transitions, conditions, checks and cursors that belong to them. Used only by the demo,
 * which replays its recorded day from a clean slate; refuses a prefix that is not a whole scope.
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
