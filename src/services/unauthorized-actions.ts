import { badInput, type ConditionRecord, notFound } from '../model/index.js';
import { DEFAULT_CONDITION_POLICY } from '../pipeline/conditions.js';
import { writeConditionsWith } from '../scheduler/condition-write.js';
import { audited } from './audit.js';
import { nowOf, pipelineDeps, type ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { resolveInputRef } from './resources.js';

/*
 * How an `unauthorized_action` condition ends. It opens when a mapped agent changes a resource
 * with no grant or reported automatic action that explains it (src/pipeline/authorize.ts) and is
 * never suppressed; nothing the agent or a later pass does can close it — a grant redeemed
 * afterwards does not make the earlier act authorized. An operator reviews it: the condition is
 * resolved with who reviewed it and why, in one transaction with the audit line, and the feed
 * reports the resolution. The transitions keep their `unauthorized` attribution.
 */

export const MAX_REVIEW_NOTE = 1000;

export interface ReviewUnauthorizedArgs {
  /** A resource id or its kind:name slug. */
  resourceId: string;
  /** What the operator found (asked the agent, rolled back, accepted). */
  note: string;
}

/** Operators only (they decide approvals), audited: resolves the resource's open unauthorized_action. */
export async function reviewUnauthorizedAction(
  deps: ServiceDeps,
  principal: Principal,
  args: ReviewUnauthorizedArgs,
): Promise<ConditionRecord> {
  let target = args.resourceId;
  return audited(
    deps,
    principal,
    'reviewUnauthorizedAction',
    () => [target],
    async (ok) => {
      assertCan(principal, 'approval:decide');
      const note = typeof args.note === 'string' ? args.note.trim() : '';
      if (note === '')
        throw badInput('note', 'must say what the review found (e.g. "asked rhodes: runbook step, grant forgotten")');
      if (note.length > MAX_REVIEW_NOTE) throw badInput('note', `at most ${MAX_REVIEW_NOTE} characters`);
      const resource = await resolveInputRef(deps, args.resourceId, 'resourceId');
      target = resource.id;
      // Through the health scheduler's condition write (one of the two doors conditions are written
      // through), with the audit line in the same transaction.
      const [resolved] = await writeConditionsWith<ConditionRecord[]>(
        deps.driver,
        pipelineDeps(deps).conditions ?? DEFAULT_CONDITION_POLICY,
        // Only an operator gets here (approval:decide).
        { name: principal.name, role: 'operator' },
        {
          plan: () =>
            Promise.resolve({
              resolve: [
                {
                  resourceId: resource.id,
                  type: 'unauthorized_action' as const,
                  at: nowOf(deps),
                  evidence: { reviewedBy: principal.name, note },
                },
              ],
            }),
          finish: (_tx, written) => Promise.resolve(written.resolved),
          audit: (rows) => (rows.length > 0 ? ok.entry(`resolved ${rows[0]!.id}`) : null),
        },
      );
      if (!resolved) throw notFound('resourceId', `an open unauthorized_action condition on ${resource.id}`);
      return resolved;
    },
    () => null,
    { args },
  );
}
