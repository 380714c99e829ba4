import { z } from 'zod';
import { HealthSchema, KindSchema, LOG_GAP_REASONS, RelationshipTypeSchema } from '../model/index.js';
import {
  AttributionOut,
  AuditEntryOut,
  CheckOut,
  ConditionOut,
  EdgeOut,
  NextCursor,
  ResourceOut,
  ResourceRefOut,
  Time,
  TransitionDecisionOut,
  TransitionOut,
} from './records.js';

/*
 * Each graph tool's answer: the records of src/mcp/records.ts arranged as the tool answers them,
 * with a list tool's page (nextCursor). The approval tools' answers are in approval-outputs.ts.
 */

export const ResourcesSearchOut = z.object({
  resources: z.array(ResourceOut).describe('Ordered by id.'),
  totalCount: z.number().int().describe('How many resources match the filter, over all pages.'),
  nextCursor: NextCursor,
});

export const ResourcesFindOut = z.object({
  resources: z
    .array(ResourceOut)
    .describe(
      'Best match first: the exact id, an exact slug or name, a name starting with it, then names and ids containing it.',
    ),
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

export const IdentityOut = z.object({
  resource: ResourceOut,
  links: z
    .array(z.object({ relationship: EdgeOut, resource: ResourceOut }))
    .describe('The same real thing as other providers see it (MANIFESTS_AS, either direction).'),
});

export const TransitionsOut = z.object({
  transitions: z.array(TransitionOut).describe('Newest first.'),
  nextCursor: NextCursor,
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

export const HealthSummaryOut = z.object({
  total: z.number().int(),
  counts: z.array(z.object({ health: HealthSchema, count: z.number().int() })),
  attention: z.array(ResourceRefOut).describe('Unhealthy, degraded or unknown resources (at most 200, worst first).'),
  note: z.string(),
});

export const OpenConditionsOut = z.object({
  conditions: z.array(ConditionOut),
  total: z.number().int(),
  nextCursor: NextCursor,
});

export const ListChecksOut = z.object({ checks: z.array(CheckOut), total: z.number().int(), nextCursor: NextCursor });

export const CreateRelationshipOut = z.object({
  relationship: EdgeOut,
  created: z.boolean().describe('false when you had already declared the same edge.'),
});

export const UpdateAttributesOut = z.object({
  resource: ResourceOut,
  ignored: z
    .array(z.object({ key: z.string(), reason: z.string() }))
    .describe('Keys not written (health, provider-owned fields), each with the reason.'),
  message: z.string(),
});

export const AuditLogOut = z.object({
  entries: z.array(AuditEntryOut).describe('Newest first.'),
  nextCursor: NextCursor,
});

export const DeclareResourceOut = z.object({
  resource: ResourceOut,
  created: z.boolean().describe('false when the same kind, name and runsOn was declared before (refreshed).'),
  relationship: EdgeOut.nullable().describe('The declared RUNS_ON edge, when runsOn was given.'),
  ignored: z.array(z.object({ key: z.string(), reason: z.string() })),
});

const LogGapOut = z.object({
  from: Time,
  to: Time,
  reason: z.enum(LOG_GAP_REASONS),
  detail: z.string(),
  at: Time,
});

/** How much of a window one task or event log was read completely, and where it was not. */
export const StreamCoverageOut = z.object({
  stream: z.string(),
  source: z.string(),
  node: z.string().nullable(),
  coveredSeconds: z.number(),
  windowSeconds: z.number(),
  share: z.number().describe('Share of the window this log was read completely, 0–1.'),
  gaps: z.array(LogGapOut).describe('Failed reads overlapping the window, newest first.'),
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
  coverage: z
    .array(StreamCoverageOut)
    .describe(
      'The task and event logs of the window: how much of it each was read completely (a cause unknown in a gap is not evidence).',
    ),
  narrative: z.string().describe('One paragraph for the ticket; causes only where the logs hold them.'),
});
