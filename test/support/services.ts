import type { Driver } from 'neo4j-driver';
import { type AuditEntry, listAudit } from '../../src/graph/audit.js';
import { createLogger } from '../../src/log.js';
import type { Role } from '../../src/model/index.js';
import { createFeedBus } from '../../src/pipeline/bus.js';
import type { LoadedPolicy } from '../../src/policy/startup.js';
import type { ServiceDeps } from '../../src/services/deps.js';
import type { Principal } from '../../src/services/permissions.js';

/** Service deps over the test's real driver: a silent logger, a fresh bus, and the policy when one is given. */
export function serviceDeps(driver: Driver, policy?: LoadedPolicy): ServiceDeps {
  return { driver, log: createLogger('silent'), version: 'test', policy, bus: createFeedBus() };
}

let principals = 0;

/**
 * A principal of `role` whose name holds the file's scope and a counter, so the audit lines under
 * its name are one test's alone (and go with the file's data, see useGraph).
 */
export function principalOf(scope: string, role: Role): Principal {
  return { name: `${role}-${scope}-${++principals}`, role };
}

/** The audit lines a principal left in the graph, oldest first. */
export async function auditOf(driver: Driver, principal: Principal): Promise<AuditEntry[]> {
  const page = await listAudit(driver, { principal: principal.name }, { first: 500 });
  return page.nodes.reverse();
}

/**
 * The real driver with the audit store down: the audit write (`CREATE (a:AuditEntry …)`) throws
 * "audit store down" before it is sent; every other statement goes to the real Neo4j unchanged.
 */
export function withAuditDown(driver: Driver): Driver {
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery') {
        const executeQuery: Driver['executeQuery'] = (query, ...rest) => {
          if (typeof query === 'string' && query.includes('CREATE (a:AuditEntry')) {
            return Promise.reject(new Error('audit store down'));
          }
          return target.executeQuery(query, ...rest);
        };
        return executeQuery;
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
