import {
  type ConditionSearch,
  conditionsOfMany as readConditionsOfMany,
  searchConditions,
} from '../graph/conditions.js';
import { healthSummary as readHealthSummary, type HealthScope } from '../graph/resources/queries.js';
import type { KeysetPage } from '../graph/db/statements.js';
import { narrateCondition } from '../../correlator/condition-narrative.js';
import {
  badInput,
  type ConditionRecord,
  type ConditionStatus,
  type ConditionType,
  type Health,
  type Kind,
  type Provider,
  type ResourceRecord,
  type TransitionRecord,
} from '../model/index.js';
import { isExpected } from '../policy/transition-gate.js';
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
    {
      resourceId,
      type: filter?.type ?? null,
      status: filter?.status ?? null,
      since: filter?.since ?? null,
      suppressed: filter?.suppressed ?? null,
      wouldSuppress: filter?.wouldSuppress ?? null,
    },
    { first: input.first ?? 50, after: input.after ?? null },
  );
}

/**
 * Open conditions that page, of one resource (id or slug) or of every resource (newest first, at
 * most 500). Suppressed ones are open too, but nobody is paged for them: `conditions(filter:
 * {suppressed: true})` lists them.
 */
export async function openConditions(
  deps: ServiceDeps,
  principal: Principal,
  input: { resourceId?: string | null },
): Promise<ConditionRecord[]> {
  assertCan(principal, 'condition:read');
  if (input.resourceId) {
    const r = await resolveRef(deps, input.resourceId, 'resourceId');
    return (await readConditionsOfMany(deps.driver, [r.id], 'open', false)).get(r.id) ?? [];
  }
  return (await searchConditions(deps.driver, { status: 'open', suppressed: false }, { first: OPEN_LIMIT })).nodes;
}

/** Resources by health, the ones needing attention first, and where health comes from. */
export interface HealthSummary {
  total: number;
  counts: Array<{ health: Health; count: number }>;
  attention: ResourceRecord[];
  problems: Array<{ type: ConditionType; count: number }>;
  suppressed: number;
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

/** The change a condition followed and the resource that changed; null without one. */
export interface ConditionCauseView {
  transition: TransitionRecord;
  attribution: TransitionRecord['attribution'];
  resource: ResourceRecord | null;
  expected: boolean;
}

/** Readers the API passes in (its per-request DataLoaders), so a page of conditions costs constant queries. */
export interface ConditionReaders {
  transition(id: string): Promise<TransitionRecord | null>;
  resource(id: string): Promise<ResourceRecord | null>;
}

/** A condition's cause: the transition it links to, whether a principal meant it, and what changed. */
export async function conditionCause(
  condition: ConditionRecord,
  read: ConditionReaders,
): Promise<ConditionCauseView | null> {
  if (!condition.causeTransitionId) return null;
  const transition = await read.transition(condition.causeTransitionId);
  if (!transition) return null;
  return {
    transition,
    attribution: transition.attribution,
    resource: await read.resource(transition.resourceId),
    expected: isExpected(transition.attribution),
  };
}

/** The condition's paragraph in a zone (UTC by default): what is wrong since when, and its cause or "cause unknown". */
export async function conditionNarrative(
  deps: ServiceDeps,
  condition: ConditionRecord,
  zone: string | null | undefined,
  read: ConditionReaders,
): Promise<string> {
  const resource = await read.resource(condition.resourceId);
  const cause = await conditionCause(condition, read);
  const told = narrateCondition(
    { id: condition.resourceId, kind: resource?.kind ?? 'resource', name: resource?.name ?? null },
    condition,
    cause && {
      transition: cause.transition,
      expected: cause.expected,
      resource: { id: cause.transition.resourceId, kind: cause.transition.kind, name: cause.resource?.name ?? null },
    },
    {
      zone: zone ?? 'UTC',
      causeWindowSeconds: deps.policy?.policy.attribution.cause_window_seconds,
    },
  );
  if (!told.ok) throw badInput('zone', `${told.reason}; use an IANA zone such as Europe/Berlin, or UTC`);
  return told.text;
}
