import { z } from 'zod';
import * as G from '../generated/mcp-inputs.js';
import { AttributeKeySchema, AttributeValueSchema, DECLARABLE_KINDS } from '../model/index.js';
import { SEARCH_LIMITS } from '../services/search.js';

/*
 * Each MCP tool's input, built from its GraphQL operation's arguments as the SDL declares them
 * (src/generated/mcp-inputs.ts, from schema/*.graphql): the names, which are required, the
 * defaults and the descriptions are the SDL's, written once. An operation whose one argument is an
 * input object (`input:`, healthSummary's `scope:`) is taken flat: its fields are the tool's
 * arguments. What is added here are only narrower validators (a page size's bounds, JSON of a known
 * shape) and the paging arguments of tools that page an answer the operation gives whole.
 * test/unit/mcp/inputs-drift.test.ts holds each tool to its operation.
 */

/** The largest page a list tool answers, and the page it answers by default. */
export const PAGE = { default: 50, max: 500 } as const;

type Member = z.ZodType;
/** A narrower validator keeps the field's place: optional stays optional, a default stays. */
type Rewrapped<F, V extends Member> =
  F extends z.ZodDefault<Member> ? z.ZodDefault<V> : F extends z.ZodOptional<Member> ? z.ZodOptional<V> : V;
type Narrowed<S extends z.ZodRawShape, N extends Partial<Record<keyof S, Member>>> = z.ZodObject<
  Omit<S, keyof N> & { [K in keyof N & keyof S]: Rewrapped<S[K], NonNullable<N[K]>> },
  z.core.$strict
>;

/**
 * `base` with some fields' values checked by narrower validators. Each narrowed field stays
 * optional or defaulted as the SDL has it, and keeps the SDL's description unless the validator
 * brings its own.
 */
export function narrow<S extends z.ZodRawShape, N extends Partial<Record<keyof S, Member>>>(
  base: z.ZodObject<S, z.core.$strict>,
  validators: N,
): Narrowed<S, N> {
  const shape: Record<string, Member> = {};
  for (const [key, validator] of Object.entries(validators) as Array<[string, Member]>) {
    const field = base.shape[key] as Member | undefined;
    if (!field) throw new Error(`narrow: the operation has no argument ${key}`);
    let member: Member = validator;
    if (field instanceof z.ZodDefault) member = member.default(field.def.defaultValue as never);
    else if (field instanceof z.ZodOptional) member = member.optional();
    if (field.description !== undefined && validator.description === undefined) {
      member = member.describe(field.description);
    }
    shape[key] = member;
  }
  return base.extend(shape) as unknown as Narrowed<S, N>;
}

// ---------------------------------------------------------------- narrower validators

const PageSize = z
  .number()
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(PAGE.max, `must be at most ${PAGE.max}`)
  .describe(`Page size, 1–${PAGE.max} (default ${PAGE.default}).`);
const Cursor = z
  .string()
  .min(1, 'must not be empty')
  .describe('The nextCursor of the previous page; omit for the first page.');
/** An operation's own first/after, as the tools bound them. */
const PAGE_ARGS = { first: PageSize, after: Cursor };
/** MCP-only: paging over an answer the operation gives whole (src/mcp/paging.ts). */
const PAGING = { first: PageSize.default(PAGE.default), after: Cursor.optional() };

const hops = (max: number) =>
  z.number().int('must be an integer').min(1, `must be from 1 to ${max}`).max(max, `must be from 1 to ${max}`);
/** A JSON object (classifyAction's params). */
const JsonObject = z.record(z.string(), z.unknown());
const Evidence = z.string().max(4096, 'at most 4096 characters');

// ---------------------------------------------------------------- the tools' inputs

/** resource(id, slug) in one argument that takes either, as every other tool's resource argument does. */
export const ResourceGetIn = z.strictObject({ id: G.QueryIdentityArgs.shape.id });

export const ResourcesSearchIn = narrow(G.QueryResourcesArgs, {
  filter: narrow(G.ResourceFilter, {
    attribute: narrow(G.AttributeEquals, { key: AttributeKeySchema, equals: AttributeValueSchema }),
  }),
  ...PAGE_ARGS,
});

/** searchResources(query, first): one search box, at most SEARCH_LIMITS of each. */
export const ResourcesFindIn = narrow(G.QuerySearchResourcesArgs, {
  query: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(SEARCH_LIMITS.chars, `at most ${SEARCH_LIMITS.chars} characters`),
  first: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(SEARCH_LIMITS.first, `must be at most ${SEARCH_LIMITS.first}`),
});

export const RelationsIn = G.QueryRelationsArgs.extend(PAGING);

export const DependentsIn = narrow(G.QueryDependentsArgs, { maxDepth: hops(10) }).extend(PAGING);
export const DependenciesIn = narrow(G.QueryDependenciesArgs, { maxDepth: hops(10) }).extend(PAGING);

export const IdentityIn = G.QueryIdentityArgs;

export const TransitionsIn = narrow(G.QueryTransitionsArgs, {
  resourceId: z.string().min(1, 'must not be empty'),
  ...PAGE_ARGS,
});

export const ExplainTransitionIn = G.QueryExplainTransitionArgs;

export const StateAtIn = G.QueryStateAtArgs;

export const HealthSummaryIn = G.HealthScope;

export const OpenConditionsIn = G.QueryOpenConditionsArgs.extend(PAGING);

export const ListChecksIn = G.QueryChecksArgs.extend(PAGING);

export const CreateRelationshipIn = narrow(G.CreateRelationshipInput, { evidence: Evidence });

export const UpdateAttributesIn = narrow(G.MutationUpdateEntityAttributesArgs, {
  attributes: z.record(AttributeKeySchema, AttributeValueSchema.nullable()),
});

export const ClassifyActionIn = narrow(G.ClassifyActionInput, { params: JsonObject });

export const AuditLogIn = narrow(G.QueryAuditLogArgs, PAGE_ARGS);

export const DeclareResourceIn = narrow(G.DeclareResourceInput, {
  kind: z.enum(DECLARABLE_KINDS),
  attributes: z.record(AttributeKeySchema, AttributeValueSchema),
  evidence: Evidence.min(1, 'say what you saw'),
});

export const IncidentContextIn = narrow(G.QueryIncidentContextArgs, { depth: hops(5) });

// ---------------------------------------------------------------- approvals, grants, the kill switch

/** One action's fields are optional (a plan gives steps instead), but never blank when given. */
export const RequestApprovalIn = narrow(G.RequestApprovalInput, {
  reason: z.string().min(1, 'must say why'),
  action: z.string().min(1, 'must not be empty'),
  params: JsonObject,
  steps: z.array(ClassifyActionIn),
});

export const ApprovalsIn = narrow(G.QueryApprovalsArgs, PAGE_ARGS);

export const GrantRedeemsIn = narrow(G.QueryGrantRedeemsArgs, PAGE_ARGS);

export const ApproveIn = G.MutationApproveArgs;

export const DenyIn = G.MutationDenyArgs;

export const ReviewUnauthorizedActionIn = G.MutationReviewUnauthorizedActionArgs;

export const RedeemGrantIn = narrow(G.MutationRedeemGrantArgs, { input: ClassifyActionIn });

export const SetAutonomyIn = G.MutationSetAutonomyArgs;

/** reportActionTaken(input:, providerTaskId:) takes classifyAction's input flat, with providerTaskId beside it. */
export const ReportActionTakenIn = ClassifyActionIn.extend({
  providerTaskId: G.MutationReportActionTakenArgs.shape.providerTaskId,
});

export const ReplayDecisionIn = G.QueryReplayDecisionArgs;
