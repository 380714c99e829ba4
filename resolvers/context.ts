import type { ServiceDeps } from '../src/services/deps.js';
import type { Principal } from '../src/services/permissions.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What every resolver receives: the service deps, the caller, and this request's DataLoaders. */
export interface RequestContext {
  deps: ServiceDeps;
  principal: Principal;
  loaders: Loaders;
  /** The SSE `Last-Event-ID` a reconnecting client sent, if any: where its subscription resumes. */
  lastEventId: string | null;
}

/** A request's context; the loaders are per request, so nothing cached outlives it. */
export function createRequestContext(
  deps: ServiceDeps,
  principal: Principal,
  lastEventId: string | null = null,
): RequestContext {
  return { deps, principal, loaders: createLoaders(deps), lastEventId };
}
