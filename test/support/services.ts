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
 * "audit store down" before it is sent, alone or inside a transaction; every other statement goes
 * to the real Neo4j unchanged.
 */
export function withAuditDown(driver: Driver): Driver {
  return failingStatements(driver, 'CREATE (a:AuditEntry', 'audit store down');
}

/**
 * The real driver where every statement containing `fragment` throws `message` before it is sent:
 * through executeQuery, a session's run, or a transaction's run inside executeRead/executeWrite.
 */
export function failingStatements(driver: Driver, fragment: string, message: string): Driver {
  const fails = (query: unknown) => typeof query === 'string' && query.includes(fragment);
  const guardRun =
    (run: (...a: any[]) => any) =>
    (query: unknown, ...rest: unknown[]) =>
      fails(query) ? Promise.reject(new Error(message)) : run(query, ...rest);
  const wrapTx = (tx: any) =>
    new Proxy(tx, { get: (t, p) => (p === 'run' ? guardRun(t.run.bind(t)) : Reflect.get(t, p)) });
  const wrapSession = (session: any) =>
    new Proxy(session, {
      get(target, prop) {
        if (prop === 'run') return guardRun(target.run.bind(target));
        if (prop === 'executeRead' || prop === 'executeWrite')
          return (work: (tx: unknown) => unknown, cfg?: unknown) =>
            target[prop]((tx: unknown) => work(wrapTx(tx)), cfg);
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery') return guardRun((target.executeQuery as any).bind(target));
      if (prop === 'session') return (...a: unknown[]) => wrapSession((target.session as any)(...a));
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
