import { type ActorMappingEntry, type ActorPrincipal, principalOfActor } from '../src/model/actors.js';
import {
  type ActionAuthorization,
  type AttributionAuthorization,
  DEFAULT_AUTHORIZATION_USE_WINDOW_SECONDS,
  type UnauthorizedAction,
  type UsedEvent,
} from '../src/model/authorizations.js';
import type { Role } from '../src/model/roles.js';
import type { Attribution, AttributionEvent, Transition } from '../src/model/transitions.js';
import { actionEventTypes, actionPhase, isTwoStepAction } from './action-events.js';
import { toMillis } from './timing.js';

/** Milliseconds of an ISO time; NaN (never in a window, never nearest) when unreadable. */
const ms = (iso: string): number => toMillis(iso) ?? Number.NaN;

/*
 * Whether a change was an action aitia itself authorized. The change's credited event (the cause,
 * or the last request of its chain: the task the credited user ran) must be by a provider identity
 * the actors mapping gives to an executor principal (an agent or ingester token), and an
 * ActionAuthorized entry of that principal must match it:
 * - the same target (the entry's resource is the transition's),
 * - an action that leaves one of the chain's event types (action-events.ts),
 * - the task named exactly (`providerTaskId` equal to one of the chain's event ids: wins over
 *   time), or else started within the entry's use window: for a redeemed grant from its redeem
 *   (less the clock tolerance) to `useWindowSeconds` after; for a reported auto action
 *   `useWindowSeconds` either side of the report (an executor reports after acting, or just before).
 * An entry that named another Proxmox task is not matched by time (a vCenter task key cannot be
 * compared yet: events are stored under their event key). Each entry explains one task (the
 * `used` map: the same task may explain two transitions, a reboot seen half-way and its start),
 * except that a restart or reboot carried out as a stop then a start explains both: its start
 * may follow the one stop it explains (by time, even when it named the stop's UPID).
 * Of several entries the nearest in time to the task wins, then the earlier, then the id.
 * No match: the change is `unauthorized`. An unmapped actor, or one mapped to an operator (or to a
 * name no token has), is neither: people change things, and that is not a finding.
 */

export interface AuthorizationOptions {
  useWindowSeconds: number;
  clockSkewSeconds: number;
}

export const DEFAULT_AUTHORIZATION_OPTIONS: Readonly<AuthorizationOptions> = {
  useWindowSeconds: DEFAULT_AUTHORIZATION_USE_WINDOW_SECONDS,
  clockSkewSeconds: 5,
};

/** The principals whose changes must be authorized: the executors, who redeem grants and report actions. */
const EXECUTOR_ROLES: readonly Role[] = ['agent', 'ingester'];

export interface AuthorizationInput {
  transition: Pick<Transition, 'resourceId'>;
  attribution: Pick<Attribution, 'confidence' | 'actor' | 'events'> & Partial<Pick<Attribution, 'actorKind'>>;
}

export interface AuthorizationContext {
  /** The actors mapping with each principal's role resolved (src/model/actors.ts resolveActorMapping). */
  actors: readonly ActorMappingEntry[];
  /** The entries of the transitions' targets around their time (others are ignored). */
  authorizations: readonly ActionAuthorization[];
  /** Entry id → the events it already explains (from stored attributions). */
  used?: ReadonlyMap<string, readonly UsedEvent[]>;
  options?: Partial<AuthorizationOptions>;
}

export type { UsedEvent } from '../src/model/authorizations.js';

export type AuthorizationVerdict =
  | { verdict: 'authorized'; authorization: AttributionAuthorization; principal: ActorPrincipal }
  | { verdict: 'unauthorized'; unauthorized: UnauthorizedAction; principal: ActorPrincipal }
  | { verdict: 'neither'; principal: ActorPrincipal | null; reason: string };

/** The event whose user is credited: the last request of a chain, else the cause. */
export function creditedEventOf(a: Pick<Attribution, 'events'>): AttributionEvent | null {
  const requests = a.events.filter((e) => e.role === 'request');
  return requests.at(-1) ?? a.events.find((e) => e.role === 'cause') ?? null;
}

/** Decides one transition (see the rules above). */
export function matchAuthorization(input: AuthorizationInput, ctx: AuthorizationContext): AuthorizationVerdict {
  const opts = { ...DEFAULT_AUTHORIZATION_OPTIONS, ...ctx.options };
  const { attribution: a, transition: t } = input;
  const task = creditedEventOf(a);
  if ((a.confidence !== 'high' && a.confidence !== 'medium') || task === null)
    return { verdict: 'neither', principal: null, reason: 'no task or event explains the change' };
  // The provider acting on its own (HA manager, node start-up as root@pam) is nobody's action.
  if (a.actorKind === 'system' || a.actorKind === 'ha_manager')
    return { verdict: 'neither', principal: null, reason: 'the provider acted on its own' };
  const actor = a.actorKind === undefined ? (a.actor ?? task.actor) : a.actor;
  const principal = principalOfActor(actor, task.provider, ctx.actors);
  if (principal === null)
    return {
      verdict: 'neither',
      principal: null,
      reason: actor ? `${actor} is not in the actors mapping` : 'no user is recorded for the change',
    };
  if (principal.role === null || !EXECUTOR_ROLES.includes(principal.role))
    return {
      verdict: 'neither',
      principal,
      reason:
        principal.role === null
          ? `${principal.principal} has no token: not known to be an agent`
          : `${principal.principal} is an ${principal.role}, not an agent`,
    };

  const chainIds = new Set(a.events.map((e) => e.id));
  const chainTypes = new Set(a.events.map((e) => e.type));
  const started = ms(task.startedAt);
  const onTarget = ctx.authorizations.filter((x) => x.targetId === t.resourceId && x.principal === principal.principal);
  const typed = onTarget.filter((x) => actionEventTypes(x.action).some((type) => chainTypes.has(type)));
  const usedOf = (x: ActionAuthorization) => ctx.used?.get(x.id) ?? [];
  const free = typed.filter((x) => roomFor(x, usedOf(x), task));
  const exact = free.filter((x) => x.providerTaskId !== null && chainIds.has(x.providerTaskId));
  const timed = free.filter(
    (x) =>
      !bindsAnotherTask(x, chainIds, usedOf(x)) && inWindow(started, x, opts.useWindowSeconds, opts.clockSkewSeconds),
  );
  const best = nearest(exact, started) ?? nearest(timed, started);
  if (best) {
    return {
      verdict: 'authorized',
      principal,
      authorization: {
        grantId: best.id,
        source: best.source,
        approvalId: best.approvalId,
        action: best.action,
        principal: principal.principal,
        requestedBy: best.requestedBy,
        approvedBy: best.approvedBy,
        approvedAt: best.approvedAt,
        at: best.at,
        matchedBy: exact.includes(best) ? 'task_id' : 'window',
        eventId: task.id,
      },
    };
  }
  const reason =
    onTarget.length === 0
      ? `${principal.principal} has no redeemed grant or reported action on this resource`
      : typed.length === 0
        ? `none of ${principal.principal}'s authorizations on this resource is for an action that leaves ${[...chainTypes].join('/')}`
        : free.length === 0
          ? `each of ${principal.principal}'s matching authorizations already explains another task`
          : `none of ${principal.principal}'s matching authorizations covers a task started at ${task.startedAt}`;
  return {
    verdict: 'unauthorized',
    principal,
    unauthorized: { principal: principal.principal, actor: actor!, eventId: task.id, reason },
  };
}

/**
 * An entry that named a Proxmox task (a UPID: the event id itself) other than one of this chain's
 * is that task's, not this one's. A vCenter task key (`task-123`) is kept but not compared: vCenter
 * events are stored under their event key, not the task's, so it cannot rule a match out.
 */
function bindsAnotherTask(
  x: ActionAuthorization,
  chainIds: ReadonlySet<string>,
  used: readonly UsedEvent[] = [],
): boolean {
  if (x.providerTaskId === null || !x.providerTaskId.startsWith('UPID:') || chainIds.has(x.providerTaskId))
    return false;
  // A two-step restart that named its stop: the start that follows it is the same action's.
  return !used.some((u) => u.id === x.providerTaskId);
}

/**
 * Whether an entry can still explain `task`: it explains nothing yet, or only this task; or it is
 * a two-step restart whose one stop is explained and this task is its start.
 */
function roomFor(x: ActionAuthorization, used: readonly UsedEvent[], task: AttributionEvent): boolean {
  const others = used.filter((u) => u.id !== task.id);
  if (others.length === 0) return true;
  return (
    isTwoStepAction(x.action) &&
    others.length === 1 &&
    actionPhase(others[0]!.type) === 'down' &&
    actionPhase(task.type) === 'up'
  );
}

function inWindow(started: number, x: ActionAuthorization, useSeconds: number, skewSeconds: number): boolean {
  const at = ms(x.at);
  const from = x.source === 'grant' ? at - skewSeconds * 1000 : at - useSeconds * 1000;
  return started >= from && started <= at + useSeconds * 1000;
}

function nearest(list: readonly ActionAuthorization[], started: number): ActionAuthorization | null {
  let best: ActionAuthorization | null = null;
  let bestKey: [number, number, string] | null = null;
  for (const x of list) {
    const at = ms(x.at);
    if (Number.isNaN(at) || Number.isNaN(started)) continue;
    const key: [number, number, string] = [Math.abs(started - at), at, x.id];
    if (bestKey === null || compare(key, bestKey) < 0) [best, bestKey] = [x, key];
  }
  return best;
}

function compare(a: [number, number, string], b: [number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
}

/**
 * Decides a pass's transitions together, in the order their tasks started, so an entry explains
 * only the first task it matches; answers in the input's order.
 */
export function assignAuthorizations(
  inputs: readonly AuthorizationInput[],
  ctx: AuthorizationContext,
): AuthorizationVerdict[] {
  const used = new Map<string, readonly UsedEvent[]>(ctx.used ?? []);
  const order = inputs
    .map((input, i) => ({ input, i, task: creditedEventOf(input.attribution) }))
    .sort((x, y) => (x.task && y.task ? ms(x.task.startedAt) - ms(y.task.startedAt) : 0) || x.i - y.i);
  const out: AuthorizationVerdict[] = new Array<AuthorizationVerdict>(inputs.length);
  for (const { input, i } of order) {
    const v = matchAuthorization(input, { ...ctx, used });
    if (v.verdict === 'authorized') {
      const before = used.get(v.authorization.grantId) ?? [];
      const event = creditedEventOf(input.attribution)!;
      if (!before.some((u) => u.id === event.id))
        used.set(v.authorization.grantId, [...before, { id: event.id, type: event.type }]);
    }
    out[i] = v;
  }
  return out;
}
