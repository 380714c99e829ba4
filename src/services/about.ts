import { autonomyState } from '../graph/autonomy.js';
import { appliedVersion, LATEST_MIGRATION } from '../graph/db/migrations.js';
import type { AutonomyState, Role } from '../model/index.js';
import type { ServiceDeps } from './deps.js';
import type { Principal } from './permissions.js';

/** Which service answers, who is asking and whether the kill switch is on: any authenticated caller may know this. */
export async function about(
  deps: ServiceDeps,
  principal: Principal,
): Promise<{ version: string; principal: string; role: Role; policyDigest: string | null; autonomy: AutonomyState }> {
  return {
    version: deps.version,
    principal: principal.name,
    role: principal.role,
    policyDigest: deps.policy?.digest ?? null,
    autonomy: await autonomyState(deps.driver),
  };
}

/** How long a readiness probe waits for Neo4j before answering not ready (the Docker healthcheck allows more). */
export const READY_TIMEOUT_MS = 3000;

/**
 * Is Neo4j reachable and the schema at the code's migration version? Asked by probes without a
 * principal, so it says nothing beyond that: fixed words and version numbers, never the driver's
 * error (addresses, user names, server text), which goes to the log.
 */
export async function readiness(deps: ServiceDeps): Promise<{ ready: boolean; detail: Record<string, unknown> }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    // A probe must answer quickly: the driver would otherwise retry for ~30 s before giving up.
    const timeout = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS)),
    );
    const version = await Promise.race([appliedVersion(deps.driver), timeout]);
    return {
      ready: version >= LATEST_MIGRATION,
      detail: { neo4j: 'reachable', migration: version, expected: LATEST_MIGRATION },
    };
  } catch (err) {
    deps.log.warn({ err }, 'readiness: Neo4j did not answer');
    return { ready: false, detail: { neo4j: 'unreachable' } };
  } finally {
    clearTimeout(timer);
  }
}
