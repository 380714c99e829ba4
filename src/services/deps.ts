import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import type { Logger } from '../log.js';
import type { CheckNetworkPolicy } from '../model/index.js';
import type { FeedBus } from '../pipeline/bus.js';
import { conditionPolicyOf } from '../pipeline/conditions.js';
import type { CorrelationDeps } from '../pipeline/correlate.js';
import type { LoadedPolicy } from '../policy/startup.js';
import type { ActorMappingSource } from './actor-mapping.js';
import type { TokenStore } from './token-store.js';

/**
 * What every service operation runs with: built once at start and shared by each API surface
 * (GraphQL today, MCP tools next), so both answer with the same graph, policy and bus.
 */
export interface ServiceDeps {
  driver: Driver;
  log: Logger;
  version: string;
  /** The gate's policy, loaded at start; undefined only where a caller built the deps without one. */
  policy: LoadedPolicy | undefined;
  /** The correlator's provider clock tolerance (AITIA_CLOCK_SKEW_SECONDS); default 5 s. */
  clockSkewSeconds?: number;
  /** The process's feed bus: the feed tail publishes stored changes, subscriptions read them. */
  bus: FeedBus;
  /** The clock (ISO-8601 UTC); default the system's. Decisions record the time they read. */
  now?: () => string;
  /** The bearer tokens (the tokens file, live): what the API authenticates with and operators manage. */
  tokens?: TokenStore;
  /** Where health checks may connect (AITIA_CHECK_ALLOW); default: nothing loopback, link-local or metadata. */
  checkNetwork?: CheckNetworkPolicy;
  /** The integrations file's `actors:` against the tokens: agents' changes credited to their grants, or flagged. */
  actors?: ActorMappingSource;
}

/** The deps' clock, or the system's. */
export function nowOf(deps: Pick<ServiceDeps, 'now'>): string {
  return deps.now?.() ?? DateTime.utc().toISO();
}

/** What the observation pipeline needs from the service's deps: the policy's mode, the clock tolerance, the actors mapping. */
export function pipelineDeps(deps: ServiceDeps): CorrelationDeps {
  return {
    driver: deps.driver,
    suppression: deps.policy?.policy.attribution.suppression ?? 'shadow',
    ...(deps.policy ? { conditions: conditionPolicyOf(deps.policy) } : {}),
    correlator: deps.clockSkewSeconds === undefined ? {} : { clockSkewSeconds: deps.clockSkewSeconds },
    ...(deps.actors ? { actors: deps.actors } : {}),
  };
}
