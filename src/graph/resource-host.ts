import type { Driver } from 'neo4j-driver';

/** The machine a workload runs on: its resource id and name (the Proxmox node / ESXi host name). */
export interface ResourceHost {
  hostId: string;
  node: string;
}

/**
 * The host a resource RUNS_ON now (observed edges only: a declared one is an agent's claim), or
 * null. The correlator uses it to look for provider-level activity on that node (`low`).
 */
export async function hostOf(driver: Driver, resourceId: string): Promise<ResourceHost | null> {
  const { records } = await driver.executeQuery(
    `MATCH (:Resource {id: $id})-[e:RUNS_ON]->(h:Resource)
     WHERE e.missingSince IS NULL AND coalesce(e.provenance, 'observed') = 'observed'
     RETURN h.id AS hostId, h.name AS node ORDER BY e.lastSeen DESC LIMIT 1`,
    { id: resourceId },
    { routing: 'READ' },
  );
  const r = records[0];
  return r ? { hostId: r.get('hostId') as string, node: String(r.get('node')) } : null;
}
