import { type AuditEntry, type AuditFilter, type AuditInput, listAudit, writeAudit } from '../graph/audit.js';
import type { KeysetPage } from '../graph/statements.js';
import { AitiaError } from '../model/index.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

export type { AuditEntry };

/**
 * Runs a mutation or a gate question and records it in the audit trail with its outcome, whatever
 * happens: ok, refused (an expected AitiaError, with its code), or error (unexpected, masked to the
 * client). The ok line is written before the answer is returned, so nothing unrecorded is handed
 * out. `targetIds` may be a function when the targets are only known once `run` resolved them;
 * `detailOf` words an ok outcome (classifyAction records its decision there). Each entry names the
 * surface the principal called through (`via`: graphql or mcp). `writeOk` writes the ok line: alone
 * by default; classifyAction commits its recorded decision in the same transaction.
 */
export async function audited<T>(
  deps: ServiceDeps,
  principal: Principal,
  operation: string,
  targetIds: readonly string[] | (() => readonly string[]),
  run: () => Promise<T>,
  detailOf: (result: T) => string | null = () => null,
  writeOk: (entry: AuditInput, result: T) => Promise<unknown> = (entry) => writeAudit(deps.driver, entry),
): Promise<T> {
  const base = { principal: principal.name, role: principal.role, operation, via: principal.via ?? null };
  const targets = () => [...(typeof targetIds === 'function' ? targetIds() : targetIds)];
  try {
    const result = await run();
    await writeOk({ ...base, targetIds: targets(), outcome: 'ok', detail: detailOf(result) }, result);
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

/** The audit trail, newest first; operators only. */
export async function auditLog(
  deps: ServiceDeps,
  principal: Principal,
  input: { filter?: AuditFilter | null; first?: number | null; after?: string | null },
): Promise<KeysetPage<AuditEntry>> {
  assertCan(principal, 'audit:read');
  return listAudit(deps.driver, input.filter ?? {}, { first: input.first ?? 50, after: input.after ?? null });
}
