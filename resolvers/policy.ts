import { AitiaError } from '../src/model/index.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { writeAudit } from '../src/graph/audit.js';
import {
  classifyAction,
  type Decision,
  isBlocked,
  type LoadedPolicy,
  resolveEntityType,
  viewPolicy,
} from '../src/policy/index.js';
import { parseClassifyInput } from '../src/server/classify-request.js';
import type { RequestContext } from '../src/server/context.js';
import { resolveGateTarget } from '../src/server/gate-target.js';
import { assertCan } from '../src/server/permissions.js';

/** The policy in force; a service built without one cannot answer gate questions at all. */
function policyOf(ctx: RequestContext): LoadedPolicy {
  const loaded = ctx.services.policy;
  // Unexpected (serve always loads one): masked as an internal error and logged with this cause.
  if (!loaded) throw new Error('no policy loaded: the service was started without the gate policy');
  return loaded;
}

/** One audit line an auditor can read without the response: what was asked and what the gate said. */
function describeDecision(action: string, command: string | null, d: Decision): string {
  const rule = d.matchedRule === null ? 'no rule' : `approval_rules.${d.matchedRule.index}`;
  const asked =
    command === null
      ? action
      : `${action} ${JSON.stringify(command.length > 500 ? `${command.slice(0, 500)}…` : command)}`;
  const blocked = isBlocked(d) ? '; blocked by preflight' : '';
  return `${asked}: ${d.riskClass} / ${d.autonomy} / approval ${d.approval} (${rule})${blocked}; policy ${d.policyDigest}`;
}

/**
 * Records a gate question in the audit log, answered or refused, before the answer is returned:
 * a classification precedes an action, so an unrecorded one is never handed out.
 */
async function recordClassification<T>(
  ctx: RequestContext,
  targetIds: () => string[],
  run: () => Promise<{ result: T; detail: string }>,
): Promise<T> {
  const base = { principal: ctx.principal.name, role: ctx.principal.role, operation: 'classifyAction' };
  try {
    const { result, detail } = await run();
    await writeAudit(ctx.driver, { ...base, targetIds: targetIds(), outcome: 'ok', detail });
    return result;
  } catch (err) {
    const refused = err instanceof AitiaError;
    await writeAudit(ctx.driver, {
      ...base,
      targetIds: targetIds(),
      outcome: refused ? 'refused' : 'error',
      detail: refused ? `${err.code}: ${err.message}` : 'internal error',
    }).catch((auditErr: unknown) => ctx.services.log.error({ err: auditErr }, 'audit write failed'));
    throw err;
  }
}

export const policyResolvers: Resolvers = {
  Query: {
    policy: (_p, _a, ctx) => {
      assertCan(ctx.principal, 'policy:read');
      return viewPolicy(policyOf(ctx));
    },
    classifyAction: (_p, { input }, ctx) => {
      let resolvedId: string | null = null;
      const ids = () => [...new Set([resolvedId ?? input.target, ...(input.targets ?? [])])];
      return recordClassification(ctx, ids, async () => {
        assertCan(ctx.principal, 'policy:classify');
        const { policy, digest } = policyOf(ctx);
        const request = parseClassifyInput(input);
        const target = await resolveGateTarget(ctx.driver, input.target, 'input.target');
        resolvedId = target.facts.id;
        if (target.resource) ctx.loaders.resourceById.prime(target.resource.id, target.resource);
        const decision = classifyAction(policy, digest, { ...request, target: target.facts });
        const { facts } = target;
        const typed = resolveEntityType(facts);
        const result = {
          ...decision,
          blocked: isBlocked(decision),
          target: {
            id: facts.id,
            slug: facts.slug,
            name: facts.name,
            kind: facts.kind,
            entityType: typed.ok ? typed.type : null,
            lifecycle: facts.lifecycle,
            inGraph: target.resource !== null,
            notes: target.notes,
            resource: target.resource,
          },
        };
        return { result, detail: describeDecision(request.action, request.command ?? null, decision) };
      });
    },
  },
};
