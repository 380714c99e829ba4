// The GraphQL documents the console's pages read with, once: the pages import them, and the build
// writes WARM_UP to dist/console/queries.json, which the server runs when it starts
// (src/server/console-warm-up.ts) so an operator's first visit finds each Cypher text planned by
// Neo4j and each document compiled — the same texts, so the warm-up cannot drift from the pages.
// Plain strings only: the build evaluates this module in Node, so it imports nothing from the DOM.
import { STATE_FIELDS } from './resource-fields';

export const AUTONOMY_FIELDS = 'mode setBy setAt reason breakerOpenedAt breakerReason';
export const ABOUT_QUERY = `{ about { version principal role autonomy { ${AUTONOMY_FIELDS} } } }`;

export const APPROVAL_FIELDS = `id planId step status requester requesterOwner reason requestedAt expiresAt action
  targetId targetName inputs riskClass autonomy approval reasons decidedBy decidedAt decisionReason
  grantExpiresAt usedAt usedBy expired`;
export const APPROVALS_QUERY = `query($open: Boolean, $first: Int) { approvals(open: $open, first: $first) { nodes { ${APPROVAL_FIELDS} } } }`;
export const REDEEMS_QUERY = `query($first: Int) { grantRedeems(first: $first) { nodes { id at principal outcome refusal { code field message }
      approvalId approval { action targetId targetName requester } } } }`;

/** The fields a transition row shows; `narrative` in the zone the query names. */
export const TRANSITION_FIELDS = `id sequence resourceId kind from to rawFrom rawTo observedAt
  resource { id name slug }
  attribution { confidence actor actorKind requestedBy executor reason
    systemContext { label eventId }
    events { id role rawType summary } }
  decision { decision reasons wouldHaveSuppressed }
  narrative(zone: $zone)`;

export const CONDITION_FIELDS = `id type status resourceId openedAt expected suppressed wouldSuppress suppressionReasons
  resource { id slug }
  cause { transition { id from to observedAt } attribution { confidence actor actorKind } resource { id slug } }
  narrative(zone: $zone)`;

export const CHECK_FIELDS = `id kind target intervalSeconds critical createdBy failing unreachable lastRunAt
  latest { status at durationMs reason unreachable }`;

/** The summary fields the lists show. */
export const RESOURCE_SUMMARY = `id kind name slug provider lifecycle rawState ${STATE_FIELDS}`;

// Every filter is one of the API's own arguments. `first` is always a variable: the cost limit
// multiplies a literal page size into the whole selection.
export const TIMELINE_QUERY = `query($resource: String, $kind: Kind, $since: DateTime, $until: DateTime,
  $confidence: AttributionConfidence, $actor: String, $actorKind: ActorKind, $first: Int, $after: String, $zone: String) {
  transitions(resourceId: $resource, kind: $kind, since: $since, until: $until, confidence: $confidence,
    actor: $actor, actorKind: $actorKind, first: $first, after: $after) {
    edges { node { ${TRANSITION_FIELDS} } }
    pageInfo { hasNextPage endCursor }
  }
  newest: transitions(first: 1) { edges { node { sequence } } }
}`;

export const CONDITIONS_QUERY = `query($resource: ID, $zone: String, $suppressed: Int) {
  openConditions(resourceId: $resource) { ${CONDITION_FIELDS} }
  conditions(filter: {status: open, suppressed: true, resourceId: $resource}, first: $suppressed) { nodes { ${CONDITION_FIELDS} } }
}`;

export const SEARCH_QUERY = `query($q: String!) { searchResources(query: $q, first: 100) { ${RESOURCE_SUMMARY} } }`;
export const ALL_RESOURCES_QUERY = `{ resources(first: 100) { nodes { ${RESOURCE_SUMMARY} } } }`;

// One request for a resource page's facts, checks and history: the ref from the URL is the id or
// the slug, which checks and transitions take too, so nothing waits for the resource's id first.
export const RESOURCE_QUERY = `query($id: ID, $slug: String, $ref: String!, $refId: ID!, $zone: String, $first: Int) {
  resource(id: $id, slug: $slug) { id kind provider name slug lifecycle rawState attributes health lastCheckAt
    attributeOwners { key owner principal at }
    firstSeen lastSeen missingSince declaration { by evidence at }
    ${STATE_FIELDS} }
  checks(resourceId: $refId) { ${CHECK_FIELDS} }
  transitions(resourceId: $ref, first: $first) { edges { node { ${TRANSITION_FIELDS} } } pageInfo { hasNextPage } }
  newest: transitions(first: 1) { edges { node { observedAt } } }
}`;

export const GRAPH_QUERY = `query($id: ID!, $depth: Int!) {
  relations(id: $id) { type fromId toId provenance source
    from { id name slug kind health } to { id name slug kind health } }
  dependents(id: $id, maxDepth: $depth) { count reached { depth
    resource { id name slug kind health relations { type fromId toId provenance } } } }
}`;

export const INCIDENT_QUERY = `query($id: ID!, $since: DateTime, $until: DateTime, $zone: String) {
  incidentContext(resourceId: $id, since: $since, until: $until, zone: $zone) { since until zone narrative }
}`;

export const AUDIT_QUERY = `query($filter: AuditFilter, $first: Int, $after: String) {
  auditLog(filter: $filter, first: $first, after: $after) {
    nodes { id at principal role operation targetIds outcome detail via arguments }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** Page sizes the pages ask with (a different `first` is a different plan for Neo4j). */
export const TIMELINE_PAGE = 50;
export const RESOURCE_HISTORY_PAGE = 25;
export const SUPPRESSED_PAGE = 200;
export const APPROVALS_PAGE = 100;
export const HISTORY_PAGE = 200;
export const AUDIT_PAGE = 50;

/**
 * What a first visit asks, with its variables as the pages send them. A variable whose value is
 * `"$id"`, `"$slug"`, `"$zone"`, `"$since"` or `"$until"` is filled by the warm-up: a resource's id
 * or slug (resource documents run for both: links open a page by id, search and typed URLs by
 * slug), the zone, and the incident paragraph's default window (the last 6 hours).
 */
export interface WarmUpDocument {
  name: string;
  scope: 'estate' | 'resource';
  query: string;
  variables: Record<string, unknown>;
}

export const WARM_UP: WarmUpDocument[] = [
  { name: 'about', scope: 'estate', query: ABOUT_QUERY, variables: {} },
  { name: 'inbox', scope: 'estate', query: APPROVALS_QUERY, variables: { open: true, first: APPROVALS_PAGE } },
  { name: 'history', scope: 'estate', query: APPROVALS_QUERY, variables: { open: false, first: HISTORY_PAGE } },
  { name: 'redeems', scope: 'estate', query: REDEEMS_QUERY, variables: { first: HISTORY_PAGE } },
  {
    name: 'timeline',
    scope: 'estate',
    query: TIMELINE_QUERY,
    variables: {
      resource: null,
      kind: null,
      since: null,
      until: null,
      confidence: null,
      actor: null,
      actorKind: null,
      first: TIMELINE_PAGE,
      after: null,
      zone: '$zone',
    },
  },
  {
    name: 'conditions',
    scope: 'estate',
    query: CONDITIONS_QUERY,
    variables: { resource: null, zone: '$zone', suppressed: SUPPRESSED_PAGE },
  },
  { name: 'search', scope: 'estate', query: ALL_RESOURCES_QUERY, variables: {} },
  { name: 'audit', scope: 'estate', query: AUDIT_QUERY, variables: { filter: {}, first: AUDIT_PAGE, after: null } },
  {
    name: 'resource',
    scope: 'resource',
    query: RESOURCE_QUERY,
    variables: { id: '$id', ref: '$id', refId: '$id', zone: '$zone', first: RESOURCE_HISTORY_PAGE },
  },
  {
    name: 'resource by slug',
    scope: 'resource',
    query: RESOURCE_QUERY,
    variables: { slug: '$slug', ref: '$slug', refId: '$slug', zone: '$zone', first: RESOURCE_HISTORY_PAGE },
  },
  {
    name: 'resource conditions',
    scope: 'resource',
    query: CONDITIONS_QUERY,
    variables: { resource: '$id', zone: '$zone', suppressed: SUPPRESSED_PAGE },
  },
  { name: 'graph', scope: 'resource', query: GRAPH_QUERY, variables: { id: '$id', depth: 1 } },
  {
    name: 'incident',
    scope: 'resource',
    query: INCIDENT_QUERY,
    variables: { id: '$id', zone: '$zone', since: '$since', until: '$until' },
  },
];
