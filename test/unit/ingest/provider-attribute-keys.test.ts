import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClusterResources, parseClusterStatus } from '../../../src/ingest/proxmox/inventory-parse.js';
import { transformProxmoxInventory, type GuestDetail } from '../../../src/ingest/proxmox/inventory-transform.js';
import { vcenterServiceRow } from '../../../src/ingest/vcenter/adapter-condition.js';
import { transformVcenterInventory } from '../../../src/ingest/vcenter/inventory-transform.js';
import { providerAttributeKeysOf, type Kind, type Provider } from '../../../src/model/index.js';
import { FIXTURES, readFixture } from '../../support/fixtures.js';

/*
 * One source of truth for what a provider can report: run the transforms over every inventory
 * fixture and check each key they emit (written or cleared) is in PROVIDER_ATTRIBUTE_KEYS for its
 * provider and kind — so every one is reserved from agents.
 */

type Row = { kind: Kind; provider: Provider; attributes?: Record<string, unknown> | undefined };

function outside(rows: ReadonlyArray<{ row: Row; clear: readonly string[] }>): string[] {
  return rows.flatMap(({ row, clear }) =>
    [...Object.keys(row.attributes ?? {}), ...clear]
      .filter((k) => !providerAttributeKeysOf(row.provider, row.kind).includes(k))
      .map((k) => `${row.provider} ${row.kind}: ${k}`),
  );
}

const lab = (rel: string) => (readFixture(`proxmox/cluster-lab/${rel}`) as { data: unknown }).data;

/** Every guest of the lab with its status, config and (where recorded) agent ping answer. */
function labDetails(): Map<string, GuestDetail> {
  const details = new Map<string, GuestDetail>();
  for (const node of ['pve1', 'pve2', 'pve3']) {
    for (const file of readdirSync(join(FIXTURES, 'proxmox/cluster-lab', node))) {
      const m = /^(qemu|lxc)-(\d+)-status-current\.json$/.exec(file);
      if (!m) continue;
      const [, type, vmid] = m;
      const ping = readdirSync(join(FIXTURES, 'proxmox/cluster-lab', node)).find((f) =>
        f.startsWith(`${type}-${vmid}-agent-ping`),
      );
      details.set(`${type}/${vmid}`, {
        status: lab(`${node}/${file}`),
        config: lab(`${node}/${type}-${vmid}-config.json`),
        failed: false,
        ping:
          ping === undefined
            ? null
            : ping.includes('http500')
              ? { ok: false, status: 500, message: 'x' }
              : { ok: true },
      });
    }
  }
  return details;
}

function labInventory(details: Map<string, GuestDetail>) {
  const status = parseClusterStatus(lab('cluster-status.json'));
  const resources = parseClusterResources(lab('cluster-resources.json'));
  if (!status.ok || !resources.ok) throw new Error('fixtures do not parse');
  return transformProxmoxInventory({
    apiUrl: 'https://pve1.lab:8006',
    status: status.value,
    resources: resources.value,
    details,
  });
}

describe('every key a transform emits is in the reserved catalogue of its provider and kind', () => {
  it('proxmox: the lab with full details, and with none (list-only rows)', () => {
    for (const details of [labDetails(), new Map<string, GuestDetail>()]) {
      const inv = labInventory(details);
      expect(inv.rows.length).toBeGreaterThan(10);
      expect(new Set(inv.rows.map((r) => r.resource.kind))).toEqual(
        new Set(['cluster', 'host', 'storage', 'vm', 'lxc']),
      );
      expect(outside(inv.rows.map((r) => ({ row: r.resource, clear: r.clear })))).toEqual([]);
    }
    // The keys the gate and the resolver read are among them.
    const emitted = new Set(labInventory(labDetails()).rows.flatMap((r) => Object.keys(r.resource.attributes ?? {})));
    for (const k of ['qemu_guest_agent', 'serial_number', 'smbios_uuid', 'mac_addresses', 'hastate', 'lock'])
      expect(emitted.has(k) || labInventory(new Map()).rows.some((r) => r.clear.includes(k))).toBe(true);
  });

  it.each(['inventory-vmomi.json', 'inventory-pascal.json'])('vcenter: %s', (file) => {
    const inv = transformVcenterInventory(readFixture(`vcenter/${file}`), 'vc.lab');
    expect(new Set(inv.rows.map((r) => r.resource.kind))).toEqual(new Set(['cluster', 'host', 'storage', 'vm']));
    expect(outside(inv.rows.map((r) => ({ row: r.resource, clear: r.clear })))).toEqual([]);
  });

  it('the vCenter server row (placeholders are typed against the catalogue with satisfies)', () => {
    const server = vcenterServiceRow('vc.lab', {
      url: 'https://vc.lab/sdk',
      fullName: 'VMware vCenter Server 8.0.2',
      version: '8.0.2',
      apiVersion: '8.0.2.0',
    });
    expect(outside([{ row: server, clear: [] }])).toEqual([]);
  });
});
