import { feedFrom } from '../pipeline/bus.js';
import {
  type ApprovalChangeKind,
  type ApprovalFeedPayload,
  type ApprovalRecord,
  badInput,
  type ConditionChangeKind,
  type GrantRefusalCode,
  type ConditionRecord,
  type FeedEntry,
  type FeedTopic,
  type Health,
  type TransitionRecord,
} from '../model/index.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Permission, type Principal } from './permissions.js';
import { resolveRef } from './resources.js';

/**
 * Subscriptions to the feed: every transition (and its re-explanation), condition change, health change and approval change, in sequence
 * order, each with its sequence. A client that reconnects passes the last sequence it received
 * (`since`, or the SSE `Last-Event-ID` header) and receives every entry after it, then live ones.
 */

/** What a subscriber asks for: of one resource (id or slug) or of all, from after a sequence. */
export interface FeedInput {
  resourceId?: string | null;
  since?: number | null;
  /** The SSE `Last-Event-ID` header, used when `since` is not given. */
  lastEventId?: string | null;
}

/** A condition opened (paged), opened suppressed, resolved, or reattributed (its cause explained again). */
export interface ConditionChange {
  sequence: number;
  change: ConditionChangeKind;
  at: string;
  condition: ConditionRecord;
}

/** A resource's health changed (as the scheduler derived it from its checks). */
export interface HealthChange {
  sequence: number;
  resourceId: string;
  from: Health;
  to: Health;
  at: string;
  lastCheck: string | null;
}

/** An approval requested, decided, its grant redeemed, or a redeem of it refused. */
export interface ApprovalChange {
  sequence: number;
  change: ApprovalChangeKind;
  at: string;
  /** The requester, the deciding operator, or the executor that presented the grant. */
  actor: string;
  /** The approval as the change left it. */
  approval: ApprovalRecord;
  /** A refused redeem's failed check; null otherwise. */
  refusal: { code: GrantRefusalCode; field: string | null; message: string } | null;
}

async function subscribe<T>(
  deps: ServiceDeps,
  principal: Principal,
  permission: Permission,
  topic: FeedTopic,
  input: FeedInput,
  map: (e: FeedEntry) => T,
): Promise<AsyncIterable<T>> {
  assertCan(principal, permission);
  const rid = input.resourceId ? (await resolveRef(deps, input.resourceId, 'resourceId')).id : null;
  const since = sinceOf(input);
  const entries = feedFrom(deps.driver, deps.bus, { topics: [topic], resourceId: rid, since });
  // Mapped step by step (not a generator) so the subscriber's return() reaches the feed at once.
  const mapped: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => mapped,
    next: async () => {
      const step = await entries.next();
      return step.done ? { done: true, value: undefined } : { done: false, value: map(step.value) };
    },
    return: async () => {
      await entries.return?.();
      return { done: true, value: undefined };
    },
  };
  return mapped;
}

/** The sequence to resume after: `since`, else a numeric Last-Event-ID, else none (live only). */
function sinceOf(input: FeedInput): number | null {
  if (input.since !== undefined && input.since !== null) {
    if (!Number.isInteger(input.since) || input.since < 0) throw badInput('since', 'must be a sequence number ≥ 0');
    return input.since;
  }
  const header = input.lastEventId?.trim();
  if (!header) return null;
  if (!/^\d+$/.test(header)) throw badInput('Last-Event-ID', 'must be a sequence number a previous event carried');
  return Number(header);
}

/**
 * Transitions as the pipeline stores them, each with its sequence; one explained again later (a
 * log gap read) comes again with its new attribution, the old one last in `attributionHistory`.
 */
export function transitionFeed(
  deps: ServiceDeps,
  principal: Principal,
  input: FeedInput,
): Promise<AsyncIterable<TransitionRecord>> {
  return subscribe(deps, principal, 'transition:read', 'transition', input, (e) => ({
    ...(e.payload as TransitionRecord),
    sequence: e.seq,
  }));
}

/** Conditions opened, opened suppressed (no page), resolved, or reattributed when their cause is explained again. */
export function conditionFeed(
  deps: ServiceDeps,
  principal: Principal,
  input: FeedInput,
): Promise<AsyncIterable<ConditionChange>> {
  return subscribe(deps, principal, 'condition:read', 'condition', input, (e) => ({
    sequence: e.seq,
    change: e.change as ConditionChangeKind,
    at: e.at,
    condition: e.payload as ConditionRecord,
  }));
}

/** Health changes of resources, as the scheduler derives them. */
export function healthFeed(
  deps: ServiceDeps,
  principal: Principal,
  input: FeedInput,
): Promise<AsyncIterable<HealthChange>> {
  return subscribe(deps, principal, 'resource:read', 'health', input, (e) => {
    const p = e.payload as { from: Health; to: Health; lastCheck?: string | null };
    return {
      sequence: e.seq,
      resourceId: e.resourceId,
      from: p.from,
      to: p.to,
      at: e.at,
      lastCheck: p.lastCheck ?? null,
    };
  });
}

/** Approvals as they are requested, approved or denied, and their grants as they are redeemed or refused. */
export function approvalFeed(
  deps: ServiceDeps,
  principal: Principal,
  input: FeedInput,
): Promise<AsyncIterable<ApprovalChange>> {
  return subscribe(deps, principal, 'approval:read', 'approval', input, (e) => {
    const p = e.payload as ApprovalFeedPayload;
    const r = p.redeem;
    return {
      sequence: e.seq,
      change: e.change as ApprovalChangeKind,
      at: e.at,
      actor: p.actor,
      approval: p.approval,
      refusal: r?.outcome === 'refused' && r.code ? { code: r.code, field: r.field, message: r.message ?? '' } : null,
    };
  });
}
