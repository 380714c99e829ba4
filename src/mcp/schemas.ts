import { z } from 'zod';
import {
  DECLARABLE_KINDS,
  ActorKindSchema,
  AttributeKeySchema,
  AttributeValueSchema,
  AttributionConfidenceSchema,
  CheckKindSchema,
  CheckResultStatusSchema,
  ConditionStatusSchema,
  ConditionTypeSchema,
  DirectionSchema,
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
 * The MCP tools' input and output schemas, defined once here from the model's vocabularies: the
 * JSON Schemas of `tools/list` are generated from them, arguments are parsed with them, and every
 * answer is parsed with its output schema before it leaves (unknown fields are dropped).
 */

/** A zod enum over every value of a closed union type: the record makes the list exhaustive. */
function closedEnum<T extends string>(values: Record<T, true>) {
  return z.enum(Object.keys(values) as [T, ...T[]]);
}

/** The largest page a list tool answers, and the page it answers by default. */
export const PAGE = { default: 50, max: 500 } as const;

// ---------------------------------------------------------------- input building blocks

export const RefArg = z
  .string()
  .min(1, 'must not be empty')
  .describe('A resource id (proxmox:homelab/qemu/101) or its kind:name slug (vm:web01).');
export const FirstArg = z
  .number()
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(PAGE.max, `must be at most ${PAGE.max}`)
  .default(PAGE.default)
  .describe(`Page size, 1–${PAGE.max} (default ${PAGE.default}).`);
export const AfterArg = z
  .string()
  .min(1, 'must not be empty')
  .optional()
  .describe('The nextCursor of the previous page; omit for the first page.');
export const TimeArg = z.iso
  .datetime({ offset: true, message: 'must be an ISO-8601 time with a zone, e.g. 2026-05-14T02:08:31Z' })
  .describe('ISO-8601 time with a zone, e.g. 2026-05-14T02:08:31Z.');
export const RiskClassSchema = z
  .enum(RISK_CLASSES)
  .describe('From harmless to irreversible: read_only < reversible_low < config_mutation < destructive.');

// ---------------------------------------------------------------- output building blocks

const Time = z.string().describe('ISO-8601, UTC.');
const NextCursor = z
  .string()
  .nullable()
  .describe('Pass as `after` (with the same other arguments) for the next page; null on the last page.');

/** A resource as `resource_get` and `resources_search` answer it. */
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
});

export const TransitionDecisionOut = z.object({
  decision: closedEnum<TransitionDecisionKind>({ suppress: true, annotate: true, open_incident: true }),
  reasons: z.array(z.string()),
  wouldHaveSuppressed: z.string().nullable().default(null),
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

// ---------------------------------------------------------------- the tools' own schemas

export const ResourceGetIn = z.strictObject({ id: RefArg });

export const ResourcesSearchIn = z.strictObject({
  filter: z
    .strictObject({
      kind: KindSchema.optional(),
      state: z.string().optional().describe('A state word of the filtered kind (e.g. stopped).'),
      provider: ProviderSchema.optional(),
      nameContains: z.string().optional(),
      attribute: z
        .strictObject({ key: AttributeKeySchema, equals: AttributeValueSchema })
        .optional()
        .describe('Only resources whose attribute `key` equals `equals`.'),
      hasOpenCondition: z.boolean().optional(),
      lifecycle: LifecycleSchema.optional(),
    })
    .optional(),
  first: FirstArg,
  after: AfterArg,
});
export const ResourcesSearchOut = z.object({
  resources: z.array(ResourceOut).describe('Ordered by id.'),
  totalCount: z.number().int().describe('How many resources match the filter, over all pages.'),
  nextCursor: NextCursor,
});

export const RelationsIn = z.strictObject({
  id: RefArg,
  types: z.array(RelationshipTypeSchema).optional().describe('Only these types (default: all).'),
  direction: DirectionSchema.default('BOTH'),
  includeStale: z.boolean().default(false).describe('Also observed edges a complete sync no longer saw.'),
  first: FirstArg,
  after: AfterArg,
});
export const RelationsOut = z.object({
  relations: z.array(
    EdgeOut.extend({ from: ResourceRefOut.nullable(), to: ResourceRefOut.nullable() }).describe(
      'An edge from → to (read "from <type> to"), with both ends.',
    ),
  ),
  total: z.number().int(),
  nextCursor: NextCursor,
});

export const TraversalIn = z.strictObject({
  id: RefArg,
  maxDepth: z
    .number()
    .int('must be an integer')
    .min(1, 'must be from 1 to 10')
    .max(10, 'must be from 1 to 10')
    .default(3)
    .describe('Hops to follow, 1–10 (default 3).'),
  first: FirstArg,
  after: AfterArg,
});
export const TraversalOut = z.object({
  root: ResourceRefOut,
  maxDepth: z.number().int(),
  count: z.number().int().describe('Everything reached, over all pages.'),
  reached: z.array(
    z.object({
      depth: z.number().int(),
      resource: ResourceRefOut,
      path: z
        .array(z.object({ type: RelationshipTypeSchema, id: z.string(), name: z.string(), kind: KindSchema }))
        .describe('One shortest path from the root (root excluded).'),
    }),
  ),
  nextCursor: NextCursor,
});

export const IdentityIn = z.strictObject({ id: RefArg });
export const IdentityOut = z.object({
  resource: ResourceOut,
  links: z
    .array(z.object({ relationship: EdgeOut, resource: ResourceOut }))
    .describe('The same real thing as other providers see it (MANIFESTS_AS, either direction).'),
});

export const TransitionsIn = z.strictObject({
  resourceId: RefArg.optional().describe('Only this resource (id or kind:name slug); omit for all.'),
  since: TimeArg.optional(),
  until: TimeArg.optional(),
  first: FirstArg,
  after: AfterArg,
});
export const TransitionsOut = z.object({
  transitions: z.array(TransitionOut).describe('Newest first.'),
  nextCursor: NextCursor,
});

export const ExplainTransitionIn = z.strictObject({
  resourceId: RefArg,
  from: z.string().min(1).describe("A state of the resource's kind (running)."),
  to: z.string().min(1).describe('The state it went to (stopped).'),
  at: TimeArg.describe('When the new state was observed.'),
});
export const ExplainTransitionOut = z.object({
  resourceId: z.string(),
  resource: ResourceRefOut,
  from: z.string(),
  to: z.string(),
  at: Time,
  attribution: AttributionOut,
  decision: TransitionDecisionOut.describe('What the gate would decide with the policy in force.'),
  narrative: z.string(),
});

export const StateAtIn = z.strictObject({ resourceId: RefArg, at: TimeArg });

export const HealthSummaryIn = z.strictObject({
  kind: KindSchema.optional(),
  provider: ProviderSchema.optional(),
  under: RefArg.optional().describe("Only this resource's blast radius (its dependents) and itself."),
});
export const HealthSummaryOut = z.object({
  total: z.number().int(),
  counts: z.array(z.object({ health: HealthSchema, count: z.number().int() })),
  attention: z.array(ResourceRefOut).describe('Unhealthy, degraded or unknown resources (at most 200, worst first).'),
  note: z.string(),
});

export const OpenConditionsIn = z.strictObject({
  resourceId: RefArg.optional().describe('Only this resource; omit for every resource (newest first, at most 500).'),
  first: FirstArg,
  after: AfterArg,
});
export const OpenConditionsOut = z.object({
  conditions: z.array(ConditionOut),
  total: z.number().int(),
  nextCursor: NextCursor,
});

export const ListChecksIn = z.strictObject({ resourceId: RefArg, first: FirstArg, after: AfterArg });
export const ListChecksOut = z.object({ checks: z.array(CheckOut), total: z.number().int(), nextCursor: NextCursor });

export const CreateRelationshipIn = z.strictObject({
  source: RefArg.describe('The source end (id or kind:name slug): read "source <type> target".'),
  target: RefArg.describe('The target end (id or kind:name slug).'),
  type: RelationshipTypeSchema,
  evidence: z.string().max(4096).optional().describe('What you saw that supports the edge (a config line).'),
});
export const CreateRelationshipOut = z.object({
  relationship: EdgeOut,
  created: z.boolean().describe('false when you had already declared the same edge.'),
});

export const UpdateAttributesIn = z.strictObject({
  id: RefArg,
  attributes: z
    .record(AttributeKeySchema, AttributeValueSchema.nullable())
    .describe('Keys to merge; null removes a key. Values: scalars or arrays of scalars.'),
});
export const UpdateAttributesOut = z.object({
  resource: ResourceOut,
  ignored: z
    .array(z.object({ key: z.string(), reason: z.string() }))
    .describe('Keys not written (health, provider-owned fields), each with the reason.'),
  message: z.string(),
});

export const ClassifyActionIn = z.strictObject({
  target: z
    .string()
    .min(1, 'must not be empty')
    .describe(
      'A resource id or kind:name slug, or <entity-type>:<name> for something aitia holds no resource for (dns-record:example.com).',
    ),
  action: z.string().min(1, 'must not be empty').describe('restart, cache-clear, run, destroy, …'),
  params: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('count, memory (MB), disk (GB), force and skip_checks can raise the risk.'),
  command: z.string().optional().describe('The shell command of a `run` action; classified by what it does.'),
  targets: z.array(z.string().min(1)).optional().describe('Every target of a bulk action (more than 3 raise it).'),
  declaredRiskClass: RiskClassSchema.optional().describe('Can raise the class, never lower it.'),
});

export const AuditLogIn = z.strictObject({
  filter: z
    .strictObject({
      principal: z.string().optional(),
      operation: z.string().optional().describe('createRelationship, updateEntityAttributes, classifyAction, …'),
      targetId: z.string().optional(),
      outcome: AuditEntryOut.shape.outcome.optional(),
      since: TimeArg.optional(),
    })
    .optional(),
  first: FirstArg,
  after: AfterArg,
});
export const AuditLogOut = z.object({
  entries: z.array(AuditEntryOut).describe('Newest first.'),
  nextCursor: NextCursor,
});

export const DeclareResourceIn = z.strictObject({
  kind: z
    .enum(DECLARABLE_KINDS)
    .describe(
      'service, host, storage or network: what no provider reports (VMs, containers, clusters come from them).',
    ),
  name: z
    .string()
    .min(1, 'must not be empty')
    .describe('1–128 letters, digits, . _ -; with kind, the slug (service:postgres).'),
  runsOn: RefArg.optional().describe('What it runs on (id or kind:name slug): a service on a host, VM or container.'),
  attributes: z
    .record(AttributeKeySchema, AttributeValueSchema)
    .optional()
    .describe('Descriptive attributes (port, version, unit); owned keys come back in `ignored`.'),
  evidence: z
    .string()
    .min(1, 'say what you saw')
    .max(4096)
    .describe('What you saw that shows it exists (a listening socket, a unit file). Required.'),
});
export const DeclareResourceOut = z.object({
  resource: ResourceOut,
  created: z.boolean().describe('false when the same kind, name and runsOn was declared before (refreshed).'),
  relationship: EdgeOut.nullable().describe('The declared RUNS_ON edge, when runsOn was given.'),
  ignored: z.array(z.object({ key: z.string(), reason: z.string() })),
});

export const IncidentContextIn = z.strictObject({
  resourceId: RefArg,
  since: TimeArg.optional().describe('Start of the window (default: 6 hours before until); at most 7 days.'),
  until: TimeArg.optional().describe('End of the window (default: now).'),
  depth: z
    .number()
    .int('must be an integer')
    .min(1, 'must be from 1 to 5')
    .max(5, 'must be from 1 to 5')
    .default(2)
    .describe('Hops each way, 1–5 (default 2).'),
  zone: z.string().default('UTC').describe('IANA zone for the narrative (Europe/Berlin), or UTC.'),
});
const ReachedOut = z.object({ depth: z.number().int(), resource: ResourceRefOut });
export const IncidentContextOut = z.object({
  resource: ResourceRefOut,
  since: Time,
  until: Time,
  depth: z.number().int(),
  zone: z.string(),
  dependencies: z.array(ReachedOut).describe('What it needs, nearest first.'),
  dependents: z.array(ReachedOut).describe('What needs it (its blast radius), nearest first.'),
  transitions: z.array(TransitionOut).describe('Every transition on all of them in the window, oldest first.'),
  conditions: z
    .array(
      ConditionOut.extend({
        suppressed: z.boolean().describe('Opened suppressed: an expected change, nobody paged.'),
        causeTransitionId: z.string().nullable(),
      }),
    )
    .describe('Open (suppressed included) and in-window conditions, oldest first.'),
  narrative: z.string().describe('One paragraph for the ticket; causes only where the logs hold them.'),
});
