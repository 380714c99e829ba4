import { DateTime } from 'luxon';
import { narrateIncident } from '../../correlator/incident-narrative.js';
import type { ConditionCause } from '../../correlator/condition-narrative.js';
import { conditionsOfResources, transitionsOfResources } from '../graph/incident-queries.js';
import { getResourcesByIds } from '../graph/resources/read.js';
import { getTransitionsByIds } from '../graph/transitions/read.js';
import { type Reached, traverse } from '../graph/traversal.js';
import { badInput, type ConditionRecord, type ResourceRecord, type TransitionRecord } from '../model/index.js';
import { isExpected } from '../policy/transition-gate.js';
import { coverageOfResources, type StreamCoverageAnswer } from './coverage.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { resolveRef } from './resources.js';

/** The bounds of one incident context; each is named in the error that says it was exceeded. */
export const INCIDENT_LIMITS = {
  defaultWindowHours: 6,
  maxWindowDays: 7,
  defaultDepth: 2,
  maxDepth: 5,
  resources: 200,
  transitions: 500,
  conditions: 500,
} as const;

export interface IncidentContext {
  resource: ResourceRecord;
  since: string;
  until: string;
  depth: number;
  zone: string;
  dependencies: Reached[];
  dependents: Reached[];
  transitions: TransitionRecord[];
  conditions: ConditionRecord[];
  /** How much of the window each provider log of these resources was read completely (said in the narrative). */
  coverage: StreamCoverageAnswer[];
  narrative: string;
}

function windowOf(deps: ServiceDeps, input: { since?: string | null; until?: string | null }) {
  const parse = (field: 'since' | 'until', iso: string) => {
    const t = DateTime.fromISO(iso, { setZone: true });
    if (!t.isValid || !/(Z|[+-]\d{2}:?\d{2})$/i.test(iso.trim())) {
      throw badInput(field, 'must be an ISO-8601 time with a zone (Z or ±hh:mm)');
    }
    return t.toUTC();
  };
  const until = input.until ? parse('until', input.until) : DateTime.fromISO(nowOf(deps), { zone: 'utc' });
  const since = input.since ? parse('since', input.since) : until.minus({ hours: INCIDENT_LIMITS.defaultWindowHours });
  if (since >= until) throw badInput('since', 'must be before until');
  if (until.diff(since, 'days').days > INCIDENT_LIMITS.maxWindowDays) {
    throw badInput('since', `the window is longer than the limit of ${INCIDENT_LIMITS.maxWindowDays} days`);
  }
  return { since: since.toISO()!, until: until.toISO()! };
}

/**
 * One incident's context in one call (agents and operators): the resource, what it needs and what
 * needs it to `depth`, every transition on them in [since, until] with its attribution, their open
 * (suppressed included) and in-window conditions with their causes, and one paragraph for the
 * ticket that names causes only where the logs hold them. Bounded: past a limit the answer is
 * BAD_USER_INPUT naming the argument to narrow and the limit.
 */
export async function incidentContext(
  deps: ServiceDeps,
  principal: Principal,
  input: {
    resourceId: string;
    since?: string | null;
    until?: string | null;
    depth?: number | null;
    zone?: string | null;
  },
): Promise<IncidentContext> {
  assertCan(principal, 'incident:read');
  return gatherIncidentContext(deps, input);
}

/** The incident context without the permission check: for in-process callers that hold their own (the alert receiver). */
export async function gatherIncidentContext(
  deps: ServiceDeps,
  input: Parameters<typeof incidentContext>[2],
): Promise<IncidentContext> {
  const depth = input.depth ?? INCIDENT_LIMITS.defaultDepth;
  if (!Number.isInteger(depth) || depth < 1 || depth > INCIDENT_LIMITS.maxDepth) {
    throw badInput('depth', `must be an integer from 1 to ${INCIDENT_LIMITS.maxDepth}, got ${depth}`);
  }
  const window = windowOf(deps, input);
  const resource = await resolveRef(deps, input.resourceId, 'resourceId');
  const [dependencies, dependents] = await Promise.all([
    traverse(deps.driver, resource.id, 'dependencies', depth),
    traverse(deps.driver, resource.id, 'dependents', depth),
  ]);
  const known = new Map<string, ResourceRecord>([[resource.id, resource]]);
  for (const r of [...dependencies, ...dependents]) known.set(r.resource.id, r.resource);
  if (known.size > INCIDENT_LIMITS.resources) {
    throw badInput(
      'depth',
      `reaches ${known.size} resources, more than the limit of ${INCIDENT_LIMITS.resources}: lower depth`,
    );
  }
  const ids = [...known.keys()];
  const [transitions, conditions, coverage] = await Promise.all([
    transitionsOfResources(deps.driver, ids, window, INCIDENT_LIMITS.transitions),
    conditionsOfResources(deps.driver, ids, window, INCIDENT_LIMITS.conditions),
    coverageOfResources(deps, ids, window),
  ]);
  if (transitions.length > INCIDENT_LIMITS.transitions) {
    throw badInput(
      'since',
      `the window holds more than ${INCIDENT_LIMITS.transitions} transitions (the limit): narrow since/until or lower depth`,
    );
  }
  if (conditions.length > INCIDENT_LIMITS.conditions) {
    throw badInput(
      'depth',
      `more than ${INCIDENT_LIMITS.conditions} conditions (the limit): narrow since/until or lower depth`,
    );
  }
  const causes = await causesOf(deps, conditions, transitions, known);
  const told = narrateIncident(
    {
      subject: resource,
      since: window.since,
      until: window.until,
      depth,
      dependencies: dependencies.map((r) => r.resource),
      dependents: dependents.map((r) => r.resource),
      transitions: transitions.map((t) => ({
        resource: known.get(t.resourceId) ?? { id: t.resourceId, kind: t.kind },
        transition: t,
        expected: isExpected(t.attribution),
      })),
      conditions: conditions.map((c) => ({
        resource: known.get(c.resourceId) ?? { id: c.resourceId, kind: 'resource' },
        condition: c,
        cause: causes.get(c.id) ?? null,
      })),
      causeWindowSeconds: deps.policy?.policy.attribution.cause_window_seconds,
      // Only where provider resources are involved: a declared service alone has no log to read.
      ...(ids.some((id) => id.startsWith('proxmox:') || id.startsWith('vcenter:')) ? { coverage } : {}),
    },
    { zone: input.zone ?? 'UTC' },
  );
  if (!told.ok) throw badInput('zone', `${told.reason}; use an IANA zone such as Europe/Berlin, or UTC`);
  return {
    resource,
    ...window,
    depth,
    zone: told.zone,
    dependencies,
    dependents,
    transitions,
    conditions,
    coverage,
    narrative: told.text,
  };
}

/** Each condition's cause: its linked transition (read if it is outside the window) and the resource that changed. */
async function causesOf(
  deps: ServiceDeps,
  conditions: readonly ConditionRecord[],
  inWindow: readonly TransitionRecord[],
  known: Map<string, ResourceRecord>,
): Promise<Map<string, ConditionCause>> {
  const byId = new Map(inWindow.map((t) => [t.id, t]));
  const missing = conditions.flatMap((c) =>
    c.causeTransitionId && !byId.has(c.causeTransitionId) ? [c.causeTransitionId] : [],
  );
  for (const t of missing.length ? await getTransitionsByIds(deps.driver, missing) : []) byId.set(t.id, t);
  const unknownResources = [...byId.values()].map((t) => t.resourceId).filter((id) => !known.has(id));
  for (const r of unknownResources.length ? await getResourcesByIds(deps.driver, unknownResources) : [])
    known.set(r.id, r);
  const causes = new Map<string, ConditionCause>();
  for (const c of conditions) {
    const t = c.causeTransitionId ? byId.get(c.causeTransitionId) : undefined;
    if (!t) continue;
    const r = known.get(t.resourceId);
    causes.set(c.id, {
      transition: t,
      expected: isExpected(t.attribution),
      resource: { id: t.resourceId, kind: t.kind, name: r?.name ?? null },
    });
  }
  return causes;
}
