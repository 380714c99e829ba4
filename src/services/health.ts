import {
  type ConditionSearch,
  conditionsOfMany as readConditionsOfMany,
  searchConditions,
} from '../graph/conditions.js';
import { healthSummary as readHealthSummary, type HealthScope } from '../graph/resource-queries.js';
import type { KeysetPage } from '../graph/statements.js';
import type { ConditionRecord, ConditionStatus, Health, Kind, Provider, ResourceRecord } from '../model/index.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { resolveRef } from './resources.js';

/** At most this many conditions from openConditions without a resource. */
const OPEN_LIMIT = 500;

/** Conditions of many resources (open, resolved or both) in one query, for the per-request DataLoader. */
export function conditionsOfMany(
  deps: ServiceDeps,
  ids: readonly string[],
  status: ConditionStatus | null,
): Promise<Map<string, ConditionRecord[]>> {
  return readConditionsOfMany(deps.driver, ids, status);
}

/** Conditions newest first (by openedAt), keyset-paginated; `filter.resourceId` is an id or slug. */
export async function conditions(
  deps: ServiceDeps,
  principal: Principal,
  input: { filter?: ConditionSearch | null; first?: number | null; after?: string | null },
): Promise<KeysetPage<ConditionRecord>> {
  assertCan(principal, 'condition:read');
  const { filter } = input;
  const resourceId = filter?.resourceId ? (await resolveRef(deps, filter.resourceId, 'filter.resourceId')).id : null;
  return searchConditions(
    deps.driver,
    { resourceId, type: filter?.type ?? null, status: filter?.status ?? null, since: filter?.since ?? null },
    { first: input.first ?? 50, after: input.after ?? null },
  );
}

/** Open conditions of one resource (id or slug), or of every resource (newest first, at most 500). */
export async function openConditions(
  deps: ServiceDeps,
  principal: Principal,
  input: { resourceId?: string | null },
): Promise<ConditionRecord[]> {
  assertCan(principal, 'condition:read');
  if (input.resourceId) {
    const r = await resolveRef(deps, input.resourceId, 'resourceId');
    return (await readConditionsOfMany(deps.driver, [r.id], 'open')).get(r.id) ?? [];
  }
  return (await searchConditions(deps.driver, { status: 'open' }, { first: OPEN_LIMIT })).nodes;
}

/** Resources by health, the ones needing attention first, and where health comes from. */
export interface HealthSummary {
  total: number;
  counts: Array<{ health: Health; count: number }>;
  attention: ResourceRecord[];
  note: string;
}

/** Counts by health of everything, or of a kind, a provider, or one resource's blast radius (`under`). */
export async function healthSummary(
  deps: ServiceDeps,
  principal: Principal,
  input: { kind?: Kind | null; provider?: Provider | null; under?: string | null },
): Promise<HealthSummary> {
  assertCan(principal, 'resource:read');
  const underId = input.under ? (await resolveRef(deps, input.under, 'scope.under')).id : null;
  const scope: HealthScope = { kind: input.kind ?? null, provider: input.provider ?? null, underId };
  return {
    ...(await readHealthSummary(deps.driver, scope)),
    note: 'Health is derived by the scheduler from checks and cannot be set through attributes. See checks(resourceId) and openConditions.',
  };
}
