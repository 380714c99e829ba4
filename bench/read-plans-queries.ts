/**
 * The reads bench/read-plans.ts profiles: each as it was under migration 1's indexes on
 * kind/provider/updateTag (`before`) and as the code sends it now (`after`, when it changed).
 * Parameters match the seeded graph: scopes `proxmox:lab/` (50,000) and `vcenter:vc/` (5,000).
 */
export interface Read {
  name: string;
  before: string;
  after?: string;
  params: Record<string, unknown>;
}

const OLD_WHERE = `
  ($kind IS NULL OR r.kind = $kind)
  AND ($state IS NULL OR r.state = $state)
  AND ($provider IS NULL OR r.provider = $provider)
  AND ($lifecycle IS NULL OR r.lifecycle = $lifecycle)
  AND ($nameContains IS NULL OR toLower(r.name) CONTAINS $nameContains)
  AND ($attrKey IS NULL OR r[$attrKey] = $attrValue)
  AND ($hasOpen IS NULL OR $hasOpen = EXISTS { MATCH (c:Condition) WHERE c.resourceId = r.id AND c.status = 'open' })`;
const NEW_WHERE = OLD_WHERE.replace('($kind IS NULL OR r.kind = $kind)\n  AND ', '');
const filter = (f: Record<string, unknown>) => ({
  kind: null,
  state: null,
  provider: null,
  lifecycle: null,
  nameContains: null,
  attrKey: null,
  attrValue: null,
  hasOpen: null,
  ...f,
});
const page = `RETURN properties(r) AS p ORDER BY r.id LIMIT 51`;
const list = (name: string, label: string | null, f: Record<string, unknown>, what = page): Read => ({
  name,
  before: `MATCH (r:Resource) WHERE ${OLD_WHERE} AND ($after IS NULL OR r.id > $after) ${what}`,
  after: `MATCH ${label ? `(r:${label}&Resource)` : '(r:Resource)'} WHERE ${NEW_WHERE} AND ($after IS NULL OR r.id > $after) ${what}`,
  params: { ...filter(f), after: null },
});

const missingState = (scope: string): Read => ({
  name: `resourcesMissingStateCondition (pass ${scope})`,
  before: `MATCH (r:Resource) WHERE r.updateTag = $tag AND r.state = $state
       AND NOT EXISTS { MATCH (c:Condition {resourceId: r.id, type: $type, status: 'open'}) }
     RETURN r.id AS id ORDER BY id`,
  after: `MATCH (r:Resource) WHERE r.id STARTS WITH $prefix AND r.state = $state AND r.updateTag = $tag
       AND NOT EXISTS { MATCH (c:Condition {resourceId: r.id, type: $type, status: 'open'}) }
     RETURN r.id AS id ORDER BY id`,
  params: { tag: `plans-${scope}`, prefix: `${scope}/`, state: 'paused_io_error', type: 'paused_io_error' },
});

const identity = (prefixes: string[] | null): Read => {
  const rest = `AND r.provider IN ['proxmox', 'vcenter']
       AND ($prefixes IS NULL OR any(p IN $prefixes WHERE r.id STARTS WITH p))
     WITH r, coalesce(r.providerAttrKeys, []) AS observed
     RETURN r.id AS id, r.kind AS kind, r.provider AS provider, r.name AS name,
            CASE WHEN 'mac_addresses' IN observed THEN r.\`attr.mac_addresses\` END AS macs
     ORDER BY r.id`;
  return {
    name: `listIdentityFacts (prefixes ${prefixes ? prefixes.join() : 'none'})`,
    before: `MATCH (r:Resource) WHERE r.kind IN ['host', 'vm', 'lxc'] ${rest}`,
    after: `MATCH (r:Host|Vm|Lxc) WHERE r:Resource ${rest}`,
    params: { prefixes },
  };
};

const health = (name: string, label: string | null, params: Record<string, unknown>): Read => {
  const rest = (kindIs: string) => `
     WITH r WHERE r IS NOT NULL AND ${kindIs} AND ($provider IS NULL OR r.provider = $provider)
     WITH coalesce(r.health, 'unknown') AS health, r
     WITH health, count(r) AS n, collect(CASE WHEN health <> 'healthy' THEN properties(r) END)[..200] AS worst
     RETURN health, n, worst`;
  return {
    name,
    before: `MATCH (r:Resource) ${rest('($kind IS NULL OR r.kind = $kind)')}`,
    after: `MATCH ${label ? `(r:${label}&Resource)` : '(r:Resource)'} ${rest(label ? `r:${label}` : 'true')}`,
    params: { kind: null, provider: null, ...params },
  };
};

export const READS: Read[] = [
  missingState('proxmox:lab'),
  missingState('vcenter:vc'),
  {
    name: 'findResourceIdsByAttribute (proxmox cluster by api_url)',
    before:
      'MATCH (r:Resource) WHERE r.provider = $provider AND r.kind = $kind AND r[$prop] = $value RETURN r.id AS id ORDER BY r.lastSeen DESC, r.id',
    after: `MATCH (r:Cluster&Resource) WHERE r.provider = $provider AND r[$prop] = $value
     RETURN r.id AS id ORDER BY r.lastSeen DESC, r.id`,
    params: { provider: 'proxmox', kind: 'cluster', prop: 'attr.api_url', value: 'https://pve1.lab:8006' },
  },
  {
    name: 'guestKindsOfCluster (vcenter:vc, unchanged text)',
    before: `MATCH (r:Resource) WHERE r.id STARTS WITH $prefix AND r.kind IN ['vm', 'lxc'] RETURN r.id AS id`,
    params: { prefix: 'vcenter:vc/' },
  },
  identity(null),
  identity(['vcenter:vc/']),
  list('listResources page, kind vm', 'Vm', { kind: 'vm' }),
  list('listResources page, kind cluster', 'Cluster', { kind: 'cluster' }),
  list('listResources page, kind host + state', 'Host', { kind: 'host', state: 'online' }),
  list('listResources page, provider vcenter', null, { provider: 'vcenter' }),
  list('listResources page, no filter', null, {}),
  list('listResources count, kind cluster', 'Cluster', { kind: 'cluster' }, 'RETURN count(r) AS n'),
  list('listResources count, kind vm', 'Vm', { kind: 'vm' }, 'RETURN count(r) AS n'),
  list('listResources count, provider vcenter', null, { provider: 'vcenter' }, 'RETURN count(r) AS n'),
  health('healthSummary, kind host', 'Host', { kind: 'host' }),
  health('healthSummary, provider vcenter', null, { provider: 'vcenter' }),
  {
    name: 'markUnseenResourcesMissing read part (vcenter:vc, kinds vm; unchanged text)',
    before: `MATCH (r:Resource)
     WHERE r.id STARTS WITH $prefix AND coalesce(r.updateTag, '') <> $tag
       AND ($kinds IS NULL OR r.kind IN $kinds) AND coalesce(r.lifecycle, 'active') <> 'destroyed'
     RETURN count(r) AS n`,
    params: { prefix: 'vcenter:vc/', tag: 'other', kinds: ['vm'] },
  },
  {
    name: 'refreshEdgeStaleness read part (vcenter:vc, kinds vm; unchanged text)',
    before: `MATCH (a:Resource)-[e]->(:Resource)
     WHERE a.id STARTS WITH $prefix AND e.source = $source AND e.provenance = 'observed'
       AND ($kinds IS NULL OR a.kind IN $kinds)
     RETURN count(e) AS n`,
    params: { prefix: 'vcenter:vc/', source: 'vcenter:vc', kinds: ['vm'] },
  },
  {
    name: 'listMissingResources, provider vcenter (unchanged text)',
    before: `MATCH (r:Resource) WHERE r.missingSince IS NOT NULL
       AND ($provider IS NULL OR r.provider = $provider) AND ($prefix IS NULL OR r.id STARTS WITH $prefix)
     RETURN properties(r) AS p ORDER BY r.missingSince, r.id LIMIT 500`,
    params: { provider: 'vcenter', prefix: null },
  },
  {
    name: 'getResourcesBySlug vm:vm123 (unchanged text)',
    before:
      'MATCH (r:Resource {name: $name}) USING INDEX r:Resource(name) WHERE r.kind = $kind RETURN properties(r) AS p ORDER BY r.id',
    params: { name: 'vm123', kind: 'vm' },
  },
];
