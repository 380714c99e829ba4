import type { Driver } from 'neo4j-driver';

/** The guest family of a Proxmox VMID, in the task transform's words. */
export type ProxmoxGuestKind = 'qemu' | 'lxc';

/**
 * VMID → guest family for the guests of one Proxmox cluster the graph knows
 * (`proxmox:<cluster>/qemu/<vmid>`, `…/lxc/<vmid>`), so an HA request or a vzdump, whose task type
 * does not say, lands on the right resource. A prefix seek on the unique `id`.
 */
export async function guestKindsOfCluster(driver: Driver, cluster: string): Promise<Map<string, ProxmoxGuestKind>> {
  const prefix = `proxmox:${cluster}/`;
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.id STARTS WITH $prefix AND r.kind IN ['vm', 'lxc'] RETURN r.id AS id`,
    { prefix },
    { routing: 'READ' },
  );
  const out = new Map<string, ProxmoxGuestKind>();
  for (const r of records) {
    const m = /\/(qemu|lxc)\/(\d+)$/.exec(r.get('id') as string);
    if (m) out.set(m[2]!, m[1] as ProxmoxGuestKind);
  }
  return out;
}
