import type { Driver } from 'neo4j-driver';
import type { Kind, Provider } from '../model/index.js';
import { toPlain } from './values.js';

/** What identifies a machine across providers, as ingest stored it (attributes `mac_addresses`, `smbios_uuid`, `serial_number`). */
export interface IdentityFacts {
  id: string;
  kind: Kind;
  provider: Provider;
  name: string;
  macs: string[];
  smbiosUuid: string | null;
  serial: string | null;
}

/** Machines (hosts, VMs, containers) of the polled and imported providers, optionally under some id prefixes. */
export async function listIdentityFacts(
  driver: Driver,
  options: { idPrefixes?: readonly string[] | null } = {},
): Promise<IdentityFacts[]> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource)
     WHERE r.kind IN ['host', 'vm', 'lxc'] AND r.provider IN ['proxmox', 'vcenter']
       AND ($prefixes IS NULL OR any(p IN $prefixes WHERE r.id STARTS WITH p))
     RETURN r.id AS id, r.kind AS kind, r.provider AS provider, r.name AS name,
            r.\`attr.mac_addresses\` AS macs, r.\`attr.smbios_uuid\` AS uuid, r.\`attr.serial_number\` AS serial
     ORDER BY r.id`,
    { prefixes: options.idPrefixes ? [...options.idPrefixes] : null },
    { routing: 'READ' },
  );
  return records.map((r) => {
    const macs = toPlain(r.get('macs'));
    return {
      id: r.get('id') as string,
      kind: r.get('kind') as Kind,
      provider: r.get('provider') as Provider,
      name: String(r.get('name') ?? ''),
      macs: Array.isArray(macs)
        ? macs.filter((m): m is string => typeof m === 'string')
        : typeof macs === 'string'
          ? [macs]
          : [],
      smbiosUuid: typeof r.get('uuid') === 'string' ? (r.get('uuid') as string) : null,
      serial: typeof r.get('serial') === 'string' ? (r.get('serial') as string) : null,
    };
  });
}
