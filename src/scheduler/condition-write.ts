import type { Driver, ManagedTransaction } from 'neo4j-driver';
import { type AuditInput, writeAuditTx } from '../graph/audit.js';
import {
  openConditionsTx,
  resolveConditionsTx,
  type ConditionOpen,
  type ConditionResolve,
} from '../graph/conditions.js';
import { causesOf } from '../graph/transitions/correlation-context.js';
import type { ConditionRecord } from '../model/index.js';
import {
  conditionGate,
  suppressionAudit,
  type ConditionPolicy,
  type ConditionRequest,
  type ConditionWriter,
} from '../pipeline/conditions.js';

/**
 * The health scheduler's condition write, the second of the two places conditions are written
 * from (the first is the observation's, recordTransitions): the tick's opens and resolves, the
 * sweeps' batches, and a declared resource's removal. Before a condition opens the change it
 * follows is looked up (one read for all of them, in this transaction), the attribution gate
 * decides how it opens, and the conditions, their CAUSED_BY links, their feed entries and the
 * audit lines of every suppression decision are written in ONE transaction.
 */

/** What to open (or refresh) and what to resolve. */
export interface ConditionChanges {
  open?: readonly ConditionRequest[];
  resolve?: readonly ConditionResolve[];
}

/** What each open did (in order) and the conditions resolved. */
export interface ConditionsWritten {
  opened: Array<{ condition: ConditionRecord; opened: boolean }>;
  resolved: ConditionRecord[];
}

/**
 * A caller's own writes in the same transaction as its conditions: `plan` runs first (it reads and
 * says which conditions change, e.g. a removed resource's open ones), `finish` after them.
 */
export interface ConditionStep<T> {
  plan(tx: ManagedTransaction): Promise<ConditionChanges>;
  finish(tx: ManagedTransaction, written: ConditionsWritten): Promise<T>;
  /** The caller's audit line for the result (none: null), written in the transaction. */
  audit?(result: T): AuditInput | null;
}

/**
 * Opens (or refreshes) conditions with their causes and the gate's suppression decision, and
 * resolves others, in one transaction. Resources that do not exist (deleted meanwhile) are left out.
 */
export function writeConditions(
  driver: Driver,
  policy: ConditionPolicy,
  writer: ConditionWriter,
  changes: ConditionChanges,
): Promise<ConditionsWritten> {
  return writeConditionsWith(driver, policy, writer, {
    plan: () => Promise.resolve(changes),
    finish: (_tx, written) => Promise.resolve(written),
  });
}

/** {@link writeConditions} with the caller's own step around it, all in one transaction. */
export async function writeConditionsWith<T>(
  driver: Driver,
  policy: ConditionPolicy,
  writer: ConditionWriter,
  step: ConditionStep<T>,
): Promise<T> {
  // Through executeQuery's bookmark manager: executeQuery reads afterwards see the write.
  const session = driver.session({ bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    return await session.executeWrite(async (tx) => {
      const changes = await step.plan(tx);
      const written = await writeTx(tx, policy, writer, changes);
      const result = await step.finish(tx, written);
      const entry = step.audit?.(result) ?? null;
      if (entry) await writeAuditTx(tx, [entry]);
      return result;
    });
  } finally {
    await session.close();
  }
}

async function writeTx(
  tx: ManagedTransaction,
  policy: ConditionPolicy,
  writer: ConditionWriter,
  changes: ConditionChanges,
): Promise<ConditionsWritten> {
  const requests = changes.open ?? [];
  const gate = conditionGate(policy);
  const caused = requests.filter((o) => o.caused !== false);
  const causes = await causesOf(
    tx,
    caused.map((o) => ({ resourceId: o.resourceId, at: o.at, windowSeconds: gate.windowSeconds })),
  );
  const gated = new Map(caused.map((o, i) => [o, gate.open(causes[i] ?? null)]));
  const opens: ConditionOpen[] = requests.map((o) => ({
    resourceId: o.resourceId,
    type: o.type,
    evidence: o.evidence,
    at: o.at,
    ...gated.get(o),
  }));
  const opened = await openConditionsTx(tx, opens);
  const resolved = await resolveConditionsTx(tx, changes.resolve ?? []);
  await writeAuditTx(tx, suppressionAudit(opened, writer));
  return { opened, resolved };
}
