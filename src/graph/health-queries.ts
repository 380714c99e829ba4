import type { Driver } from 'neo4j-driver';
import { HEALTHS, type Health, type Kind, type Provider } from '../model/index.js';
import { resourceFromProperties, type ResourceRecord } from './resource-record.js';
import { depthQuantifier, impactHops } from './traversal.js';

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
): Promise<{ total: number; counts: Array<{ health: Health; count: number }>; attention: ResourceRecord[] }> {
  const scoped = scope.underId
    ? `MATCH (root:Resource {id: $under})
       OPTIONAL MATCH (root)${impactHops('dependents', depthQuantifier(10))}(d:Resource)
       WITH root, collect(DISTINCT d) AS reached UNWIND reached + [root] AS r WITH DISTINCT r`
    : 'MATCH (r:Resource)';
  const params = { under: scope.underId ?? null, kind: scope.kind ?? null, provider: scope.provider ?? null };
  const { records } = await driver.executeQuery(
    `${scoped}
     WITH r WHERE r IS NOT NULL AND ($kind IS NULL OR r.kind = $kind) AND ($provider IS NULL OR r.provider = $provider)
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
  const rank: Record<string, number> = { unhealthy: 0, degraded: 1, unknown: 2, healthy: 3 };
  attention.sort((a, b) => (rank[a.health] ?? 9) - (rank[b.health] ?? 9) || a.id.localeCompare(b.id));
  return {
    total: [...counts.values()].reduce((a, b) => a + b, 0),
    counts: HEALTHS.map((health) => ({ health, count: counts.get(health) ?? 0 })),
    attention: attention.slice(0, 200),
  };
}
