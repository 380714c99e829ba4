import { type AuditEntry, type AuditFilter, type AuditInput, listAudit, writeAudit } from '../graph/audit.js';
import type { KeysetPage } from '../graph/db/statements.js';
import { AitiaError } from '../model/index.js';
import { redactParams } from '../policy/redact.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

export type { AuditEntry };

/**
 * The ok line of an audited run whose effect is one write transaction: the effect's graph function
 * calls `entry` inside that transaction, once the effect is written, and writes it with
 * writeAuditTx (graph/audit.ts `writeWithAudit`), so the two commit together; `audited` then
 * writes no second ok line. A run that never calls it gets its ok line written after it returns.
 */
export interface AuditOk {
  entry(detail?: string | null): AuditInput;
}

/**
 * Runs a mutation or a gate question and records it in the audit trail with its outcome, whatever
 * happens: ok, refused (an expected AitiaError, with its code), or error (unexpected, masked to the
 * client). The ok line is written before the answer is returned, so nothing unrecorded is handed
 * out. `targetIds` may be a function when the targets are only known once `run` resolved them;
 * `detailOf` words an ok outcome (classifyAction records its decision there). Each entry names the
 * surface the principal called through (`via`: graphql or mcp) and, when the operation passes
 * `options.args`, the arguments as asked (secrets redacted, at most {@link MAX_AUDIT_ARGUMENTS} characters).
 * `options.writeOk` writes the ok line: alone by default; classifyAction commits its recorded
 * decision in the same transaction. A run given `ok` ({@link AuditOk}) may write it with its effect.
 */
export async function audited<T>(
  deps: ServiceDeps,
  principal: Principal,
  operation: string,
  targetIds: readonly string[] | (() => readonly string[]),
  run: (ok: AuditOk) => Promise<T>,
  detailOf: (result: T) => string | null = () => null,
  options: { args?: unknown; writeOk?: (entry: AuditInput, result: T) => Promise<unknown> } = {},
): Promise<T> {
  const base = {
    principal: principal.name,
    role: principal.role,
    operation,
    via: principal.via ?? null,
    arguments: options.args === undefined ? null : auditArguments(options.args),
  };
  const targets = () => [...(typeof targetIds === 'function' ? targetIds() : targetIds)];
  const writeOk = options.writeOk ?? ((entry: AuditInput) => writeAudit(deps.driver, entry));
  let okInTx = false;
  const ok: AuditOk = {
    entry: (detail = null) => {
      okInTx = true;
      return { ...base, targetIds: targets(), outcome: 'ok', detail };
    },
  };
  try {
    const result = await run(ok);
    if (!okInTx) await writeOk({ ...base, targetIds: targets(), outcome: 'ok', detail: detailOf(result) }, result);
    return result;
  } catch (err) {
    const refused = err instanceof AitiaError;
    const detail = refused ? `${err.code}: ${err.message}` : 'internal error';
    await writeAudit(deps.driver, {
      ...base,
      targetIds: targets(),
      outcome: refused ? 'refused' : 'error',
      detail,
    }).catch((auditErr: unknown) => deps.log.error({ err: auditErr }, 'audit write failed'));
    throw err;
  }
}

/**
 * Records a request refused before any operation ran (GraphQL validation or a query limit): outcome
 * `refused` with the code and message. A failed write is logged, never thrown (the caller has its answer).
 */
export async function auditRefusal(
  deps: ServiceDeps,
  principal: Principal,
  operation: string,
  detail: string,
): Promise<void> {
  await writeAudit(deps.driver, {
    principal: principal.name,
    role: principal.role,
    operation,
    via: principal.via ?? null,
    targetIds: [],
    outcome: 'refused',
    detail: detail.slice(0, MAX_AUDIT_ARGUMENTS),
  }).catch((err: unknown) => deps.log.error({ err }, 'audit write failed'));
}

/** The longest arguments text an audit entry keeps; longer is cut and marked. */
export const MAX_AUDIT_ARGUMENTS = 4096;

/** Arguments as an audit entry keeps them: JSON, every secret redacted, cut at {@link MAX_AUDIT_ARGUMENTS}. */
export function auditArguments(args: unknown): string {
  const text = JSON.stringify(redactParams(args)) ?? 'null';
  return text.length <= MAX_AUDIT_ARGUMENTS ? text : `${text.slice(0, MAX_AUDIT_ARGUMENTS - 13)}…(truncated)`;
}

/** The audit trail, newest first; operators only. */
export async function auditLog(
  deps: ServiceDeps,
  principal: Principal,
  input: { filter?: AuditFilter | null; first?: number | null; after?: string | null },
): Promise<KeysetPage<AuditEntry>> {
  assertCan(principal, 'audit:read');
  return listAudit(deps.driver, input.filter ?? {}, { first: input.first ?? 50, after: input.after ?? null });
}
