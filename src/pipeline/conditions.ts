import type { Driver } from 'neo4j-driver';
import { writeAuditTx } from '../graph/audit.js';
import {
  openConditionsTx,
  resolveConditionsTx,
  type ConditionOpen,
  type ConditionResolve,
} from '../graph/conditions.js';
import { causesOf } from '../graph/transitions/correlation-context.js';
import type { ConditionRecord, ConditionType, TransitionRecord } from '../model/index.js';
import type { SuppressionMode } from '../policy/policy-document.js';
import type { LoadedPolicy } from '../policy/startup.js';
import { decideCondition } from '../policy/transition-gate.js';

/**
 * Conditions that know their cause: before a condition opens, the change it follows is looked up
 * (one read for all of them: the resource or what it runs on, within the cause window), the
 * attribution gate decides how it opens (suppressed, would-have-been, or paged), and the conditions,
 * their CAUSED_BY links, their feed entries and the audit lines of every suppression decision are
 * written in ONE transaction. The health scheduler and the pipeline open conditions through here.
 */

/** What the attribution gate needs from the policy in force. */
export interface ConditionPolicy {
  suppression: SuppressionMode;
  policyDigest: string | null;
  causeWindowSeconds: number;
}

/** The policy every condition opens under when none is given: shadow, the shipped window. */
export const DEFAULT_CONDITION_POLICY: ConditionPolicy = {
  suppression: 'shadow',
  policyDigest: null,
  causeWindowSeconds: 900,
};

/** The attribution settings of a loaded policy, as conditions need them. */
export function conditionPolicyOf(loaded: LoadedPolicy): ConditionPolicy {
  return {
    suppression: loaded.policy.attribution.suppression,
    policyDigest: loaded.digest,
    causeWindowSeconds: loaded.policy.attribution.cause_window_seconds,
  };
}

/** One condition to open (or refresh when open already). */
export interface ConditionRequest {
  resourceId: string;
  type: ConditionType;
  evidence: unknown;
  at: string;
}

/** Who writes: its audit lines carry this principal. */
export interface ConditionWriter {
  name: string;
  role: 'scheduler' | 'ingester' | 'operator';
}

/** The attribution a condition carries: its cause transition's, with the narrative (as paused_io_error has). */
export function causeAttribution(cause: TransitionRecord): Record<string, unknown> {
  return { transitionId: cause.id, ...cause.attribution, narrative: cause.narrative };
}

/**
 * Opens (or refreshes) conditions with their causes and the gate's suppression decision, and
 * resolves others, in one transaction. Returns what each open did, in order.
 */
export async function writeConditions(
  driver: Driver,
  policy: ConditionPolicy,
  writer: ConditionWriter,
  changes: { open: readonly ConditionRequest[]; resolve?: readonly ConditionResolve[] },
): Promise<{ opened: Array<{ condition: ConditionRecord; opened: boolean }>; resolved: ConditionRecord[] }> {
  const causes = await causesOf(
    driver,
    changes.open.map((o) => ({ resourceId: o.resourceId, at: o.at, windowSeconds: policy.causeWindowSeconds })),
  );
  const opens: ConditionOpen[] = changes.open.map((o, i) => {
    const cause = causes[i] ?? null;
    const decision = decideCondition(cause, policy.suppression);
    return {
      ...o,
      ...(cause ? { attribution: causeAttribution(cause), causeTransitionId: cause.id } : {}),
      suppression: { ...decision, policyDigest: policy.policyDigest },
    };
  });
  const session = driver.session();
  try {
    return await session.executeWrite(async (tx) => {
      const opened = await openConditionsTx(tx, opens);
      const resolved = await resolveConditionsTx(tx, changes.resolve ?? []);
      await writeAuditTx(tx, suppressionAudit(opened, writer));
      return { opened, resolved };
    });
  } finally {
    await session.close();
  }
}

/** One audit line per new condition the gate suppressed or would have suppressed, with the digest. */
export function suppressionAudit(
  opened: ReadonlyArray<{ condition: ConditionRecord; opened: boolean }>,
  writer: ConditionWriter,
) {
  return opened
    .filter((o) => o.opened && (o.condition.suppressed || o.condition.wouldSuppress))
    .map(({ condition: c }) => ({
      principal: writer.name,
      role: writer.role,
      operation: c.suppressed ? 'conditionSuppressed' : 'conditionWouldSuppress',
      targetIds: [c.resourceId, c.id],
      outcome: 'ok' as const,
      detail: `${c.suppressed ? 'suppressed' : 'would have suppressed'} ${c.type} on ${c.resourceId}: ${c.suppressionReasons.join('; ')}; policy ${c.policyDigest ?? 'unknown'}`,
    }));
}
