/**
 * Read queries over many resources: the filtered, paged listing, lookups ingest makes (ids stored,
 * ids by attribute, a host, guest kinds, identity facts) and the health summary of a scope.
 */
import {
  ATTRIBUTE_PREFIX,
  AttributeKeySchema,
  badInput,
  type Health,
  HEALTHS,
  isStateOf,
  type Kind,
  kindLabel,
  KINDS,
  type Lifecycle,
  type Provider,
  type ResourceRecord,
  STATES,
  CONDITION_TYPES,
  type ConditionType,
} from '../../model/index.js';
import type { Driver } from 'neo4j-driver';
import { resourceFromProperties } from './read.js';
import { int, toPlain, MAX_PAGE_SIZE } from '../db/statements.js';
import { depthQuantifier, impactHops } from '../traversal.js';

export interface ResourceFilter {
  kind?: Kind | null;
  state?: string | null;
  provider?: Provider | null;
  nameContains?: string | null;
  attribute?: { key: string; equals: unknown } | null;
  hasOpenCondition?: boolean | null;
  lifecycle?: Lifecycle | null;
}

/** Checks a filter and turns it into query parameters; bad values name their field. */
function filterParams(filter: ResourceFilter) {
  if (filter.kind != null && !(KINDS as readonly string[]).includes(filter.kind))
    throw badInput('filter.kind', `"${filter.kind}" is not a kind (${KINDS.join(', ')})`);
  if (filter.state != null) {
    if (filter.kind == null) {
      const anyKind = (Object.keys(STATES) as Kind[]).some((k) => isStateOf(k, filter.state!));
      if (!anyKind) throw badInput('filter.state', `"${filter.state}" is not a state of any kind`);
    } else if (!isStateOf(filter.kind, filter.state)) {
      throw badInput(
        'filter.state',
        `"${filter.state}" is not a ${filter.kind} state (allowed: ${STATES[filter.kind].join(', ')})`,
      );
    }
  }
  let attrKey: string | null = null;
  let attrValue: unknown = null;
  if (filter.attribute) {
    const key = AttributeKeySchema.safeParse(filter.attribute.key);
    if (!key.success) throw badInput('filter.attribute.key', key.error.issues[0]!.message);
    const v = filter.attribute.equals;
    if (v === null || (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')) {
      throw badInput('filter.attribute.equals', 'must be a string, number or boolean');
    }
    attrKey = ATTRIBUTE_PREFIX + key.data;
    attrValue = v;
  }
  return {
    state: filter.state ?? null,
    provider: filter.provider ?? null,
    nameContains: filter.nameContains ? filter.nameContains.toLowerCase() : null,
    attrKey,
    attrValue,
    hasOpen: filter.hasOpenCondition ?? null,
    lifecycle: filter.lifecycle ?? null,
  };
}

/** `r` is of `kind` (or any): its label, so the token lookup index serves the filter, not a property index. */
function kindIs(kind: Kind | null | undefined): string | null {
  if (kind == null) return null;
  if (!(KINDS as readonly string[]).includes(kind))
    throw badInput('kind', `"${kind}" is not a kind (${KINDS.join(', ')})`);
  return `r:${kindLabel(kind)}`;
}
const resourcesOf = (kind: Kind | null | undefined) => (kind ? `(${kindIs(kind)}&Resource)` : '(r:Resource)');

const WHERE = `
  ($state IS NULL OR r.state = $state)
  AND ($provider IS NULL OR r.provider = $provider)
  AND ($lifecycle IS NULL OR r.lifecycle = $lifecycle)
  AND ($nameContains IS NULL OR toLower(r.name) CONTAINS $nameContains)
  AND ($attrKey IS NULL OR r[$attrKey] = $attrValue)
  AND ($hasOpen IS NULL OR $hasOpen = EXISTS { MATCH (c:Condition) WHERE c.resourceId = r.id AND c.status = 'open' })`;

/** One page of resources ordered by id (keyset: `afterId` exclusive) plus the filter's total count. */
export async function listResources(
  driver: Driver,
  filter: ResourceFilter,
  page: { first: number; afterId?: string | null },
): Promise<{ nodes: ResourceRecord[]; hasNextPage: boolean; totalCount: number }> {
  if (!Number.isInteger(page.first) || page.first < 1 || page.first > MAX_PAGE_SIZE) {
    throw badInput('first', `must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${page.first}`);
  }
  const params = filterParams(filter);
  const [rows, count] = await Promise.all([
    driver.executeQuery(
      `MATCH ${resourcesOf(filter.kind)} WHERE ${WHERE} AND ($after IS NULL OR r.id > $after)
       RETURN properties(r) AS p ORDER BY r.id LIMIT $limit`,
      { ...params, after: page.afterId ?? null, limit: int(page.first + 1) },
      { routing: 'READ' },
    ),
    driver.executeQuery(`MATCH ${resourcesOf(filter.kind)} WHERE ${WHERE} RETURN count(r) AS n`, params, {
      routing: 'READ',
    }),
  ]);
  const all = rows.records.map((r) => resourceFromProperties(r.get('p')));
  return {
    nodes: all.slice(0, page.first),
    hasNextPage: all.length > page.first,
    totalCount: Number(count.records[0]?.get('n') ?? 0),
  };
}

/**
 * Ids of resources of one provider and kind whose attribute `key` equals `value`, e.g. the Proxmox
 * cluster whose `api_url` is the configured one (to hang a condition on it when the API is down).
 */
export async function findResourceIdsByAttribute(
  driver: Driver,
  query: { provider: Provider; kind: Kind; key: string; value: string | number | boolean },
): Promise<string[]> {
  if (!AttributeKeySchema.safeParse(query.key).success)
    throw new Error(`not an attribute key: ${JSON.stringify(query.key)}`);
  const { records } = await driver.executeQuery(
    `MATCH ${resourcesOf(query.kind)} WHERE r.provider = $provider AND r[$prop] = $value
     RETURN r.id AS id ORDER BY r.lastSeen DESC, r.id`,
    { provider: query.provider, prop: ATTRIBUTE_PREFIX + query.key, value: query.value },
    { routing: 'READ' },
  );
  return records.map((r) => r.get('id') as string);
}

/** Which of these ids already exist as resources. */
export async function existingResourceIds(driver: Driver, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { records } = await driver.executeQuery(
    'UNWIND $ids AS id MATCH (r:Resource {id: id}) RETURN r.id AS id',
    { ids: [...new Set(ids)] },
    { routing: 'READ' },
  );
  return new Set(records.map((r) => r.get('id') as string));
}

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
    `MATCH (r:Host|Vm|Lxc)
     WHERE r:Resource AND r.provider IN ['proxmox', 'vcenter']
       AND ($prefixes IS NULL OR any(p IN $prefixes WHERE r.id STARTS WITH p))
     // Only values a provider wrote (providerAttrKeys): an agent's serial_number matches nothing.
     WITH r, coalesce(r.providerAttrKeys, []) AS observed
     RETURN r.id AS id, r.kind AS kind, r.provider AS provider, r.name AS name,
            CASE WHEN 'mac_addresses' IN observed THEN r.\`attr.mac_addresses\` END AS macs,
            CASE WHEN 'smbios_uuid' IN observed THEN r.\`attr.smbios_uuid\` END AS uuid,
            CASE WHEN 'serial_number' IN observed THEN r.\`attr.serial_number\` END AS serial
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

export interface HealthScope {
  kind?: Kind | null;
  provider?: Provider | null;
  /** Only this resource and its blast radius (dependents within 10 hops). */
  underId?: string | null;
}

/** Counts by health (every health listed, zeros included) and the resources needing attention. */
export async function healthSummary(
  driver: Driver,
  scope: HealthScope,
): Promise<{
  total: number;
  counts: Array<{ health: Health; count: number }>;
  attention: ResourceRecord[];
  problems: Array<{ type: ConditionType; count: number }>;
  suppressed: number;
}> {
  const scoped = scope.underId
    ? `MATCH (root:Resource {id: $under})
       OPTIONAL MATCH (root)${impactHops('dependents', depthQuantifier(10))}(d:Resource)
       WITH root, collect(DISTINCT d) AS reached UNWIND reached + [root] AS r WITH DISTINCT r`
    : `MATCH ${resourcesOf(scope.kind)}`;
  const params = { under: scope.underId ?? null, provider: scope.provider ?? null };
  const ofKind = kindIs(scope.kind) ?? 'true';
  const { records } = await driver.executeQuery(
    `${scoped}
     WITH r WHERE r IS NOT NULL AND ${ofKind} AND ($provider IS NULL OR r.provider = $provider)
     WITH coalesce(r.health, 'unknown') AS health, r
     WITH health, count(r) AS n,
          collect(CASE WHEN health <> 'healthy' THEN properties(r) END)[..200] AS worst
     RETURN health, n, worst`,
    params,
    { routing: 'READ' },
  );
  const counts = new Map<string, number>();
  const attention: ResourceRecord[] = [];
  for (const rec of records) {
    counts.set(rec.get('health') as string, Number(rec.get('n')));
    for (const p of rec.get('worst') as unknown[]) if (p) attention.push(resourceFromProperties(p));
  }
  // Open conditions in the same scope: the paging ones by type, the suppressed ones counted apart.
  const conditions = await driver.executeQuery(
    `${scoped}
     WITH r WHERE r IS NOT NULL AND ${ofKind} AND ($provider IS NULL OR r.provider = $provider)
     MATCH (c:Condition {resourceId: r.id, status: 'open'})
     RETURN c.type AS type, coalesce(c.suppressed, false) AS suppressed, count(c) AS n`,
    params,
    { routing: 'READ' },
  );
  const problems = new Map<ConditionType, number>();
  let suppressed = 0;
  for (const rec of conditions.records) {
    const n = Number(rec.get('n'));
    if (rec.get('suppressed')) suppressed += n;
    else problems.set(rec.get('type') as ConditionType, (problems.get(rec.get('type') as ConditionType) ?? 0) + n);
  }
  const rank: Record<string, number> = { unhealthy: 0, degraded: 1, unknown: 2, healthy: 3 };
  attention.sort((a, b) => (rank[a.health] ?? 9) - (rank[b.health] ?? 9) || a.id.localeCompare(b.id));
  return {
    total: [...counts.values()].reduce((a, b) => a + b, 0),
    counts: HEALTHS.map((health) => ({ health, count: counts.get(health) ?? 0 })),
    attention: attention.slice(0, 200),
    problems: CONDITION_TYPES.filter((t) => problems.has(t)).map((type) => ({ type, count: problems.get(type)! })),
    suppressed,
  };
}
