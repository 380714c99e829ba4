import { z } from 'zod';
import {
  LOG_GAP_REASONS,
  UNKNOWN_REASONS,
  ActorKindSchema,
  AttributeOwnerKindSchema,
  AttributionConfidenceSchema,
  CheckKindSchema,
  CheckResultStatusSchema,
  ConditionStatusSchema,
  ConditionTypeSchema,
  EdgeConfidenceSchema,
  EventTypeSchema,
  HealthSchema,
  KindSchema,
  LifecycleSchema,
  ProvenanceSchema,
  ProviderSchema,
  RelationshipTypeSchema,
  RoleSchema,
  StatusClassSchema,
  SurfaceSchema,
  type TransitionDecisionKind,
} from '../model/index.js';
import type { AuditEntry } from '../services/audit.js';
import { APPROVAL_REQUIREMENTS, AUTONOMY_LEVELS, type Classification, RISK_CLASSES } from '../services/gate.js';
import type { StateAt } from '../services/transitions.js';

/*
 * What the MCP tools' answers are made of, from the model's vocabularies: a resource, an edge, an
 * attribution, a transition, a condition, a check, a past state, the gate's classification, an audit entry.
 * Every answer is parsed with its output schema before it leaves (unknown fields are dropped), and
 * the JSON Schemas of `tools/list` are generated from them.
 */

/** A zod enum over every value of a closed union type: the record makes the list exhaustive. */
function closedEnum<T extends string>(values: Record<T, true>) {
  return z.enum(Object.keys(values) as [T, ...T[]]);
}

export const Time = z.string().describe('ISO-8601, UTC.');
export const NextCursor = z
  .string()
  .nullable()
  .describe('Pass as `after` (with the same other arguments) for the next page; null on the last page.');

const RiskClassSchema = z
  .enum(RISK_CLASSES)
  .describe('From harmless to irreversible: read_only < reversible_low < config_mutation < destructive.');

export const ResourceOut = z.object({
  id: z.string(),
  kind: KindSchema,
  provider: ProviderSchema,
  name: z.string(),
  slug: z.string().describe('kind:name, what agents type (vm:web01).'),
  state: z.string().describe("A state of the kind's closed enum; `unknown` when the provider's word has no mapping."),
  rawState: z.string().nullable().describe("The provider's own word for the state."),
  lifecycle: LifecycleSchema,
  health: HealthSchema,
  attributes: z.record(z.string(), z.unknown()),
  lastCheckAt: Time.nullable(),
  firstSeen: Time.nullable(),
  lastSeen: Time.nullable(),
  missingSince: Time.nullable(),
});

/** A resource as resource_get answers it: with who owns each attribute. */
export const ResourceWithOwnersOut = ResourceOut.extend({
  attributeOwners: z
    .array(
      z.object({
        key: z.string(),
        owner: AttributeOwnerKindSchema,
        principal: z
          .string()
          .nullable()
          .describe('The writer’s name, or the provider (proxmox); null if not recorded.'),
        at: Time.nullable().describe('When that writer wrote it; null when not recorded.'),
      }),
    )
    .describe('One entry per attribute key, by key.'),
});

/** A resource named inside another answer: enough to recognise it and ask for more. */
export const ResourceRefOut = ResourceOut.pick({
  id: true,
  slug: true,
  kind: true,
  name: true,
  state: true,
  health: true,
  lifecycle: true,
});

export const EdgeOut = z.object({
  type: RelationshipTypeSchema,
  fromId: z.string(),
  toId: z.string(),
  provenance: ProvenanceSchema,
  source: z.string().describe('Who asserted it: an ingester (proxmox:lab), a resolver rule, or a principal.'),
  rule: z.string().nullable(),
  confidence: EdgeConfidenceSchema.nullable(),
  evidence: z.string().nullable(),
  firstSeen: Time.nullable(),
  lastSeen: Time.nullable(),
  missingSince: Time.nullable().describe('Set when a complete sync no longer saw this observed edge (stale).'),
});

const AttributionEventOut = z.object({
  id: z.string(),
  role: closedEnum<'cause' | 'request'>({ cause: true, request: true }),
  type: EventTypeSchema,
  rawType: z.string(),
  actor: z.string().nullable(),
  actorKind: ActorKindSchema,
  node: z.string().nullable(),
  startedAt: Time,
  endedAt: Time.nullable(),
  statusClass: StatusClassSchema,
  statusText: z.string().nullable(),
  summary: z.string(),
});

const AuthorizationOut = z.object({
  grantId: z
    .string()
    .describe('The ActionAuthorized entry (auth-…): redeemGrant’s authorizationId, reportActionTaken’s id.'),
  source: closedEnum<'grant' | 'auto'>({ grant: true, auto: true }),
  approvalId: z.string().nullable(),
  action: z.string(),
  principal: z.string().describe('The agent the provider identity maps to (the integrations file’s actors:).'),
  requestedBy: z.string(),
  approvedBy: z.string().nullable(),
  approvedAt: Time.nullable(),
  at: Time.describe('When the grant was redeemed or the automatic action reported.'),
  matchedBy: closedEnum<'task_id' | 'window'>({ task_id: true, window: true }),
  eventId: z.string().describe('The provider task or event it explains.'),
});

const UnauthorizedOut = z.object({
  principal: z.string().describe('The agent whose change it is.'),
  actor: z.string().describe('The provider identity as the task or event wrote it.'),
  eventId: z.string(),
  reason: z.string().describe('Why no grant or reported automatic action matched.'),
});

export const AttributionOut = z.object({
  confidence: AttributionConfidenceSchema,
  actor: z.string().nullable().describe('Who is credited: the requester when the HA manager executed for someone.'),
  actorKind: ActorKindSchema.nullable(),
  requestedBy: z.string().nullable(),
  executor: z.string().nullable(),
  executorKind: ActorKindSchema.nullable(),
  deltaSeconds: z.number().nullable(),
  expectedType: z.boolean(),
  consideredEvents: z.number().int(),
  lookbackSeconds: z.number().int(),
  reason: z.string(),
  events: z.array(AttributionEventOut),
  unknownBecause: z
    .object({
      reason: z.enum(UNKNOWN_REASONS),
      from: Time.nullable(),
      to: Time.nullable(),
      gapReason: z.enum(LOG_GAP_REASONS).nullable(),
      node: z.string().nullable(),
      detail: z.string().nullable(),
      horizon: Time.nullable(),
      clockOffsetSeconds: z.number().nullable(),
      toleranceSeconds: z.number().nullable(),
    })
    .nullable()
    .default(null)
    .describe(
      'On none and medium: why no cause is established — no_record (the log was read completely), log_not_read (from/to/gapReason: the part not read), beyond_retention, clock_uncertain, no_log_for_kind.',
    ),
  authorization: AuthorizationOut.nullable()
    .default(null)
    .describe('The grant (who asked, who approved) or automatic action a mapped agent’s change is credited to.'),
  unauthorized: UnauthorizedOut.nullable()
    .default(null)
    .describe('Set when a mapped agent made the change with no grant or reported automatic action explaining it.'),
});

export const TransitionDecisionOut = z.object({
  decision: closedEnum<TransitionDecisionKind>({ suppress: true, annotate: true, open_incident: true }),
  reasons: z.array(z.string()),
  wouldHaveSuppressed: z.string().nullable().default(null),
});

/** An earlier answer, in summary: who, how sure, why not surer — and when and why it was replaced. */
const PastAttributionOut = z.object({
  attribution: z.object({
    confidence: AttributionConfidenceSchema,
    actor: z.string().nullable().default(null),
    actorKind: ActorKindSchema.nullable().default(null),
    unknownBecause: z
      .object({ reason: z.enum(UNKNOWN_REASONS) })
      .nullable()
      .default(null),
  }),
  narrative: z.string(),
  replacedAt: Time,
  replacedBecause: z.string(),
});

export const TransitionOut = z.object({
  id: z.string(),
  resourceId: z.string(),
  kind: KindSchema,
  from: z.string(),
  to: z.string(),
  rawFrom: z.string().nullable(),
  rawTo: z.string().nullable(),
  observedAt: Time,
  observer: z.string(),
  attribution: AttributionOut,
  decision: TransitionDecisionOut,
  narrative: z.string().describe('The incident sentence, in UTC.'),
  attributionHistory: z
    .array(PastAttributionOut)
    .default([])
    .describe('Earlier answers, oldest first: replaced when a later complete read of a log gap explained it again.'),
});

export const ConditionOut = z.object({
  id: z.string(),
  type: ConditionTypeSchema,
  status: ConditionStatusSchema,
  resourceId: z.string(),
  openedAt: Time,
  resolvedAt: Time.nullable(),
  evidence: z.unknown(),
  attribution: z.unknown().describe('The attribution of the transition that caused it, when one did.'),
});

const CheckResultOut = z.object({
  status: CheckResultStatusSchema,
  at: Time,
  durationMs: z.number().int(),
  reason: z.string().nullable(),
  unreachable: z.boolean(),
});

export const CheckOut = z.object({
  id: z.string(),
  resourceId: z.string(),
  kind: CheckKindSchema,
  spec: z.record(z.string(), z.unknown()),
  target: z.string().describe('What is probed: the URL, host:port, qemu_guest_agent, or state.'),
  intervalSeconds: z.number().int(),
  critical: z.boolean(),
  createdBy: z.string(),
  createdAt: Time,
  lastRunAt: Time.nullable(),
  nextDueAt: Time.nullable(),
  failing: z.boolean().describe('Failed K times in a row and not yet passed K times: keeps check_failing open.'),
  unreachable: z.boolean(),
  latest: CheckResultOut.nullable(),
  results: z.array(CheckResultOut).describe('Newest first, as many as the scheduler keeps (20 by default).'),
});

export const ClassificationOut = z.object({
  riskClass: RiskClassSchema,
  autonomy: z.enum(AUTONOMY_LEVELS).describe('auto: go ahead; escalate: an operator approves first; never: refused.'),
  approval: z.enum([...APPROVAL_REQUIREMENTS, 'not_approvable']),
  matchedRule: z
    .object({
      index: z.number().int(),
      entityType: z.string(),
      action: z.string(),
      scopeEntity: z.string().nullable(),
      riskClass: RiskClassSchema,
      autonomyLevel: z.enum(AUTONOMY_LEVELS),
      matchedBy: closedEnum<NonNullable<Classification['matchedRule']>['matchedBy']>({
        scope_entity: true,
        type: true,
        ancestor: true,
      }),
    })
    .nullable()
    .describe('null when no rule covers the action: it then fails closed (escalate, reason "no rule").'),
  reasons: z.array(z.string()),
  preflight: z.array(z.object({ check: z.string(), ok: z.boolean(), blocking: z.boolean(), message: z.string() })),
  blocked: z.boolean().describe('A blocking preflight failed: fix the cause or pick another target.'),
  policyDigest: z.string(),
  decisionId: z.string().optional().describe('The recorded decision: replay_decision re-runs it.'),
  target: z.object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    kind: KindSchema.nullable(),
    entityType: z.string().nullable(),
    lifecycle: LifecycleSchema,
    inGraph: z.boolean(),
    notes: z.array(z.string()),
    resource: ResourceRefOut.nullable(),
  }),
});

export const StateAtOut = z.object({
  resourceId: z.string(),
  at: Time,
  state: z.string(),
  basis: closedEnum<StateAt['basis']>({
    transition: true,
    before_first_transition: true,
    current_state: true,
    unknown: true,
  }),
  transition: TransitionOut.nullable(),
  reason: z.string(),
});

export const AuditEntryOut = z.object({
  id: z.string(),
  at: Time,
  principal: z.string(),
  role: RoleSchema,
  operation: z.string(),
  targetIds: z.array(z.string()),
  outcome: closedEnum<AuditEntry['outcome']>({ ok: true, refused: true, error: true }),
  detail: z.string().nullable(),
  via: SurfaceSchema.nullable(),
  arguments: z.string().nullable(),
});
