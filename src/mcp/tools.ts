import type { z } from 'zod';
import { checkTarget, type ConditionType, isResourceId } from '../model/index.js';
import { reportActionTaken } from '../services/actions.js';
import { approvals, approve, deny, requestApproval } from '../services/approvals.js';
import { auditLog } from '../services/audit.js';
import { checks } from '../services/checks.js';
import type { ServiceDeps } from '../services/deps.js';
import { declareResource } from '../services/declared.js';
import { classifyAction } from '../services/gate.js';
import { incidentContext } from '../services/incident.js';
import { redeemGrant, setAutonomy } from '../services/grants.js';
import { replayDecision } from '../services/replay.js';
import { healthSummary, openConditions } from '../services/health.js';
import type { Permission, Principal } from '../services/permissions.js';
import { createRelationship, dependencies, dependents, identity, relations } from '../services/relationships.js';
import { resource, resources, resourcesByIds, updateEntityAttributes } from '../services/resources.js';
import { explainTransition, stateAt, transitions } from '../services/transitions.js';
import { nextCursorOf, pageOf } from './paging.js';
import * as A from './approval-schemas.js';
import * as S from './schemas.js';

/**
 * The MCP tools: each is one service operation (validation, permission, audit and the domain rule
 * are the service's), its input and output schemas, the one permission of the catalogue it needs,
 * and the GraphQL field that calls the same service function. `run` only parses → calls → maps, as
 * a resolver does. Adding a tool is adding one entry to TOOLS.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** snake_case, what the agent calls. */
  name: string;
  title: string;
  description: string;
  /** The one permission (src/services/permissions.ts) its service operation asserts. */
  permission: Permission;
  /** The GraphQL field that calls the same service function (`Query.resources`). */
  graphql: `Query.${string}` | `Mutation.${string}`;
  input: I;
  output: O;
  /** MCP behaviour hints, set truthfully: clients use them to decide what needs a person's approval. */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  /**
   * Fields the service names in its errors → this tool's argument names, where they differ. A
   * leading `input.` is always dropped: the tools take their arguments flat.
   */
  fields?: Readonly<Record<string, string>>;
  /** The argument that narrows the answer, named when an answer is over the size limit. */
  narrow?: string;
  run(deps: ServiceDeps, principal: Principal, input: z.output<I>): Promise<z.input<O>>;
}

/** A tool whatever its schemas: what the registry holds. */
export type Tool = ToolDefinition<z.ZodObject, z.ZodObject>;

function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): Tool {
  return tool as unknown as Tool;
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
/** Adds a record each call (an approval, a decision, an authorization): never idempotent, never destructive. */
const RECORD = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/** `dependents` and `dependencies`: the two directions of one walk, paged over what it reached. */
function traversalTool(
  name: 'dependents' | 'dependencies',
  title: string,
  description: string,
  walk: typeof dependents,
): Tool {
  return defineTool({
    name,
    title,
    description,
    permission: 'resource:read',
    graphql: `Query.${name}`,
    input: S.TraversalIn,
    output: S.TraversalOut,
    annotations: READ,
    fields: { slug: 'id' },
    narrow: 'first',
    run: async (deps, principal, { first, after, ...input }) => {
      const answer = await walk(deps, principal, input);
      const page = pageOf(name, answer.reached, { first, after });
      return { ...answer, reached: page.items, nextCursor: page.nextCursor };
    },
  });
}

export const TOOLS: readonly Tool[] = [
  defineTool({
    name: 'resource_get',
    title: 'Get a resource',
    description:
      'One resource by id or kind:name slug (vm:web01): its kind, state (and the provider’s raw word), lifecycle, health and attributes. An ambiguous slug is refused with the candidate ids.',
    permission: 'resource:read',
    graphql: 'Query.resource',
    input: S.ResourceGetIn,
    output: S.ResourceOut,
    annotations: READ,
    fields: { slug: 'id' },
    run: (deps, principal, { id }) => resource(deps, principal, isResourceId(id) ? { id } : { slug: id }),
  }),
  defineTool({
    name: 'resources_search',
    title: 'Search resources',
    description:
      'Resources matching a filter (kind, state, provider, name substring, one attribute value, an open condition, lifecycle), ordered by id, a page at a time.',
    permission: 'resource:read',
    graphql: 'Query.resources',
    input: S.ResourcesSearchIn,
    output: S.ResourcesSearchOut,
    annotations: READ,
    narrow: 'first',
    run: async (deps, principal, input) => {
      const page = await resources(deps, principal, input);
      return { resources: page.nodes, totalCount: page.totalCount, nextCursor: nextCursorOf(page) };
    },
  }),
  defineTool({
    name: 'relations',
    title: 'Relationships of a resource',
    description:
      'The edges touching a resource (RUNS_ON, MEMBER_OF, DEPENDS_ON, STORED_ON, MANIFESTS_AS), each with its provenance (observed, inferred, declared), who asserted it and both ends.',
    permission: 'resource:read',
    graphql: 'Query.relations',
    input: S.RelationsIn,
    output: S.RelationsOut,
    annotations: READ,
    fields: { slug: 'id' },
    narrow: 'first',
    run: async (deps, principal, { first, after, ...input }) => {
      const page = pageOf('relations', await relations(deps, principal, input), { first, after });
      const ends = new Map(
        (await resourcesByIds(deps, [...new Set(page.items.flatMap((e) => [e.fromId, e.toId]))])).map((r) => [r.id, r]),
      );
      return {
        relations: page.items.map((e) => ({ ...e, from: ends.get(e.fromId) ?? null, to: ends.get(e.toId) ?? null })),
        total: page.total,
        nextCursor: page.nextCursor,
      };
    },
  }),
  traversalTool(
    'dependents',
    'Blast radius',
    'Everything hit if the resource fails: what runs on it, is stored on it, depends on it or belongs to it (and what it is elsewhere, via MANIFESTS_AS), to maxDepth hops, each with its depth and one shortest path.',
    dependents,
  ),
  traversalTool(
    'dependencies',
    'What a resource needs',
    'Everything the resource needs: what it runs on, is stored on, depends on and belongs to, to maxDepth hops, each with its depth and one shortest path.',
    dependencies,
  ),
  defineTool({
    name: 'identity',
    title: 'Cross-provider identity',
    description:
      'The same real thing as other providers see it (e.g. a nested ESXi host that is a Proxmox VM): MANIFESTS_AS links with provenance, rule and confidence.',
    permission: 'resource:read',
    graphql: 'Query.identity',
    input: S.IdentityIn,
    output: S.IdentityOut,
    annotations: READ,
    fields: { slug: 'id' },
    run: (deps, principal, input) => identity(deps, principal, input),
  }),
  defineTool({
    name: 'transitions',
    title: 'What changed, and who did it',
    description:
      'Observed state transitions, newest first, of one resource or of all, in [since, until]: each with its attribution (who or what caused it, confidence high/medium/low/none, the provider events it rests on), the gate’s decision and a narrative.',
    permission: 'transition:read',
    graphql: 'Query.transitions',
    input: S.TransitionsIn,
    output: S.TransitionsOut,
    annotations: READ,
    fields: { slug: 'resourceId' },
    narrow: 'first',
    run: async (deps, principal, input) => {
      const page = await transitions(deps, principal, input);
      return { transitions: page.nodes, nextCursor: nextCursorOf(page) };
    },
  }),
  defineTool({
    name: 'explain_transition',
    title: 'Explain a change',
    description:
      'Explains a change you describe (running → stopped at a time) from the stored provider events: attribution, narrative and what the gate would decide. Stores nothing; "the cause is unknown" when nothing explains it.',
    permission: 'transition:read',
    graphql: 'Query.explainTransition',
    input: S.ExplainTransitionIn,
    output: S.ExplainTransitionOut,
    annotations: READ,
    fields: { slug: 'resourceId' },
    run: async (deps, principal, input) => {
      const x = await explainTransition(deps, principal, input);
      const { resourceId, from, to, observedAt: at } = x.transition;
      return { resourceId, from, to, at, ...x };
    },
  }),
  defineTool({
    name: 'state_at',
    title: 'State at a time',
    description:
      'A resource’s state at a past time, from its transition history, with how it was derived and the transition it rests on.',
    permission: 'transition:read',
    graphql: 'Query.stateAt',
    input: S.StateAtIn,
    output: S.StateAtOut,
    annotations: READ,
    fields: { slug: 'resourceId' },
    run: (deps, principal, input) => stateAt(deps, principal, input),
  }),
  defineTool({
    name: 'health_summary',
    title: 'Health summary',
    description:
      'Counts of resources by health (of everything, a kind, a provider, or one resource’s blast radius) and the ones needing attention. Health is derived by the scheduler from checks; nobody sets it.',
    permission: 'resource:read',
    graphql: 'Query.healthSummary',
    input: S.HealthSummaryIn,
    output: S.HealthSummaryOut,
    annotations: READ,
    fields: { 'scope.under': 'under', slug: 'under' },
    run: (deps, principal, input) => healthSummary(deps, principal, input),
  }),
  defineTool({
    name: 'open_conditions',
    title: 'Open problems',
    description:
      'Open conditions (check_failing, unreachable, paused_io_error, adapter_unreachable, unmonitored) of one resource, or of every resource (newest first).',
    permission: 'condition:read',
    graphql: 'Query.openConditions',
    input: S.OpenConditionsIn,
    output: S.OpenConditionsOut,
    annotations: READ,
    fields: { slug: 'resourceId' },
    narrow: 'first',
    run: async (deps, principal, { first, after, ...input }) => {
      const page = pageOf('open_conditions', await openConditions(deps, principal, input), { first, after });
      return {
        conditions: page.items.map((c) => ({ ...c, type: c.type as ConditionType })),
        total: page.total,
        nextCursor: page.nextCursor,
      };
    },
  }),
  defineTool({
    name: 'list_checks',
    title: 'Checks of a resource',
    description:
      'The health checks attached to a resource (http, tcp, proxmox_agent, provider_state): what each probes, whether it is failing, and its recent results.',
    permission: 'check:read',
    graphql: 'Query.checks',
    input: S.ListChecksIn,
    output: S.ListChecksOut,
    annotations: READ,
    fields: { slug: 'resourceId' },
    narrow: 'first',
    run: async (deps, principal, { first, after, ...input }) => {
      const page = pageOf('list_checks', await checks(deps, principal, input), { first, after });
      return {
        checks: page.items.map((c) => ({
          ...c,
          target: checkTarget(c),
          failing: c.failing.active,
          unreachable: c.unreachable.active,
          latest: c.results[0] ?? null,
        })),
        total: page.total,
        nextCursor: page.nextCursor,
      };
    },
  }),
  defineTool({
    name: 'create_relationship',
    title: 'Record a dependency',
    description:
      'Declares an edge you discovered, with your evidence: it is stored as `declared` under your name. Idempotent: a repeat answers created: false. Nothing new may depend on a deprecated or destroyed resource. Between provider resources you may declare DEPENDS_ON only: RUNS_ON, MEMBER_OF and STORED_ON are observed by the provider, MANIFESTS_AS is inferred by the identity resolver or declared by an operator. A manual resource you declared may carry its own RUNS_ON. Audited.',
    permission: 'relationship:declare',
    graphql: 'Mutation.createRelationship',
    input: S.CreateRelationshipIn,
    output: S.CreateRelationshipOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (deps, principal, input) => createRelationship(deps, principal, input),
  }),
  defineTool({
    name: 'update_entity_attributes',
    title: 'Describe a resource',
    description:
      'Merges descriptive attributes (owner, role, …) into a resource named by id or kind:name slug; null removes a key. Health, provider fields and every key a provider can report for the kind (qemu_guest_agent, serial_number, lock, hastate, …, whether or not its last pass reported it), in any spelling (Health is health), are never written: they come back in `ignored` with the reason. entity_type chooses the policy rule and is operator-owned: an agent writing it is FORBIDDEN. Audited.',
    permission: 'attribute:update',
    graphql: 'Mutation.updateEntityAttributes',
    input: S.UpdateAttributesIn,
    output: S.UpdateAttributesOut,
    // It overwrites and removes keys (not only additive); the same call twice leaves the same state.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: (deps, principal, input) => updateEntityAttributes(deps, principal, input),
  }),
  defineTool({
    name: 'classify_action',
    title: 'Ask the gate before acting',
    description:
      'Whether an action on a target may run on its own (auto), needs an operator (escalate) or never runs: its risk class, approval, the rule it matched and every reason. Nothing is queued; the question and the answer are recorded in the audit log.',
    permission: 'policy:classify',
    graphql: 'Query.classifyAction',
    input: S.ClassifyActionIn,
    output: S.ClassificationOut,
    // It changes nothing it is asked about: the only write is its own audit line.
    annotations: READ,
    run: (deps, principal, input) => classifyAction(deps, principal, input),
  }),
  defineTool({
    name: 'audit_log',
    title: 'Audit log',
    description:
      'Every mutation and gate question as it was asked and answered, newest first: who, through which surface (graphql, mcp), on what, the outcome and its detail. Operators only.',
    permission: 'audit:read',
    graphql: 'Query.auditLog',
    input: S.AuditLogIn,
    output: S.AuditLogOut,
    annotations: READ,
    narrow: 'first',
    run: async (deps, principal, input) => {
      const page = await auditLog(deps, principal, input);
      return { entries: page.nodes, nextCursor: nextCursorOf(page) };
    },
  }),
  defineTool({
    name: 'declare_resource',
    title: 'Record something you found',
    description:
      'Declares a resource no provider reports — a service you found listening on a VM, a bare-metal box, a NAS — with your evidence: it gets a manual: id, provenance declared and your name, and appears in blast radius and incident context. Idempotent on (kind, name, runsOn): a repeat refreshes it and answers created: false. Audited.',
    permission: 'resource:declare',
    graphql: 'Mutation.declareResource',
    input: S.DeclareResourceIn,
    output: S.DeclareResourceOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (deps, principal, input) => declareResource(deps, principal, input),
  }),
  defineTool({
    name: 'incident_context',
    title: 'Incident context',
    description:
      'Everything an incident ticket needs about one resource in one call: what it needs and what needs it (to depth), every transition on them in the window with who or what caused it, their conditions (suppressed ones too) and one paragraph that names causes only where the hypervisor’s logs hold them — "cause unknown" otherwise. Bounded: too many resources or transitions is an error naming what to narrow.',
    permission: 'incident:read',
    graphql: 'Query.incidentContext',
    input: S.IncidentContextIn,
    output: S.IncidentContextOut,
    annotations: READ,
    fields: { slug: 'resourceId' },
    narrow: 'depth',
    run: async (deps, principal, input) => {
      const found = await incidentContext(deps, principal, input);
      return { ...found, conditions: found.conditions.map((c) => ({ ...c, type: c.type as ConditionType })) };
    },
  }),
  defineTool({
    name: 'request_approval',
    title: 'Ask an operator to approve an action',
    description:
      'For an action classify_action escalates (or a plan of steps): records a pending approval bound to the exact action, target, parameters and policy. An operator other than you approves it; you then redeem its grant once with redeem_grant. Refused for an action that is auto (needs none), never allowed, or blocked by preflight. Audited.',
    permission: 'approval:request',
    graphql: 'Mutation.requestApproval',
    input: A.RequestApprovalIn,
    output: A.RequestApprovalOut,
    annotations: RECORD,
    run: async (deps, principal, input) => ({ approvals: await requestApproval(deps, principal, input) }),
  }),
  defineTool({
    name: 'approvals',
    title: 'Approval requests',
    description: 'Approval requests newest first, optionally of one status (pending, approved, denied, used).',
    permission: 'approval:read',
    graphql: 'Query.approvals',
    input: A.ApprovalsIn,
    output: A.ApprovalsOut,
    annotations: READ,
    narrow: 'first',
    run: async (deps, principal, input) => {
      const page = await approvals(deps, principal, input);
      return { approvals: page.nodes, nextCursor: nextCursorOf(page) };
    },
  }),
  defineTool({
    name: 'approve',
    title: 'Approve a request',
    description:
      "Operators only, never your own request. Approves a pending approval (operator_confirmed needs confirmTarget, the target's name) or a plan's non-destructive steps, and returns each grant token once. Audited.",
    permission: 'approval:decide',
    graphql: 'Mutation.approve',
    input: A.ApproveIn,
    output: A.DecisionOut,
    annotations: RECORD,
    run: (deps, principal, input) => approve(deps, principal, input),
  }),
  defineTool({
    name: 'deny',
    title: 'Deny a request',
    description:
      'Operators only, never your own request. Denies a pending approval (or a plan’s pending steps) with the reason. Audited.',
    permission: 'approval:decide',
    graphql: 'Mutation.deny',
    input: A.DenyIn,
    output: A.DecisionOut,
    annotations: RECORD,
    run: (deps, principal, input) => deny(deps, principal, input),
  }),
  defineTool({
    name: 'redeem_grant',
    title: 'Redeem a grant before acting',
    description:
      'Presents a grant token with exactly the approved action: authorized once, atomically. A replayed, expired, changed (naming the field), policy-changed or halted grant is refused with its code and nothing is used up. Audited.',
    permission: 'grant:redeem',
    graphql: 'Mutation.redeemGrant',
    input: A.RedeemGrantIn,
    output: A.RedeemGrantOut,
    annotations: RECORD,
    run: (deps, principal, input) => redeemGrant(deps, principal, input),
  }),
  defineTool({
    name: 'set_autonomy',
    title: 'Kill switch',
    description:
      'Operators only. halt: every classify_action escalates ("halted by X at T: reason") and every redeem is refused; normal: the policy decides again. Audited.',
    permission: 'autonomy:set',
    graphql: 'Mutation.setAutonomy',
    input: A.SetAutonomyIn,
    output: A.AutonomyOut,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (deps, principal, input) => setAutonomy(deps, principal, input),
  }),
  defineTool({
    name: 'report_action_taken',
    title: 'Report an automatic action taken',
    description:
      'After acting on an `auto` answer of classify_action, report it: recorded (cooldowns and the breaker count it) only when the gate still answers auto; otherwise refused — it needed an approval. Audited.',
    permission: 'action:report',
    graphql: 'Mutation.reportActionTaken',
    input: S.ClassifyActionIn,
    output: A.ActionAuthorizedOut,
    annotations: RECORD,
    run: (deps, principal, input) => reportActionTaken(deps, principal, input),
  }),
  defineTool({
    name: 'replay_decision',
    title: 'Replay a gate decision',
    description:
      'Re-runs a recorded classify_action (its decisionId) on the stored inputs and facts under the policy in force: identical or not, and what differs.',
    permission: 'policy:classify',
    graphql: 'Query.replayDecision',
    input: A.ReplayDecisionIn,
    output: A.ReplayDecisionOut,
    annotations: READ,
    run: (deps, principal, input) => replayDecision(deps, principal, input),
  }),
];
