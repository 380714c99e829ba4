import { healthOf } from '../graph/db/guarded-driver.js';
import { unavailable } from '../model/index.js';
import type { ServiceDeps } from './deps.js';

/**
 * Runs one whole API operation (a GraphQL execution, an MCP tool call) under a deadline on an
 * unavailable Neo4j. Each statement is guarded on its own (guarded-driver.ts), but an operation of
 * several statements could add their waits up (a pool timeout, then a probe, then the audit
 * line's), and a restarted Neo4j answers its first calls slowly. So: every `stallMs` the
 * operation is still running, it answers `UNAVAILABLE` if Neo4j was in trouble during it (or is
 * warming up) or does not answer the probe within `probeMs`; otherwise it goes on (a long query on a
 * healthy Neo4j is no outage). An outage thus costs at most stallMs + probeMs (4.5 s by default).
 * The abandoned work may still finish later: it was not acknowledged, and every write is idempotent
 * or audited as what it was.
 */
export function withNeo4jDeadline<T>(deps: Pick<ServiceDeps, 'driver'>, work: () => Promise<T>): Promise<T> {
  const health = healthOf(deps.driver);
  if (!health) return work();
  const started = Date.now();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const check = async () => {
      if (settled) return;
      const out = health.troubledSince(started) || !(await health.answers());
      if (out) finish(() => reject(unavailable()));
      else if (!settled) timer = setTimeout(() => void check(), health.bounds.stallMs);
    };
    timer = setTimeout(() => void check(), health.bounds.stallMs);
    Promise.resolve()
      .then(work)
      .then(
        (value) => finish(() => resolve(value)),
        (err: unknown) => finish(() => reject(err)),
      );
  });
}
