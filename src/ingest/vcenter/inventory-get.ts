import { refXml, textXml, type Ref, type VsphereClient } from './client.js';
import { decodeAll } from './soap-decode.js';
import { child, escapeXml } from './xml.js';

/**
 * Reading the inventory: a ContainerView over the root folder for the four imported types, one
 * PropertyCollector.RetrievePropertiesEx with the properties the transforms read (see
 * inventory-facts.ts), continued with ContinueRetrievePropertiesEx until no token remains, then
 * the view is destroyed. The answer is the ObjectContent list in VMOMI JSON.
 */

/** Property paths per managed object type: only those the transforms read. */
export const INVENTORY_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  VirtualMachine: [
    'name',
    'runtime.powerState',
    'runtime.connectionState',
    'runtime.host',
    'config.uuid',
    'config.instanceUuid',
    'config.template',
    'config.guestId',
    'config.hardware.device',
    'guest.hostName',
    'guest.ipAddress',
    'guest.net',
    'summary.config.numCpu',
    'summary.config.memorySizeMB',
    'datastore',
  ],
  HostSystem: [
    'name',
    'parent',
    'runtime.connectionState',
    'runtime.powerState',
    'runtime.inMaintenanceMode',
    'hardware.systemInfo',
    'summary.hardware',
    'config.product.version',
    'config.network.pnic',
    'config.network.vnic',
  ],
  ClusterComputeResource: ['name', 'overallStatus', 'summary', 'host'],
  Datastore: ['name', 'summary'],
};

function filterSpec(view: Ref): string {
  const propSets = Object.entries(INVENTORY_PROPERTIES)
    .map(
      ([type, paths]) =>
        `<propSet>${textXml('type', type)}${paths.map((p) => textXml('pathSet', p)).join('')}</propSet>`,
    )
    .join('');
  const traverse =
    '<selectSet xsi:type="TraversalSpec"><name>view</name><type>ContainerView</type><path>view</path><skip>false</skip></selectSet>';
  return `<specSet>${propSets}<objectSet>${refXml('obj', view)}<skip>true</skip>${traverse}</objectSet></specSet>`;
}

/** What one full read returned, and how many pages it took. */
export interface InventoryRead {
  objects: unknown[];
  pages: number;
}

/** Reads every VM, host, cluster and datastore; any failure throws (the pass is then not complete). */
export async function readInventory(
  client: VsphereClient,
  options: { pageSize?: number } = {},
): Promise<InventoryRead> {
  const sc = await client.serviceContent();
  const types = Object.keys(INVENTORY_PROPERTIES)
    .map((t) => textXml('type', t))
    .join('');
  const created = await client.call(
    'CreateContainerView',
    sc.viewManager,
    refXml('container', sc.rootFolder) + types + textXml('recursive', true),
  );
  const rv = child(created, 'returnval');
  const view: Ref = { type: rv?.attrs.type ?? 'ContainerView', value: rv?.text.trim() ?? '' };
  const objects: unknown[] = [];
  let pages = 0;
  try {
    const options_ = `<options>${textXml('maxObjects', options.pageSize ?? 500)}</options>`;
    let answer = await client.call('RetrievePropertiesEx', sc.propertyCollector, filterSpec(view) + options_);
    for (;;) {
      pages++;
      const result = child(answer, 'returnval');
      if (!result) break;
      objects.push(...decodeAll(result, 'objects'));
      const token = child(result, 'token')?.text.trim();
      if (!token) break;
      answer = await client.call(
        'ContinueRetrievePropertiesEx',
        sc.propertyCollector,
        `<token>${escapeXml(token)}</token>`,
      );
    }
  } finally {
    await client.call('DestroyView', view).catch(() => undefined);
  }
  return { objects, pages };
}
