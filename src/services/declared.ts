import * as repo from '../graph/resources/declared.js';
import {
  AitiaError,
  badInput,
  DECLARABLE_KINDS,
  DeclaredEvidenceSchema,
  DeclaredNameSchema,
  declaredResourceId,
  describeZodIssues,
  type EdgeRecord,
  isDeclarableKind,
  planAttributeUpdate,
  refusePair,
  type ResourceRecord,
} from '../model/index.js';
import { checkNewInboundEdge } from '../policy/index.js';
import type { AuditInput } from '../graph/audit.js';
import { DEFAULT_CONDITION_POLICY } from '../pipeline/conditions.js';
import { writeConditionsWith } from '../scheduler/condition-write.js';
import { audited } from './audit.js';
import { nowOf, pipelineDeps, type ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { resolveInputRef } from './resources.js';

/** What an agent found and declares: a `manual:` resource with provenance `declared`. */
export interface DeclareResourceInput {
  kind: string;
  name: string;
  /** What it runs on (id or `kind:name` slug), for a service. */
  runsOn?: string | null;
  /** Descriptive attributes only: owned keys (health, provider fields) are ignored with the reason. */
  attributes?: unknown;
  evidence: string;
}

export interface DeclareResourceResult {
  resource: ResourceRecord;
  /** false when the same (kind, name, runsOn) was declared before: the declaration was refreshed. */
  created: boolean;
  relationship: EdgeRecord | null;
  ignored: Array<{ key: string; reason: string }>;
}

function parsed<T>(
  field: string,
  result:
    | { success: true; data: T }
    | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } },
): T {
  if (!result.success) throw badInput(field, describeZodIssues(result.error.issues));
  return result.data;
}

/**
 * Declares a resource no provider reports (agents and operators; audited). Idempotent on (kind,
 * name, runsOn): a repeat refreshes its attributes and evidence and answers `created: false`.
 * Nothing is placed on a destroyed or deprecated resource, and the placement must be one RUNS_ON
 * allows (a service on a host, VM or container). The declarer and the evidence stay on the node.
 */
export function declareResource(
  deps: ServiceDeps,
  principal: Principal,
  input: DeclareResourceInput,
): Promise<DeclareResourceResult> {
  let targetIds: string[] = [];
  return audited(
    deps,
    principal,
    'declareResource',
    () => targetIds,
    async (ok) => {
      assertCan(principal, 'resource:declare');
      const { kind } = input;
      if (!isDeclarableKind(kind)) {
        throw badInput(
          'input.kind',
          `${kind} cannot be declared (declarable: ${DECLARABLE_KINDS.join(', ')}); VMs, containers and clusters come from their providers`,
        );
      }
      const name = parsed('input.name', DeclaredNameSchema.safeParse(input.name));
      const evidence = parsed('input.evidence', DeclaredEvidenceSchema.safeParse(input.evidence));
      const runsOn = input.runsOn ? await resolveInputRef(deps, input.runsOn, 'input.runsOn') : null;
      if (runsOn) {
        const pair = refusePair('RUNS_ON', kind, runsOn.kind);
        if (pair) throw badInput('input.runsOn', pair);
        const inbound = checkNewInboundEdge(runsOn);
        if (!inbound.ok) throw badInput('input.runsOn', inbound.reason);
      }
      const planned = planAttributeUpdate(
        input.attributes ?? {},
        { kind, provider: 'manual', providerAttributeKeys: [] },
        principal,
      );
      if (!planned.ok && planned.code === 'FORBIDDEN')
        throw new AitiaError('FORBIDDEN', `input.${planned.field}: ${planned.reason}`, {
          field: `input.${planned.field}`,
        });
      if (!planned.ok) throw badInput(`input.${planned.field}`, planned.reason);
      const attributes = Object.fromEntries(
        Object.entries(planned.plan.set).filter((e): e is [string, NonNullable<(typeof e)[1]>] => e[1] !== null),
      );
      const existing = await repo.findDeclaredResource(deps.driver, { kind, name, runsOnId: runsOn?.id ?? null });
      const id = existing?.id ?? declaredResourceId(kind, name, runsOn?.id ?? null);
      targetIds = runsOn ? [id, runsOn.id] : [id];
      const written = await repo.declareManualResource(
        deps.driver,
        id,
        {
          kind,
          name,
          runsOnId: runsOn?.id ?? null,
          attributes,
          declaredBy: principal.name,
          evidence,
          at: nowOf(deps),
        },
        () => ok.entry(),
      );
      return { ...written, ignored: planned.plan.ignored };
    },
    undefined,
    { args: input },
  );
}

/**
 * Removes a declared resource (operators; audited): its edges go with it, its open conditions are
 * resolved. Provider resources are refused (their lifecycle is the provider's and setLifecycle's),
 * and so is one that still has checks, naming them.
 */
export function removeDeclaredResource(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string },
): Promise<{ id: string; edges: number; resolvedConditions: number }> {
  return audited(
    deps,
    principal,
    'removeDeclaredResource',
    [input.id],
    async (ok) => {
      assertCan(principal, 'resource:remove-declared');
      const target = await resolveInputRef(deps, input.id, 'id');
      if (target.provider !== 'manual') {
        throw badInput(
          'id',
          `${target.id} is reported by ${target.provider}, not declared: only declared (manual:) resources can be removed; use setLifecycle for provider resources`,
        );
      }
      const outcome = await removeDeclared(deps, target.id, principal.name, () => ok.entry());
      if (!outcome) throw badInput('id', `no resource ${input.id}`);
      if ('checks' in outcome) {
        throw badInput(
          'id',
          `${target.id} still has ${outcome.checks.length} check(s): remove them first (removeCheck): ${outcome.checks.join(', ')}`,
        );
      }
      return { id: target.id, ...outcome.removed };
    },
    undefined,
    { args: input },
  );
}

/**
 * The removal in ONE transaction, through the health scheduler's condition write: the resource is
 * locked and read (refused with its checks), its open conditions resolved, then it goes with its
 * edges; the audit line only for a removal (the refusals are audited by the caller).
 */
function removeDeclared(
  deps: ServiceDeps,
  id: string,
  by: string,
  audit: () => AuditInput,
): Promise<{ removed: repo.DeclaredRemoval } | { checks: string[] } | null> {
  let plan: repo.DeclaredRemovalPlan | null = null;
  const at = nowOf(deps);
  return writeConditionsWith(
    deps.driver,
    pipelineDeps(deps).conditions ?? DEFAULT_CONDITION_POLICY,
    { name: by, role: 'operator' },
    {
      plan: async (tx) => {
        plan = await repo.planDeclaredRemovalTx(tx, id);
        if (!plan || 'checks' in plan) return {};
        const evidence = { reason: `resource removed by ${by}` };
        return { resolve: plan.openConditions.map((type) => ({ resourceId: id, type, evidence, at })) };
      },
      finish: async (tx, written) => {
        if (!plan || 'checks' in plan) return plan;
        const edges = await repo.deleteDeclaredTx(tx, id);
        return { removed: { edges, resolvedConditions: written.resolved.length } };
      },
      audit: (result) => (result && 'removed' in result ? audit() : null),
    },
  );
}
