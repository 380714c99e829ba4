import type {
  ApprovalFeedPayload,
  Attribution,
  AutonomyFeedPayload,
  ConditionRecord,
  FeedEntry,
  TransitionRecord,
} from '../model/index.js';
import { isExpected, type TransitionAttribution } from '../policy/transition-gate.js';
import { alertPayload } from './alert-notification.js';
import type { NotificationEvent } from './integrations-file.js';

/**
 * Which notification a stored feed entry is, and what it carries (pure). One entry is at most one
 * event: a transition nobody explains (confidence none) is `transition.unexplained`; a condition
 * opened or opened suppressed is `condition.opened`, a resolve `condition.resolved`, both with the
 * cause, whether the change was expected (a principal changed the resource at high confidence: the
 * gate's isExpected, the rule the Alertmanager silencer uses too), whether it was suppressed and the
 * narrative; a condition whose cause was explained again is `condition.reattributed` with what it
 * said before — or `condition.opened` when that lifted its suppression, since it pages now; a
 * transition explained again is `transition.reexplained` with the answer before, the answer now and
 * why (never `transition.unexplained` a second time); an approval requested, approved or denied,
 * expired (the expiry sweep), redeemed or refused is `approval.*` / `grant.*`; the kill switch set or the breaker opened is
 * `autonomy.changed`; an alert Alertmanager delivered to POST /integrations/alertmanager is
 * `alert.received` (alert-notification.ts). Health entries are not news here: what they change
 * reaches people as the conditions they open.
 */

export interface NotificationMessage {
  /** The feed sequence it comes from: with the target's name, the idempotency key. */
  seq: number;
  event: NotificationEvent;
  at: string;
  resourceId: string;
  payload: Record<string, unknown>;
}

type CauseAttribution = Partial<TransitionAttribution> & { transitionId?: string; narrative?: string };

/** Expected: the cause's attribution is a principal's at high confidence — not whether it was suppressed. */
function expectedOf(a: CauseAttribution | null): boolean {
  return a !== null && typeof a.confidence === 'string' && isExpected(a as TransitionAttribution);
}

function conditionPayload(c: ConditionRecord): Record<string, unknown> {
  const a = (c.attribution ?? null) as CauseAttribution | null;
  return {
    condition: { id: c.id, type: c.type, status: c.status, openedAt: c.openedAt, resolvedAt: c.resolvedAt },
    cause: c.causeTransitionId
      ? {
          transitionId: c.causeTransitionId,
          actor: a?.actor ?? null,
          actorKind: a?.actorKind ?? null,
          confidence: a?.confidence ?? null,
        }
      : null,
    expected: c.causeTransitionId !== null && expectedOf(a),
    suppressed: c.suppressed,
    suppressionReasons: c.suppressionReasons,
    narrative: a?.narrative ?? (c.causeTransitionId ? null : 'cause unknown'),
  };
}

/** What a condition said before its cause was explained again, as receivers compare it: the last history line. */
function previousOf(c: ConditionRecord): Record<string, unknown> | null {
  const past = c.attributionHistory?.at(-1);
  if (!past) return null;
  const a = (past.attribution ?? null) as CauseAttribution | null;
  return {
    cause: a ? { actor: a.actor ?? null, actorKind: a.actorKind ?? null, confidence: a.confidence ?? null } : null,
    expected: c.causeTransitionId !== null && expectedOf(a),
    suppressed: past.suppressed,
    suppressionReasons: past.suppressionReasons,
    narrative: a?.narrative ?? null,
    replacedBecause: past.replacedBecause,
  };
}

/** One answer of a transition, as a receiver reads it: who, how sure, and why not surer. */
function answerOf(a: Attribution, narrative: string): Record<string, unknown> {
  return {
    confidence: a.confidence,
    actor: a.actor,
    actorKind: a.actorKind,
    unknownBecause: a.unknownBecause?.reason ?? null,
    narrative,
  };
}

function transitionPayload(t: TransitionRecord): Record<string, unknown> {
  return { id: t.id, kind: t.kind, from: t.from, to: t.to, observedAt: t.observedAt };
}

/** A transition explained again: the answer before (the last history line), the answer now, and why. */
function reexplained(base: Omit<NotificationMessage, 'event' | 'payload'>, t: TransitionRecord): NotificationMessage {
  const past = t.attributionHistory?.at(-1);
  return {
    ...base,
    event: 'transition.reexplained',
    payload: {
      transition: transitionPayload(t),
      before: past ? answerOf(past.attribution, past.narrative) : null,
      after: answerOf(t.attribution, t.narrative),
      because: past?.replacedBecause ?? null,
      decision: t.decision.decision,
      narrative: t.narrative,
    },
  };
}

function approvalPayload(change: string, p: ApprovalFeedPayload): Record<string, unknown> {
  const a = p.approval;
  return {
    change,
    actor: p.actor,
    approval: {
      id: a.id,
      status: a.status,
      action: a.action,
      targetId: a.targetId,
      targetName: a.targetName,
      requester: a.requester,
      reason: a.reason,
      riskClass: a.riskClass,
      requestedAt: a.requestedAt,
      expiresAt: a.expiresAt,
      decidedBy: a.decidedBy,
      decisionReason: a.decisionReason,
      planId: a.planId,
      step: a.step,
    },
    redeem: p.redeem ? { outcome: p.redeem.outcome, code: p.redeem.code, message: p.redeem.message } : null,
  };
}

const APPROVAL_EVENTS: Record<string, NotificationEvent> = {
  requested: 'approval.requested',
  approved: 'approval.decided',
  denied: 'approval.decided',
  expired: 'approval.expired',
  redeemed: 'grant.redeemed',
  refused: 'grant.refused',
};

/** The notification a feed entry is, or null when it is none. */
export function notificationOf(entry: FeedEntry): NotificationMessage | null {
  const base = { seq: entry.seq, at: entry.at, resourceId: entry.resourceId };
  if (entry.payload === null || typeof entry.payload !== 'object') return null;
  switch (entry.topic) {
    case 'transition': {
      const t = entry.payload as TransitionRecord;
      if (entry.change === 'reexplained') return reexplained(base, t);
      if (t.attribution?.confidence !== 'none') return null;
      return {
        ...base,
        event: 'transition.unexplained',
        payload: { transition: transitionPayload(t), narrative: t.narrative },
      };
    }
    case 'condition': {
      const c = entry.payload as ConditionRecord;
      if (entry.change === 'reattributed') {
        const previous = previousOf(c);
        // A lifted suppression pages: it reaches whoever listens for openings.
        const event = previous?.suppressed && !c.suppressed ? 'condition.opened' : 'condition.reattributed';
        return { ...base, event, payload: { ...conditionPayload(c), previous } };
      }
      const event = entry.change === 'resolved' ? 'condition.resolved' : 'condition.opened';
      return { ...base, event, payload: conditionPayload(c) };
    }
    case 'approval': {
      const event = APPROVAL_EVENTS[entry.change];
      return event
        ? { ...base, event, payload: approvalPayload(entry.change, entry.payload as ApprovalFeedPayload) }
        : null;
    }
    case 'autonomy': {
      const p = entry.payload as AutonomyFeedPayload;
      return { ...base, event: 'autonomy.changed', payload: { change: entry.change, ...p } };
    }
    case 'alert':
      return entry.change === 'received'
        ? { ...base, event: 'alert.received', payload: alertPayload(entry.payload) }
        : null;
    default:
      return null;
  }
}
