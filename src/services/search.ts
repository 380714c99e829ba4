import { searchResources as searchGraph } from '../graph/resources/search.js';
import { badInput, type ResourceRecord } from '../model/index.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

/*
 * One search box for resources (the console's, on every page): an id, a `kind:name` slug, or part
 * of a name or id, best matches first. Reading resources needs resource:read, as `resources` does.
 */

/** At most this many answers, and this long a text. */
export const SEARCH_LIMITS = { first: 100, chars: 200 } as const;

export async function searchResources(
  deps: ServiceDeps,
  principal: Principal,
  args: { query: string; first?: number | null },
): Promise<ResourceRecord[]> {
  assertCan(principal, 'resource:read');
  const text = typeof args.query === 'string' ? args.query.trim() : '';
  if (text === '') throw badInput('query', 'must not be empty: an id, a kind:name slug, or part of a name');
  if (text.length > SEARCH_LIMITS.chars) throw badInput('query', `at most ${SEARCH_LIMITS.chars} characters`);
  const first = args.first ?? 20;
  if (!Number.isInteger(first) || first < 1 || first > SEARCH_LIMITS.first)
    throw badInput('first', `must be an integer from 1 to ${SEARCH_LIMITS.first}, got ${first}`);
  return searchGraph(deps.driver, text, first);
}
