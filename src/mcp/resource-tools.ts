import { isResourceId } from '../model/index.js';
import { resourceAttributeOwners } from '../services/attribute-owners.js';
import { declareResource } from '../services/declared.js';
import { createRelationship, dependencies, dependents, identity, relations } from '../services/relationships.js';
import { resource, resources, resourcesByIds, updateEntityAttributes } from '../services/resources.js';
import { searchResources } from '../services/search.js';
import * as I from './inputs.js';
import * as O from './outputs.js';
import { nextCursorOf, pageOf } from './paging.js';
import * as R from './records.js';
import { defineTool, READ, type Tool } from './tool.js';

/*
 * The tools over resources and their edges: look one up, find one by what you know of it, search, walk relations and the blast
 * radius, cross-provider identity; and what an agent records: an edge, attributes, a resource it
 * found.
 */

/** `dependents` and `dependencies`: the two directions of one walk, paged over what it reached. */
function traversalTool(
  name: 'dependents' | 'dependencies',
  title: string,
  description: string,
  walk: typeof dependents,
  input: typeof I.DependentsIn | typeof I.DependenciesIn,
): Tool {
  return defineTool({
    name,
    title,
    description,
    permission: 'resource:read',
    graphql: `Query.${name}`,
    input,
    output: O.TraversalOut,
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

export const resourceGetTool = defineTool({
  name: 'resource_get',
  title: 'Get a resource',
  description:
    'One resource by id or kind:name slug (vm:web01): its kind, state (and the provider’s raw word), lifecycle, health and attributes, with who owns each attribute (provider, operator or agent by name, or declared). An ambiguous slug is refused with the candidate ids.',
  permission: 'resource:read',
  graphql: 'Query.resource',
  input: I.ResourceGetIn,
  output: R.ResourceWithOwnersOut,
  annotations: READ,
  fields: { slug: 'id' },
  run: async (deps, principal, { id }) => {
    const r = await resource(deps, principal, isResourceId(id) ? { id } : { slug: id });
    return { ...r, attributeOwners: resourceAttributeOwners(r) };
  },
});

export const resourcesSearchTool = defineTool({
  name: 'resources_search',
  title: 'Search resources',
  description:
    'Resources matching a filter (kind, state, provider, name substring, one attribute value, an open condition, lifecycle), ordered by id, a page at a time.',
  permission: 'resource:read',
  graphql: 'Query.resources',
  input: I.ResourcesSearchIn,
  output: O.ResourcesSearchOut,
  annotations: READ,
  narrow: 'first',
  run: async (deps, principal, input) => {
    const page = await resources(deps, principal, input);
    return { resources: page.nodes, totalCount: page.totalCount, nextCursor: nextCursorOf(page) };
  },
});

export const resourcesFindTool = defineTool({
  name: 'resources_find',
  title: 'Find resources',
  description:
    'Resources by what you know of one: an id, a kind:name slug (vm:web01) or part of a name or id, case-insensitive, best match first (the exact id, an exact slug or name, a name starting with it, then the rest containing it). Use it when you have a name, not an id; resources_search filters by kind, state, provider, attribute or condition and pages the whole estate by id.',
  permission: 'resource:read',
  graphql: 'Query.searchResources',
  input: I.ResourcesFindIn,
  output: O.ResourcesFindOut,
  annotations: READ,
  narrow: 'first',
  run: async (deps, principal, input) => ({ resources: await searchResources(deps, principal, input) }),
});

export const relationsTool = defineTool({
  name: 'relations',
  title: 'Relationships of a resource',
  description:
    'The edges touching a resource (RUNS_ON, MEMBER_OF, DEPENDS_ON, STORED_ON, MANIFESTS_AS), each with its provenance (observed, inferred, declared), who asserted it and both ends.',
  permission: 'resource:read',
  graphql: 'Query.relations',
  input: I.RelationsIn,
  output: O.RelationsOut,
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
});

export const dependentsTool = traversalTool(
  'dependents',
  'Blast radius',
  'Everything hit if the resource fails: what runs on it, is stored on it, depends on it or belongs to it (and what it is elsewhere, via MANIFESTS_AS), to maxDepth hops, each with its depth and one shortest path.',
  dependents,
  I.DependentsIn,
);

export const dependenciesTool = traversalTool(
  'dependencies',
  'What a resource needs',
  'Everything the resource needs: what it runs on, is stored on, depends on and belongs to, to maxDepth hops, each with its depth and one shortest path.',
  dependencies,
  I.DependenciesIn,
);

export const identityTool = defineTool({
  name: 'identity',
  title: 'Cross-provider identity',
  description:
    'The same real thing as other providers see it (e.g. a nested ESXi host that is a Proxmox VM): MANIFESTS_AS links with provenance, rule and confidence.',
  permission: 'resource:read',
  graphql: 'Query.identity',
  input: I.IdentityIn,
  output: O.IdentityOut,
  annotations: READ,
  fields: { slug: 'id' },
  run: (deps, principal, input) => identity(deps, principal, input),
});

export const createRelationshipTool = defineTool({
  name: 'create_relationship',
  title: 'Record a dependency',
  description:
    'Declares an edge you discovered, with your evidence: it is stored as `declared` under your name. Idempotent: a repeat answers created: false. Nothing new may depend on a deprecated or destroyed resource. Between provider resources you may declare DEPENDS_ON only: RUNS_ON, MEMBER_OF and STORED_ON are observed by the provider, MANIFESTS_AS is inferred by the identity resolver or declared by an operator. A manual resource you declared may carry its own RUNS_ON. Audited.',
  permission: 'relationship:declare',
  graphql: 'Mutation.createRelationship',
  input: I.CreateRelationshipIn,
  output: O.CreateRelationshipOut,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (deps, principal, input) => createRelationship(deps, principal, input),
});

export const updateEntityAttributesTool = defineTool({
  name: 'update_entity_attributes',
  title: 'Describe a resource',
  description:
    'Merges descriptive attributes (owner, role, …) into a resource named by id or kind:name slug; null removes a key. Health, provider fields and every key a provider can report for the kind (qemu_guest_agent, serial_number, lock, hastate, …, whether or not its last pass reported it), in any spelling (Health is health), are never written: they come back in `ignored` with the reason. entity_type chooses the policy rule and is operator-owned: an agent writing it is FORBIDDEN. Audited.',
  permission: 'attribute:update',
  graphql: 'Mutation.updateEntityAttributes',
  input: I.UpdateAttributesIn,
  output: O.UpdateAttributesOut,
  // It overwrites and removes keys (not only additive); the same call twice leaves the same state.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: (deps, principal, input) => updateEntityAttributes(deps, principal, input),
});

export const declareResourceTool = defineTool({
  name: 'declare_resource',
  title: 'Record something you found',
  description:
    'Declares a resource no provider reports — a service you found listening on a VM, a bare-metal box, a NAS — with your evidence: it gets a manual: id, provenance declared and your name, and appears in blast radius and incident context. Idempotent on (kind, name, runsOn): a repeat refreshes it and answers created: false. Audited.',
  permission: 'resource:declare',
  graphql: 'Mutation.declareResource',
  input: I.DeclareResourceIn,
  output: O.DeclareResourceOut,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (deps, principal, input) => declareResource(deps, principal, input),
});
