import { type EdgeInput, type Kind, type MappedState, resourceId } from '../../model/index.js';
import { cleanProviderText, PROVIDER_NAME_MAX } from '../../model/provider-text.js';
import type { SkippedItem } from '../report.js';
import { type RawRow, type ResourceRow, validRows } from '../row-validation.js';
import { clusterFacts, datastoreFacts, Facts, hostFacts, list, vmFacts } from './inventory-facts.js';
import { parseMoRef, readManagedObjects } from './vmomi.js';
import type { MoRef } from './payload.js';

/** Managed object types imported, and the kind and id segment each becomes. */
const TYPES: Readonly<Record<string, { kind: Kind; segment: string; facts: (f: Facts) => MappedState<string> }>> = {
  VirtualMachine: { kind: 'vm', segment: 'vm', facts: vmFacts },
  HostSystem: { kind: 'host', segment: 'host', facts: hostFacts },
  ClusterComputeResource: { kind: 'cluster', segment: 'cluster', facts: clusterFacts },
  Datastore: { kind: 'storage', segment: 'datastore', facts: datastoreFacts },
};

/** Rows and edges of one document, plus what was left out and why. */
export interface VcenterInventory {
  /** `vcenter:<server>`: id prefix and the source of every observed edge. */
  scope: string;
  rows: ResourceRow[];
  edges: EdgeInput[];
  /** Kinds the document carried at least one object of: the only ones a complete import may mark missing. */
  kinds: Kind[];
  objects: number;
  /** Objects of types not imported (folders, networks, resource pools). */
  ignored: number;
  skipped: SkippedItem[];
  problems: string[];
}

/** The resource id of a reference to an imported type, else null. */
export function vcenterId(server: string, ref: MoRef | null): string | null {
  const spec = ref ? TYPES[ref.type] : undefined;
  return ref && spec ? resourceId('vcenter', server, spec.segment, ref.value) : null;
}

/**
 * Pure: a vCenter inventory document (VMOMI JSON or PascalCase) → rows and observed edges.
 * Ids `vcenter:<server>/vm|host|cluster|datastore/<moref>`. RUNS_ON vm → host (runtime.host),
 * MEMBER_OF host → cluster (the host's parent, or the cluster's `host` list), STORED_ON vm →
 * datastore (the VM's `datastore` list).
 */
export function transformVcenterInventory(document: unknown, server: string): VcenterInventory {
  const scope = `vcenter:${server}`;
  const { objects, unreadable } = readManagedObjects(document);
  const skipped: SkippedItem[] = [];
  const problems: string[] = [];
  if (unreadable > 0) {
    problems.push(`${unreadable} entries are neither ObjectContent nor managed objects`);
    skipped.push({ what: 'row', id: null, reason: problems[0]! });
  }
  const edges: EdgeInput[] = [];
  const edge = (type: EdgeInput['type'], fromId: string | null, toId: string | null) => {
    if (fromId && toId) edges.push({ type, fromId, toId, provenance: 'observed', source: scope });
  };
  const kinds = new Set<Kind>();
  const builders: Array<() => RawRow> = [];
  let ignored = 0;
  for (const o of objects) {
    const spec = TYPES[o.ref.type];
    if (!spec) {
      ignored++;
      continue;
    }
    kinds.add(spec.kind);
    builders.push(() => {
      const id = resourceId('vcenter', server, spec.segment, o.ref.value);
      const facts = new Facts(o);
      const mapped = spec.facts(facts);
      if (spec.kind === 'vm') {
        edge('RUNS_ON', id, vcenterId(server, parseMoRef(facts.first('runtime.host', 'summary.runtime.host'))));
        for (const ds of list(o.get('datastore'))) edge('STORED_ON', id, vcenterId(server, parseMoRef(ds)));
      } else if (spec.kind === 'host') {
        const parent = parseMoRef(o.get('parent'));
        if (parent?.type === 'ClusterComputeResource') edge('MEMBER_OF', id, vcenterId(server, parent));
      } else if (spec.kind === 'cluster') {
        for (const h of list(o.get('host'))) edge('MEMBER_OF', vcenterId(server, parseMoRef(h)), id);
      }
      const rawName = facts.first('name', 'summary.config.name', 'summary.name', 'config.name');
      // Whoever can name a VM writes this: data, cleaned of controls and capped (provider-text.ts).
      const clean = typeof rawName === 'string' ? cleanProviderText(rawName, PROVIDER_NAME_MAX) : '';
      const name = clean !== '' ? clean : o.ref.value;
      return {
        row: {
          id,
          kind: spec.kind,
          provider: 'vcenter',
          name,
          state: mapped.state,
          rawState: mapped.rawState,
          attributes: facts.attrs,
        },
        clear: facts.clear,
        coarse: false,
      };
    });
  }
  const rows = validRows(builders, skipped, problems);
  const unique = new Map(edges.map((e) => [`${e.type}|${e.fromId}|${e.toId}`, e]));
  return {
    scope,
    rows,
    edges: [...unique.values()],
    kinds: [...kinds].sort(),
    objects: objects.length,
    ignored,
    skipped,
    problems,
  };
}
