import { assertCan } from '../src/server/permissions.js';
import { audited } from '../src/server/audited.js';
import { createRelationship, relationsOf, removeRelationship } from '../src/graph/edges.js';
import { IMPACT_TYPES, traverse } from '../src/graph/traversal.js';
import { resolveResource } from '../src/graph/resources.js';
import { checkNewInboundEdge } from '../src/policy/index.js';
import type { Driver } from 'neo4j-driver';
import { AitiaError, badInput } from '../src/model/index.js';
import type { Resolvers } from '../src/generated/graphql.js';
import type { RequestContext } from '../src/server/context.js';

/** Agents may name a resource by id or by its kind:name slug. */
export function resolveRef(driver: Driver, ref: string, field: string) {
  const isId = /^(proxmox|vcenter|manual):/.test(ref);
  return resolveResource(driver, isId ? { id: ref } : { slug: ref }, field);
}

/** In mutation input an unknown resource is bad input, named by its input field. */
async function resolveInputRef(driver: Driver, ref: string, field: string) {
  try {
    return await resolveRef(driver, ref, field);
  } catch (err) {
    if (err instanceof AitiaError && err.code === 'NOT_FOUND') throw badInput(field, `no resource ${ref}`);
    if (err instanceof AitiaError && err.code === 'BAD_USER_INPUT' && err.field !== field)
      throw badInput(field, err.message, err.details);
    throw err;
  }
}

/** Re-labels a repository's field-level refusal with the GraphQL input path (type → input.type). */
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

/** A blast-radius walk from a resource named by id or slug. */
async function traversal(ctx: RequestContext, ref: string, direction: 'dependents' | 'dependencies', maxDepth: number) {
  assertCan(ctx.principal, 'resource:read');
  const root = await resolveRef(ctx.driver, ref, 'id');
  const reached = await traverse(ctx.driver, root.id, direction, maxDepth);
  return { root, maxDepth, count: reached.length, reached };
}

export const relationshipResolvers: Resolvers = {
  Relationship: {
    from: async (e, _a, ctx) => (await ctx.loaders.resourceById.load(e.fromId))!,
    to: async (e, _a, ctx) => (await ctx.loaders.resourceById.load(e.toId))!,
  },
  Reached: {},
  Query: {
    relations: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'resource:read');
      const r = await resolveRef(ctx.driver, args.id, 'id');
      return relationsOf(ctx.driver, r.id, {
        types: args.types ?? null,
        direction: args.direction ?? 'BOTH',
        includeStale: args.includeStale ?? false,
      });
    },
    dependents: (_p, args, ctx) => traversal(ctx, args.id, 'dependents', args.maxDepth ?? 3),
    dependencies: (_p, args, ctx) => traversal(ctx, args.id, 'dependencies', args.maxDepth ?? 3),
    identity: async (_p, args, ctx) => {
      assertCan(ctx.principal, 'resource:read');
      const resource = await resolveRef(ctx.driver, args.id, 'id');
      const edges = await relationsOf(ctx.driver, resource.id, { types: ['MANIFESTS_AS'], direction: 'BOTH' });
      const links = await Promise.all(
        edges.map(async (relationship) => ({
          relationship,
          resource: (await ctx.loaders.resourceById.load(
            relationship.fromId === resource.id ? relationship.toId : relationship.fromId,
          ))!,
        })),
      );
      return { resource, links };
    },
  },
  Mutation: {
    createRelationship: (_p, { input }, ctx) =>
      audited(ctx, 'createRelationship', [input.source, input.target], async () => {
        assertCan(ctx.principal, 'relationship:declare');
        const source = await resolveInputRef(ctx.driver, input.source, 'input.source');
        const target = await resolveInputRef(ctx.driver, input.target, 'input.target');
        if (source.id === target.id)
          throw badInput('input.target', `a ${input.type} edge from ${source.id} to itself is not allowed`);
        // Lifecycle: nothing new may come to depend on a deprecated or destroyed resource.
        const inbound = (IMPACT_TYPES as readonly string[]).includes(input.type)
          ? checkNewInboundEdge(target)
          : { ok: true as const };
        if (!inbound.ok) throw badInput('input.target', inbound.reason);
        return inInput(() =>
          createRelationship(ctx.driver, {
            type: input.type,
            fromId: source.id,
            toId: target.id,
            provenance: 'declared',
            source: ctx.principal.name,
            evidence: input.evidence ?? null,
          }),
        );
      }),
    removeRelationship: (_p, { input }, ctx) =>
      audited(ctx, 'removeRelationship', [input.source, input.target], async () => {
        assertCan(ctx.principal, 'relationship:remove');
        const source = await resolveInputRef(ctx.driver, input.source, 'input.source');
        const target = await resolveInputRef(ctx.driver, input.target, 'input.target');
        return removeRelationship(ctx.driver, {
          type: input.type,
          fromId: source.id,
          toId: target.id,
          source: input.assertedBy ?? null,
        });
      }),
  },
};
