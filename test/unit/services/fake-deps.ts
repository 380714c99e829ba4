import type { Driver } from 'neo4j-driver';
import { createTransitionBus } from '../../../src/pipeline/bus.js';
import type { LoadedPolicy } from '../../../src/policy/index.js';
import type { ServiceDeps } from '../../../src/services/deps.js';
import type { Principal } from '../../../src/services/permissions.js';

/** Node properties of a stored resource, as the graph returns them. */
export interface StoredResource {
  id: string;
  kind: string;
  provider: string;
  name: string;
  state?: string;
  lifecycle?: string;
}

export const agent: Principal = { name: 'unit-agent', role: 'agent' };
export const operator: Principal = { name: 'unit-operator', role: 'operator' };
export const scheduler: Principal = { name: 'unit-scheduler', role: 'scheduler' };

/**
 * Service deps over a stand-in driver that answers the resource reads from `resources`, records
 * audit lines, and fails any write session with "write reached the graph": enough to test what a
 * service decides before it writes, without a database.
 */
export function fakeDeps(resources: StoredResource[], options: { policy?: LoadedPolicy; auditFails?: boolean } = {}) {
  const audit: Array<Record<string, unknown>> = [];
  const errors: unknown[] = [];
  const answer = (rows: StoredResource[]) => ({
    records: rows.map((p) => ({ get: () => ({ state: 'running', ...p }) })),
  });
  const driver = {
    async executeQuery(cypher: string, params: Record<string, any>) {
      if (cypher.startsWith('CREATE (a:AuditEntry')) {
        if (options.auditFails) throw new Error('audit store down');
        audit.push(params);
        return { records: [] };
      }
      if (cypher.startsWith('MATCH (r:Resource {id: $id})')) return answer(resources.filter((r) => r.id === params.id));
      if (cypher.startsWith('MATCH (r:Resource {name: $name})'))
        return answer(resources.filter((r) => r.name === params.name && r.kind === params.kind));
      if (cypher.startsWith('UNWIND $ids AS id MATCH (r:Resource'))
        return answer(resources.filter((r) => params.ids.includes(r.id)));
      throw new Error(`unexpected query: ${cypher}`);
    },
    session() {
      throw new Error('write reached the graph');
    },
  } as unknown as Driver;
  const log = { error: (obj: unknown) => errors.push(obj) } as unknown as ServiceDeps['log'];
  const deps: ServiceDeps = { driver, log, version: 'unit', policy: options.policy, bus: createTransitionBus() };
  return { deps, audit, errors };
}
