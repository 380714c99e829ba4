import type { Driver } from 'neo4j-driver';
import type { TransitionBus } from '../pipeline/bus.js';
import type { Logger } from '../log.js';
import type { LoadedPolicy } from '../policy/startup.js';
import type { Loaders } from './loaders.js';
import type { Principal } from './permissions.js';

/** Long-lived things the resolvers use; built once at start. */
export interface AppServices {
  driver: Driver;
  log: Logger;
  version: string;
  /** The gate's policy, loaded at start; absent only where a caller built services without one. */
  policy?: LoadedPolicy;
  /** The correlator's provider clock tolerance (AITIA_CLOCK_SKEW_SECONDS); default 5 s. */
  clockSkewSeconds?: number;
  /** The process's transition bus: the pipeline publishes, `transitionObserved` subscribes. */
  bus: TransitionBus;
}

/** What every resolver receives: the services, the caller, and this request's DataLoaders. */
export interface RequestContext {
  services: AppServices;
  driver: Driver;
  principal: Principal;
  loaders: Loaders;
}
