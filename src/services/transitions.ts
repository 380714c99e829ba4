import { narrate } from '../../correlator/narrative.js';
import { stateAt as deriveStateAt, type StateAtBasis } from '../../correlator/state-at.js';
import { getEventsByIds, listEvents } from '../graph/events.js';
import type { KeysetPage } from '../graph/db/statements.js';
import { getTransition, getTransitionsByIds, listTransitions, transitionHistoryAt } from '../graph/transitions/read.js';
import {
  type ActorKind,
  type Attribution,
  type AttributionConfidence,
  badInput,
  isResourceId,
  type Kind,
  KINDS,
  type ResourceRecord,
  STATES,
  type StoredEventRecord,
  type Transition,
  type TransitionDecision,
  type TransitionDecisionKind,
  type TransitionRecord,
} from '../model/index.js';
import { explainTransition as explainChange } from '../pipeline/correlate.js';
import { pipelineDeps, type ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { resolveRef, resourcesByIds } from './resources.js';

/** Transitions newest first, of one resource (id or slug) or of all, observed in [since, until]. */
export async function transitions(
  deps: ServiceDeps,
  principal: Principal,
  input: {
    resourceId?: string | null;
    kind?: Kind | null;
    since?: string | null;
    until?: string | null;
    confidence?: AttributionConfidence | null;
    decision?: TransitionDecisionKind | null;
    actor?: string | null;
    actorKind?: ActorKind | null;
    first?: number | null;
    after?: string | null;
  },
): Promise<KeysetPage<TransitionRecord>> {
  assertCan(principal, 'transition:read');
  if (input.kind != null && !(KINDS as readonly string[]).includes(input.kind))
    throw badInput('kind', `must be one of ${KINDS.join(', ')}`);
  const ref = input.resourceId;
  return listTransitions(deps.driver, {
    resource: ref ? (isResourceId(ref) ? { id: ref } : { slug: ref }) : null,
    resourceField: 'resourceId',
    kind: input.kind ?? null,
    since: input.since,
    until: input.until,
    confidence: input.confidence ?? null,
    decision: input.decision ?? null,
    actor: input.actor ?? null,
    actorKind: input.actorKind ?? null,
    first: input.first ?? 50,
    after: input.after,
  });
}

/** One stored transition by id, or null. */
export async function transition(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string },
): Promise<TransitionRecord | null> {
  assertCan(principal, 'transition:read');
  return getTransition(deps.driver, input.id);
}

/** A resource's events (tasks, vCenter events), newest first. */
export async function events(
  deps: ServiceDeps,
  principal: Principal,
  input: { resourceId: string; since?: string | null; first?: number | null },
): Promise<StoredEventRecord[]> {
  assertCan(principal, 'transition:read');
  const r = await resolveRef(deps, input.resourceId, 'resourceId');
  return listEvents(deps.driver, { resourceId: r.id, since: input.since, first: input.first ?? 50 });
}

/** Events by id in one query, for the per-request DataLoader; unknown ids are left out. */
export function eventsByIds(deps: ServiceDeps, ids: readonly string[]): Promise<StoredEventRecord[]> {
  return getEventsByIds(deps.driver, ids);
}

/** What a narrative is about: the change, and its attribution. */
export interface NarrativeInput {
  transition: Pick<Transition, 'resourceId' | 'kind' | 'from' | 'to' | 'observedAt'>;
  attribution: Attribution;
  /** The narrative as written when stored or explained, in UTC: the answer when no zone is asked. */
  stored: string;
  zone?: string | null;
  /** Reads the resource (for its name); an API passes its per-request loader. Default: one graph read. */
  readResource?: (id: string) => Promise<ResourceRecord | null>;
}

/**
 * The incident narrative in the IANA zone asked for (always named); without a zone, the stored
 * one. An unknown zone is BAD_USER_INPUT naming `zone`. Part of a transition already read, so no
 * permission of its own.
 */
export async function narrativeInZone(
  deps: ServiceDeps,
  _principal: Principal,
  input: NarrativeInput,
): Promise<string> {
  if (input.zone == null) return input.stored;
  const t = input.transition;
  const read = input.readResource ?? (async (id: string) => (await resourcesByIds(deps, [id]))[0] ?? null);
  const resource = await read(t.resourceId);
  const told = narrate({ id: t.resourceId, kind: t.kind, name: resource?.name ?? null }, t, input.attribution, {
    zone: input.zone,
  });
  if (!told.ok) throw badInput('zone', `${told.reason}; use an IANA zone such as Europe/Berlin, or UTC`);
  return told.text;
}

/** Transitions by id in one query, for the per-request DataLoader (condition causes). */
export function transitionsByIds(deps: ServiceDeps, ids: readonly string[]): Promise<TransitionRecord[]> {
  return getTransitionsByIds(deps.driver, ids);
}

/** Validates an ad-hoc change against the kind's closed state enum. */
function checkStates(kind: Kind, from: string, to: string): void {
  const states = STATES[kind] as readonly string[];
  if (!states.includes(from))
    throw badInput('from', `${JSON.stringify(from)} is not a ${kind} state; one of: ${states.join(', ')}`);
  if (!states.includes(to))
    throw badInput('to', `${JSON.stringify(to)} is not a ${kind} state; one of: ${states.join(', ')}`);
  if (from === to) throw badInput('to', 'must differ from `from`: a transition changes the state');
}

/** An ad-hoc explanation: the change described, its attribution and narrative, and the gate's decision. */
export interface ExplainedTransition {
  transition: Transition;
  resource: ResourceRecord;
  attribution: Attribution;
  /** In UTC. */
  narrative: string;
  /** What the gate would decide with the policy in force. */
  decision: TransitionDecision;
}

/** Explains a change the caller describes from stored events, and what the gate would do; stores nothing. */
export async function explainTransition(
  deps: ServiceDeps,
  principal: Principal,
  input: { resourceId: string; from: string; to: string; at: string },
): Promise<ExplainedTransition> {
  assertCan(principal, 'transition:read');
  const r = await resolveRef(deps, input.resourceId, 'resourceId');
  checkStates(r.kind, input.from, input.to);
  const x = await explainChange(pipelineDeps(deps), {
    resourceId: r.id,
    kind: r.kind,
    from: input.from,
    to: input.to,
    observedAt: input.at,
    observer: `explainTransition:${principal.name}`,
  });
  return {
    transition: x.transition,
    resource: r,
    attribution: x.attribution,
    narrative: x.narrative,
    decision: x.decision,
  };
}

/** A resource's state at a time, how it was derived, and the transition it rests on. */
export interface StateAt {
  resourceId: string;
  at: string;
  state: string;
  basis: StateAtBasis;
  transition: TransitionRecord | null;
  reason: string;
}

export async function stateAt(
  deps: ServiceDeps,
  principal: Principal,
  input: { resourceId: string; at: string },
): Promise<StateAt> {
  assertCan(principal, 'transition:read');
  const r = await resolveRef(deps, input.resourceId, 'resourceId');
  const history = await transitionHistoryAt(deps.driver, r.id, input.at);
  const answer = deriveStateAt({ at: input.at, ...history, current: { state: r.state, firstSeen: r.firstSeen } });
  const used = [history.lastAtOrBefore, history.first].find((t) => t && t.id === answer.transitionId) ?? null;
  return {
    resourceId: r.id,
    at: input.at,
    state: answer.state,
    basis: answer.basis,
    transition: used,
    reason: answer.reason,
  };
}
