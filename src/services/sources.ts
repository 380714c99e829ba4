import { listSources, type SourceRecord } from '../graph/sources.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

/** Every source aitia polls or polled, with its status and last passes (read by anyone who reads resources). */
export async function sources(deps: ServiceDeps, principal: Principal): Promise<SourceRecord[]> {
  assertCan(principal, 'resource:read');
  return listSources(deps.driver);
}
