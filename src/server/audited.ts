import { writeAudit } from '../graph/audit.js';
import { AitiaError } from '../model/index.js';
import type { RequestContext } from './context.js';

/**
 * Runs a mutation and records it in the audit trail with its outcome, whatever happens:
 * ok, refused (an expected AitiaError, with its code), or error (unexpected, masked to the client).
 */
export async function audited<T>(
  ctx: RequestContext,
  operation: string,
  targetIds: string[],
  run: () => Promise<T>,
): Promise<T> {
  const base = { principal: ctx.principal.name, role: ctx.principal.role, operation, targetIds };
  try {
    const result = await run();
    await writeAudit(ctx.driver, { ...base, outcome: 'ok', detail: null });
    return result;
  } catch (err) {
    const refused = err instanceof AitiaError;
    const detail = refused ? `${err.code}: ${err.message}` : 'internal error';
    await writeAudit(ctx.driver, { ...base, outcome: refused ? 'refused' : 'error', detail }).catch(
      (auditErr: unknown) => ctx.services.log.error({ err: auditErr }, 'audit write failed'),
    );
    throw err;
  }
}
