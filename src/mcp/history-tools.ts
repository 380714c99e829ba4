import { z } from 'zod';
import * as G from '../generated/mcp-inputs.js';
import {
  AttributionConfidenceSchema,
  checkTarget,
  type ConditionRecord,
  type ConditionType,
  UNKNOWN_REASONS,
} from '../model/index.js';
import { attributionCoverage } from '../services/coverage.js';
import { auditLog } from '../services/audit.js';
import { checks } from '../services/checks.js';
import { healthSummary, openConditions } from '../services/health.js';
import { incidentContext } from '../services/incident.js';
import { explainTransition, stateAt, transitions } from '../services/transitions.js';
import { reviewUnauthorizedAction } from '../services/unauthorized-actions.js';
import * as I from './inputs.js';
import * as O from './outputs.js';
import { nextCursorOf, pageOf } from './paging.js';
import * as R from './records.js';
import { defineTool, READ, RECORD } from './tool.js';

/*
 * The tools over what happened and what is wrong: transitions and who caused them, a described
 * change explained, a past state, health, open conditions, checks, an incident's whole context,
 * and the audit log.
 */

/** A stored condition as the tools answer it: its type one of the closed set (the graph reads a string). */
const conditionOut = (c: ConditionRecord) => ({ ...c, type: c.type as ConditionType });

export const transitionsTool = defineTool({
  name: 'transitions',
  title: 'What changed, and who did it',
  description:
    'Observed state transitions, newest first, of one resource or of all, in [since, until]: each with its attribution (who or what caused it, confidence high/medium/low/none, the provider events it rests on), the gate’s decision and a narrative.',
  permission: 'transition:read',
  graphql: 'Query.transitions',
  input: I.TransitionsIn,
  output: O.TransitionsOut,
  annotations: READ,
  fields: { slug: 'resourceId' },
  narrow: 'first',
  run: async (deps, principal, input) => {
    const page = await transitions(deps, principal, input);
    return { transitions: page.nodes, nextCursor: nextCursorOf(page) };
  },
});

export const explainTransitionTool = defineTool({
  name: 'explain_transition',
  title: 'Explain a change',
  description:
    'Explains a change you describe (running → stopped at a time) from the stored provider events: attribution, narrative and what the gate would decide. Stores nothing; "the cause is unknown" when nothing explains it.',
  permission: 'transition:read',
  graphql: 'Query.explainTransition',
  input: I.ExplainTransitionIn,
  output: O.ExplainTransitionOut,
  annotations: READ,
  fields: { slug: 'resourceId' },
  run: async (deps, principal, input) => {
    const x = await explainTransition(deps, principal, input);
    const { resourceId, from, to, observedAt: at } = x.transition;
    return { resourceId, from, to, at, ...x };
  },
});

export const stateAtTool = defineTool({
  name: 'state_at',
  title: 'State at a time',
  description:
    'A resource’s state at a past time, from its transition history, with how it was derived and the transition it rests on.',
  permission: 'transition:read',
  graphql: 'Query.stateAt',
  input: I.StateAtIn,
  output: R.StateAtOut,
  annotations: READ,
  fields: { slug: 'resourceId' },
  run: (deps, principal, input) => stateAt(deps, principal, input),
});

export const healthSummaryTool = defineTool({
  name: 'health_summary',
  title: 'Health summary',
  description:
    'Counts of resources by health (of everything, a kind, a provider, or one resource’s blast radius) and the ones needing attention. Health is derived by the scheduler from checks; nobody sets it.',
  permission: 'resource:read',
  graphql: 'Query.healthSummary',
  input: I.HealthSummaryIn,
  output: O.HealthSummaryOut,
  annotations: READ,
  fields: { 'scope.under': 'under', slug: 'under' },
  run: (deps, principal, input) => healthSummary(deps, principal, input),
});

export const openConditionsTool = defineTool({
  name: 'open_conditions',
  title: 'Open problems',
  description:
    'Open conditions (check_failing, unreachable, paused_io_error, adapter_unreachable, unmonitored, unauthorized_action) of one resource, or of every resource (newest first).',
  permission: 'condition:read',
  graphql: 'Query.openConditions',
  input: I.OpenConditionsIn,
  output: O.OpenConditionsOut,
  annotations: READ,
  fields: { slug: 'resourceId' },
  narrow: 'first',
  run: async (deps, principal, { first, after, ...input }) => {
    const page = pageOf('open_conditions', await openConditions(deps, principal, input), { first, after });
    return {
      conditions: page.items.map(conditionOut),
      total: page.total,
      nextCursor: page.nextCursor,
    };
  },
});

export const reviewUnauthorizedActionTool = defineTool({
  name: 'review_unauthorized_action',
  title: "Close an agent's unauthorized action after review",
  description:
    "Operators only. Resolves the resource's open unauthorized_action (an agent changed it with no grant redeemed or action reported that explains it) with what the review found (note). Nothing else closes it. Audited.",
  permission: 'approval:decide',
  graphql: 'Mutation.reviewUnauthorizedAction',
  input: I.ReviewUnauthorizedActionIn,
  output: R.ConditionOut,
  annotations: RECORD,
  fields: { slug: 'resourceId' },
  run: async (deps, principal, input) => {
    return conditionOut(await reviewUnauthorizedAction(deps, principal, input));
  },
});

export const listChecksTool = defineTool({
  name: 'list_checks',
  title: 'Checks of a resource',
  description:
    'The health checks attached to a resource (http, tcp, proxmox_agent, provider_state): what each probes, whether it is failing, and its recent results.',
  permission: 'check:read',
  graphql: 'Query.checks',
  input: I.ListChecksIn,
  output: O.ListChecksOut,
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
});

export const incidentContextTool = defineTool({
  name: 'incident_context',
  title: 'Incident context',
  description:
    'Everything an incident ticket needs about one resource in one call: what it needs and what needs it (to depth), every transition on them in the window with who or what caused it, their conditions (suppressed ones too) and one paragraph that names causes only where the hypervisor’s logs hold them — "cause unknown" otherwise. Bounded: too many resources or transitions is an error naming what to narrow.',
  permission: 'incident:read',
  graphql: 'Query.incidentContext',
  input: I.IncidentContextIn,
  output: O.IncidentContextOut,
  annotations: READ,
  fields: { slug: 'resourceId' },
  narrow: 'depth',
  run: async (deps, principal, input) => {
    const found = await incidentContext(deps, principal, input);
    return { ...found, conditions: found.conditions.map(conditionOut) };
  },
});

const AttributionCoverageOut = z.object({
  since: R.Time,
  until: R.Time.describe('The end of the window (now, when asked for later).'),
  source: z.string().nullable(),
  transitions: z.number().int(),
  byConfidence: z.array(z.object({ confidence: AttributionConfidenceSchema, count: z.number().int() })),
  byUnknownBecause: z
    .array(z.object({ reason: z.enum(UNKNOWN_REASONS), count: z.number().int() }))
    .describe('none and medium transitions by why no cause is established.'),
  unclassified: z.number().int().describe('none/medium transitions stored before unknownBecause existed.'),
  streams: z.array(O.StreamCoverageOut),
});

export const attributionCoverageTool = defineTool({
  name: 'attribution_coverage',
  title: 'What aitia could know',
  description:
    'For a window (and one source, or all): the transitions by confidence and by why no cause is established (unknownBecause: no_record = the log was read completely and holds nothing; log_not_read = part was not read, the cause may be there; beyond_retention; clock_uncertain; no_log_for_kind), and the share of the window each provider log (a Proxmox node’s task list, a vCenter’s event log) was read completely, with the failed reads.',
  permission: 'transition:read',
  graphql: 'Query.attributionCoverage',
  input: G.QueryAttributionCoverageArgs,
  output: AttributionCoverageOut,
  annotations: READ,
  run: (deps, principal, input) => attributionCoverage(deps, principal, input),
});

export const auditLogTool = defineTool({
  name: 'audit_log',
  title: 'Audit log',
  description:
    'Every mutation and gate question as it was asked and answered, newest first: who, through which surface (graphql, mcp), on what, the outcome and its detail. Operators only.',
  permission: 'audit:read',
  graphql: 'Query.auditLog',
  input: I.AuditLogIn,
  output: O.AuditLogOut,
  annotations: READ,
  narrow: 'first',
  run: async (deps, principal, input) => {
    const page = await auditLog(deps, principal, input);
    return { entries: page.nodes, nextCursor: nextCursorOf(page) };
  },
});
