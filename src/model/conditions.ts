import { z } from 'zod';

/**
 * Problems that can be open on a resource. `unmonitored` is reporting only: no remediation.
 * `unauthorized_action`: a mapped agent changed the resource with no matching grant or reported
 * action (issue 33); it is never suppressed.
 */
export const CONDITION_TYPES = [
  'check_failing',
  'unreachable',
  'paused_io_error',
  'adapter_unreachable',
  'unmonitored',
  'unauthorized_action',
] as const;
export const ConditionTypeSchema = z.enum(CONDITION_TYPES);
export type ConditionType = z.infer<typeof ConditionTypeSchema>;

export const CONDITION_STATUSES = ['open', 'resolved'] as const;
export const ConditionStatusSchema = z.enum(CONDITION_STATUSES);
export type ConditionStatus = z.infer<typeof ConditionStatusSchema>;

/** A Condition as reads return it (the write side lives in conditions.ts). */
export interface ConditionRecord {
  id: string;
  type: string;
  status: 'open' | 'resolved';
  resourceId: string;
  openedAt: string;
  resolvedAt: string | null;
  evidence: unknown;
  attribution: unknown;
  /** The transition it followed within the cause window (on the resource or what it runs on), if any. */
  causeTransitionId: string | null;
  /** Opened suppressed (suppression `on`, an expected change): listed, never paged. */
  suppressed: boolean;
  /** Shadow mode: `on` would have opened it suppressed. */
  wouldSuppress: boolean;
  /** Why it was (or would have been) suppressed, or why not. */
  suppressionReasons: string[];
  /** The policy the suppression decision was made under. */
  policyDigest: string | null;
  /** Earlier answers, oldest first: kept when its cause transition was explained again (absent: never). */
  attributionHistory?: PastConditionAttribution[];
}

/** What a condition said before its cause was explained again: the attribution and the gate's decision. */
export interface PastConditionAttribution {
  attribution: unknown;
  suppressed: boolean;
  wouldSuppress: boolean;
  suppressionReasons: string[];
  policyDigest: string | null;
  /** When it was replaced, ISO-8601 UTC. */
  replacedAt: string;
  /** Why: its cause transition was explained again (`the log for … was read later`). */
  replacedBecause: string;
}

/** How a condition changed, as the feed reports it: `suppressed` is an opening nobody is paged for. */
export const CONDITION_CHANGES = ['opened', 'suppressed', 'resolved', 'reattributed'] as const;
export const ConditionChangeKindSchema = z
  .enum(CONDITION_CHANGES)
  .describe(
    'How a condition changed: opened (someone is paged), suppressed (opened, nobody paged), resolved, reattributed (its cause was explained again: new attribution and suppression, the old kept in attributionHistory).',
  );
export type ConditionChangeKind = z.infer<typeof ConditionChangeKindSchema>;
