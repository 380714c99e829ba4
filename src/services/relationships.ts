import * as edges from '../graph/edges.js';
import type { Direction } from '../graph/edges.js';
import { FULL_VIEW, IMPACT_TYPES, type Reached, traverseFrom, type TraverseView } from '../graph/traversal.js';
import {
  AitiaError,
  badInput,
  declaredEdgeProblem,
  type EdgeRecord,
  evidenceProblem,
  isResourceId,
  notFound,
  type RelationshipType,
  refusePair,
  type ResourceRecord,
} from '../model/index.js';
import { checkNewInboundEdge } from '../policy/index.js';
import { audited } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { resolveInputRef, resolveRef, resourcesByIds } from './resources.js';

export type { Direction, TraverseView };

/** Which edges of a resource to read. */
export interface RelationsOptions {
  types: RelationshipType[] | null;
  direction: Direction;
  includeStale: boolean;
}

/** Edges of many resources with the same options, in one query, for the per-request DataLoader. */
export function relationsOfMany(
  deps: ServiceDeps,
  ids: readonly string[],
  options: RelationsOptions,
): Promise<Map<string, EdgeRecord[]>> {
  return edges.relationsOfMany(deps.driver, ids, options);
}

/** Edges touching a resource (id or slug); stale observed edges only with `includeStale`. */
export async function relations(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string } & Partial<RelationsOptions>,
): Promise<EdgeRecord[]> {
  assertCan(principal, 'resource:read');
  const r = await resolveRef(deps, input.id, 'id');
  return edges.relationsOf(deps.driver, r.id, {
    types: input.types ?? null,
    direction: input.direction ?? 'BOTH',
    includeStale: input.includeStale ?? false,
  });
}

/** A blast-radius walk: where it started, how deep, and what it reached (with one path each). */
export interface Traversal {
  root: ResourceRecord;
  maxDepth: number;
  count: number;
  reached: Reached[];
}

async function walk(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string; maxDepth?: number | null },
  direction: 'dependents' | 'dependencies',
  view: TraverseView,
): Promise<Traversal> {
  assertCan(principal, 'resource:read');
  const maxDepth = input.maxDepth ?? 3;
  // An id is resolved by the walk's own statement; a slug first names one resource.
  const start = isResourceId(input.id) ? input.id : (await resolveRef(deps, input.id, 'id')).id;
  const { root, reached } = await traverseFrom(deps.driver, start, direction, maxDepth, view);
  if (!root) throw notFound('id', `resource ${input.id}`);
  return { root, maxDepth, count: reached.length, reached };
}

/**
 * Everything hit if the resource fails: what runs on, is stored on, depends on or belongs to it.
 * `view` trims what is read for a caller that asks for less (GraphQL, from its selection).
 */
export function dependents(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string; maxDepth?: number | null },
  view: TraverseView = FULL_VIEW,
) {
  return walk(deps, principal, input, 'dependents', view);
}

/** Everything the resource needs. */
export function dependencies(
  deps: ServiceDeps,
  principal: Principal,
  input: { id: string; maxDepth?: number | null },
  view: TraverseView = FULL_VIEW,
) {
  return walk(deps, principal, input, 'dependencies', view);
}

/** A resource and the same real thing as other providers see it (MANIFESTS_AS, either direction). */
export interface Identity {
  resource: ResourceRecord;
  links: Array<{ relationship: EdgeRecord; resource: ResourceRecord }>;
}

export async function identity(deps: ServiceDeps, principal: Principal, input: { id: string }): Promise<Identity> {
  assertCan(principal, 'resource:read');
  const resource = await resolveRef(deps, input.id, 'id');
  const found = await edges.relationsOf(deps.driver, resource.id, { types: ['MANIFESTS_AS'], direction: 'BOTH' });
  const otherEnd = (e: EdgeRecord) => (e.fromId === resource.id ? e.toId : e.fromId);
  const others = new Map((await resourcesByIds(deps, found.map(otherEnd))).map((r) => [r.id, r]));
  const links = found.flatMap((relationship) => {
    const other = others.get(otherEnd(relationship));
    return other ? [{ relationship, resource: other }] : [];
  });
  return { resource, links };
}

/** Re-labels a repository's field-level refusal with the input path (type → input.type). */
async function inInput<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AitiaError && err.code === 'BAD_USER_INPUT' && err.field && !err.field.startsWith('input.')) {
      throw badInput(`input.${err.field}`, err.message.slice(err.field.length + 2), err.details);
    }
    throw err;
  }
}

/**
 * Both ends of an edge named in an input, looked up together (concurrent look-ups share one
 * statement); when both are refused, the source's refusal is the one reported, as if looked up first.
 */
async function endsOf(
  deps: ServiceDeps,
  input: { source: string; target: string },
): Promise<[ResourceRecord, ResourceRecord]> {
  const [source, target] = await Promise.allSettled([
    resolveInputRef(deps, input.source, 'input.source'),
    resolveInputRef(deps, input.target, 'input.target'),
  ]);
  if (source.status === 'rejected') throw source.reason;
  if (target.status === 'rejected') throw target.reason;
  return [source.value, target.value];
}

/** An edge a principal declares between two resources named by id or slug. */
export interface DeclaredEdge {
  source: string;
  target: string;
  type: RelationshipType;
  evidence?: string | null;
}

/**
 * Declares an edge (audited). No edge from a resource to itself, and nothing new may come to depend
 * on a deprecated or destroyed resource; the graph refuses kind pairs the type does not allow.
 * Authority (declaredEdgeProblem): between provider resources only DEPENDS_ON, MANIFESTS_AS only
 * by an operator, a placement only from a `manual:` resource by its declarer or an operator.
 * Idempotent per principal: a repeat returns `created: false`.
 */
export function createRelationship(
  deps: ServiceDeps,
  principal: Principal,
  input: DeclaredEdge,
): Promise<{ relationship: EdgeRecord; created: boolean }> {
  return audited(
    deps,
    principal,
    'createRelationship',
    [input.source, input.target],
    async (ok) => {
      assertCan(principal, 'relationship:declare');
      const evidence = evidenceProblem(input.evidence);
      if (evidence) throw badInput('input.evidence', evidence);
      const [source, target] = await endsOf(deps, input);
      if (source.lifecycle === 'destroyed')
        throw badInput('input.source', `resource ${source.id} is destroyed: it takes no more writes`);
      if (source.id === target.id)
        throw badInput('input.target', `a ${input.type} edge from ${source.id} to itself is not allowed`);
      const pair = refusePair(input.type, source.kind, target.kind);
      if (pair) throw badInput('input.type', pair);
      const inbound = (IMPACT_TYPES as readonly string[]).includes(input.type)
        ? checkNewInboundEdge(target)
        : { ok: true as const };
      if (!inbound.ok) throw badInput('input.target', inbound.reason);
      const authority = declaredEdgeProblem(
        input.type,
        { id: source.id, provider: source.provider, declaredBy: source.declaration?.by ?? null },
        principal,
      );
      if (authority) throw badInput(authority.field, authority.reason);
      return inInput(() =>
        edges.createRelationship(
          deps.driver,
          {
            type: input.type,
            fromId: source.id,
            toId: target.id,
            provenance: 'declared',
            source: principal.name,
            evidence: input.evidence ?? null,
          },
          () => ok.entry(),
        ),
      );
    },
    undefined,
    { args: input },
  );
}

/** Removes declared or inferred edges (operators; audited); observed edges belong to their provider. */
export function removeRelationship(
  deps: ServiceDeps,
  principal: Principal,
  input: { source: string; target: string; type: RelationshipType; assertedBy?: string | null },
): Promise<{ removed: number }> {
  return audited(
    deps,
    principal,
    'removeRelationship',
    [input.source, input.target],
    async (ok) => {
      assertCan(principal, 'relationship:remove');
      const [source, target] = await endsOf(deps, input);
      return edges.removeRelationship(
        deps.driver,
        {
          type: input.type,
          fromId: source.id,
          toId: target.id,
          source: input.assertedBy ?? null,
        },
        () => ok.entry(),
      );
    },
    undefined,
    { args: input },
  );
}
