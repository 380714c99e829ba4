import { z } from 'zod';
import type { AuthorizationHistory } from '../graph/autonomy.js';
import { readGateFacts } from '../graph/gate-facts.js';
import { oneRefId, type ResourceRef } from '../graph/resources/read.js';
import { latestTransitions } from '../graph/transitions/read.js';
import {
  AitiaError,
  type AutonomyState,
  badInput,
  type ResourceRecord,
  type TransitionRecord,
} from '../model/index.js';
import {
  type ActionRequest,
  type LastChangeFact,
  entityTargetFacts,
  parseTargetRef,
  resourceTargetFacts,
  type RiskClass,
  type TargetFacts,
} from '../policy/index.js';
import type { ServiceDeps } from './deps.js';
import { resolveInputRef } from './resources.js';

/*
 * A gate question's input: its fields, validated here, and its target, resolved into the facts the
 * decision rests on. Every refusal is BAD_USER_INPUT naming `input.<field>`: the gate never guesses.
 */

/** Size limits on a gate question: generous for real use, bounded for the service. */
export const CLASSIFY_LIMITS = { actionChars: 64, commandChars: 16_384, targets: 500 } as const;

const InputSchema = z.object({
  action: z
    .string()
    .trim()
    .max(CLASSIFY_LIMITS.actionChars, `at most ${CLASSIFY_LIMITS.actionChars} characters`)
    .regex(
      /^[A-Za-z][A-Za-z0-9_-]*$/,
      'must be an action name of letters, digits, - and _ (restart, cache-clear, run)',
    ),
  params: z
    .unknown()
    .refine(
      (v) => v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v)),
      'must be a JSON object of parameter → value',
    )
    .optional(),
  command: z.string().max(CLASSIFY_LIMITS.commandChars, `at most ${CLASSIFY_LIMITS.commandChars} characters`).nullish(),
  targets: z
    .array(z.string().min(1, 'must not be empty'))
    .max(CLASSIFY_LIMITS.targets, `at most ${CLASSIFY_LIMITS.targets} targets`)
    .nullish(),
});

/** The GraphQL input, as the generated types give it. */
export interface ClassifyActionArgs {
  target: string;
  action: string;
  params?: unknown;
  command?: string | null;
  targets?: readonly string[] | null;
  declaredRiskClass?: RiskClass | null;
}

/**
 * Validates everything but the target (which the graph resolves) into the gate's request fields.
 * A bad field is BAD_USER_INPUT naming `input.<field>` and the reason; nothing is recorded.
 */
export function parseClassifyInput(input: ClassifyActionArgs, prefix = 'input'): Omit<ActionRequest, 'target'> {
  const parsed = InputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw badInput([prefix, ...issue.path.map(String)].join('.'), issue.message);
  }
  const { action, params, command, targets } = parsed.data;
  return {
    action,
    params: (params ?? {}) as Record<string, unknown>,
    command: command ?? null,
    ...(targets ? { targets } : {}),
    declaredRiskClass: input.declaredRiskClass ?? null,
  };
}

/** A gate target with the facts the decision rests on and, when it is one, its graph resource. */
export interface GateTarget {
  facts: TargetFacts;
  notes: string[];
  resource: ResourceRecord | null;
}

/**
 * Resolves what an agent names as a target into facts for the gate. Graph resources (by id or
 * `kind:name` slug) are read from the graph; `<entity-type>:<name>` names an entity outside it.
 * Anything unknown or ambiguous is BAD_USER_INPUT naming `field`.
 */
export async function resolveGateTarget(deps: ServiceDeps, ref: string, field: string): Promise<GateTarget> {
  const parsed = parseTargetRef(ref);
  if (!parsed.ok) throw badInput(field, parsed.reason);
  if (parsed.ref.form === 'entity') {
    return { facts: entityTargetFacts(parsed.ref.entityType, parsed.ref.name), notes: [], resource: null };
  }
  const resource = await resolveInputRef(deps, parsed.ref.form === 'id' ? parsed.ref.id : parsed.ref.slug, field);
  const latest = (await latestTransitions(deps.driver, [resource.id])).get(resource.id) ?? null;
  const { facts, notes } = resourceTargetFacts(resource);
  return { facts: { ...facts, lastChange: latest ? lastChangeFact(latest) : null }, notes, resource };
}

/** A gate target read with everything else its decision rests on. */
export interface GateRead {
  target: GateTarget;
  autonomy: AutonomyState;
  history: AuthorizationHistory;
}

/**
 * Resolves a gate target as {@link resolveGateTarget} does (the same refusals, naming `field`) and
 * reads, in the same statement, the kill switch and the target's authorization history of `action`
 * inside `windows` (rateWindows before the switch's reset: the statement applies it).
 */
export async function readGateTarget(
  deps: ServiceDeps,
  ref: string,
  field: string,
  action: string,
  windows: { since: string | null; autoSince: string | null },
): Promise<GateRead> {
  const parsed = parseTargetRef(ref);
  if (!parsed.ok) throw badInput(field, parsed.reason);
  if (parsed.ref.form === 'entity') {
    const facts = entityTargetFacts(parsed.ref.entityType, parsed.ref.name);
    const read = await readGateFacts(deps.driver, { ref: null, entityId: facts.id, action, ...windows });
    return { target: { facts, notes: [], resource: null }, autonomy: read.autonomy, history: read.history };
  }
  const asked = parsed.ref.form === 'id' ? parsed.ref.id : parsed.ref.slug;
  const resourceRef: ResourceRef = parsed.ref.form === 'id' ? { id: parsed.ref.id } : { slug: parsed.ref.slug };
  const read = await asInputRef(asked, field, () =>
    readGateFacts(deps.driver, { ref: resourceRef, entityId: null, action, ...windows }),
  );
  const id = await asInputRef(asked, field, async () =>
    oneRefId(
      read.found.map((r) => r.id),
      resourceRef,
      field,
    ),
  );
  const resource = read.found.find((r) => r.id === id)!;
  const { facts, notes } = resourceTargetFacts(resource);
  const lastChange = read.latest ? lastChangeFact(read.latest) : null;
  return {
    target: { facts: { ...facts, lastChange }, notes, resource },
    autonomy: read.autonomy,
    history: read.history,
  };
}

/** A ref's refusals as resolveInputRef words them: unknown is `no resource <ref>`, every one names `field`. */
async function asInputRef<T>(ref: string, field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AitiaError && err.code === 'NOT_FOUND') throw badInput(field, `no resource ${ref}`);
    if (err instanceof AitiaError && err.code === 'BAD_USER_INPUT' && err.field !== field) {
      throw badInput(field, err.message.replace(/^[^:]+: /, ''), err.details);
    }
    throw err;
  }
}

/** The gate's view of a stored transition: who changed the target, how sure, and what did it. */
export function lastChangeFact(t: TransitionRecord): LastChangeFact {
  const cause = t.attribution.events.find((e) => e.role === 'cause') ?? null;
  return {
    transitionId: t.id,
    from: t.from,
    to: t.to,
    observedAt: t.observedAt,
    confidence: t.attribution.confidence,
    actor: t.attribution.actor,
    actorKind: t.attribution.actorKind,
    cause: cause ? `task ${cause.rawType} ${cause.id}` : null,
  };
}
