import { DateTime } from 'luxon';
import type { GraphQLError } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { createRequestContext, type RequestContext } from '../../resolvers/context.js';
import type { ServiceDeps } from '../services/deps.js';
import type { Principal } from '../services/permissions.js';

/**
 * The console's first page is slow on a fresh process: Neo4j plans every Cypher text the first time
 * it sees it (measured 0.2–1.4 s per console request on the demo, planning alone), and the executor
 * compiles each GraphQL document on a later run. So once the server listens, the queries the
 * console's pages ask (timeline, conditions, inbox, search, a resource with its checks, history,
 * neighbourhood and incident paragraph) are run once each through the server's own yoga — its
 * parser cache, validation, limits and executor — as an in-process principal. Queries only: nothing
 * is written, and reads are not audited. One at a time, so a real request is never queued behind
 * more than one; every failure is only logged (the console works unwarmed, just slower at first).
 */
export const WARM_UP_PRINCIPAL: Principal = { name: 'aitia (console warm-up)', role: 'operator' };

const TRANSITION_FIELDS = `id sequence resourceId kind from to rawFrom rawTo observedAt resource { id name slug }
  attribution { confidence actor actorKind requestedBy executor reason systemContext { label eventId }
    events { id role rawType summary } }
  decision { decision reasons wouldHaveSuppressed } narrative(zone: $zone)`;
const CONDITION_FIELDS = `id type status resourceId openedAt expected suppressed wouldSuppress suppressionReasons
  resource { id slug } cause { transition { id from to observedAt } attribution { confidence actor actorKind }
    resource { id slug } } narrative(zone: $zone)`;
const STATE = ['Cluster', 'Host', 'Vm', 'Lxc', 'Storage', 'Network', 'Service']
  .map((t) => `... on ${t} { stateOf${t}: state }`)
  .join(' ');

/** Estate-wide: what the shell, the inbox, the timeline and the search page ask first. */
const ESTATE: Record<string, string> = {
  about: `{ about { version principal role autonomy { mode setBy setAt reason breakerOpenedAt breakerReason } } }`,
  inbox: `query($first: Int) { approvals(open: true, first: $first) { nodes { id status requester action targetId
    riskClass reasons expiresAt } } }`,
  timeline: `query($zone: String, $first: Int) { transitions(first: $first) { edges { node { ${TRANSITION_FIELDS} } }
    pageInfo { hasNextPage endCursor } } newest: transitions(first: 1) { edges { node { sequence observedAt } } } }`,
  conditions: `query($zone: String, $first: Int) { openConditions { ${CONDITION_FIELDS} }
    conditions(filter: {status: open, suppressed: true}, first: $first) { nodes { ${CONDITION_FIELDS} } } }`,
  search: `query($first: Int) { resources(first: $first) { nodes { id kind name slug provider lifecycle rawState ${STATE} } } }`,
};

/** Of one resource: the resource page's facts, checks, history, graph and incident paragraph. */
const RESOURCE: Record<string, string> = {
  resource: `query($id: ID, $slug: String, $ref: String!, $refId: ID!, $zone: String, $first: Int) {
    resource(id: $id, slug: $slug) { id kind provider name slug lifecycle rawState attributes health lastCheckAt firstSeen lastSeen
      attributeOwners { key owner principal at } missingSince declaration { by evidence at } ${STATE} }
    checks(resourceId: $refId) { id kind target intervalSeconds critical createdBy failing unreachable lastRunAt
      latest { status at durationMs reason unreachable } }
    transitions(resourceId: $ref, first: $first) { edges { node { ${TRANSITION_FIELDS} } } pageInfo { hasNextPage } }
    openConditions(resourceId: $refId) { ${CONDITION_FIELDS} }
    conditions(filter: {status: open, suppressed: true, resourceId: $refId}, first: $first) {
      nodes { ${CONDITION_FIELDS} } } }`,
  graph: `query($id: ID!) {
    relations(id: $id) { type fromId toId provenance source from { id name slug kind health } to { id name slug kind health } }
    dependents(id: $id, maxDepth: 1) { count reached { depth
      resource { id name slug kind health relations { type fromId toId provenance } } } } }`,
  incident: `query($id: ID!, $since: DateTime, $until: DateTime, $zone: String) {
    incidentContext(resourceId: $id, since: $since, until: $until, zone: $zone) { narrative } }`,
};

export interface WarmUpReport {
  ms: number;
  documents: number;
  /** What failed, each `<document>: <first error>`. */
  failed: string[];
}

export interface WarmUp {
  done: Promise<WarmUpReport>;
  /** Skips what has not started and waits for the one in flight (before the driver closes). */
  stop(): Promise<void>;
}

type Yoga = YogaServerInstance<Record<string, never>, RequestContext>;

/** Runs the console's queries `runs` times each (the executor's compileAfter + 1: planned, then compiled). */
export function startConsoleWarmUp(yoga: Yoga, deps: ServiceDeps, runs: number): WarmUp {
  let stopped = false;
  const run = async (name: string, query: string, variables: Record<string, unknown>): Promise<unknown> => {
    const { parse, validate, execute, schema } = yoga.getEnveloped({} as never);
    const document = parse(query);
    const invalid = validate(schema, document) as readonly GraphQLError[];
    if (invalid.length) throw new Error(`${name}: ${invalid[0]!.message}`);
    let data: unknown;
    for (let i = 0; i < runs && !stopped; i += 1) {
      const contextValue = createRequestContext(deps, WARM_UP_PRINCIPAL);
      const result = (await execute({ schema, document, variableValues: variables, contextValue })) as {
        data?: unknown;
        errors?: readonly { message: string }[];
      };
      if (result.errors?.length) throw new Error(`${name}: ${result.errors[0]!.message}`);
      data = result.data;
    }
    return data;
  };

  const warm = async (): Promise<WarmUpReport> => {
    const started = Date.now();
    const failed: string[] = [];
    let documents = 0;
    const attempt = async (name: string, query: string, variables: Record<string, unknown>) => {
      if (stopped) return undefined;
      documents += 1;
      return run(name, query, variables).catch((err: unknown) => {
        failed.push(err instanceof Error ? err.message : name);
        deps.log.debug({ err, document: name }, 'console warm-up: a query failed');
        return undefined;
      });
    };
    const zone = 'UTC';
    for (const [name, query] of Object.entries(ESTATE)) await attempt(name, query, { zone, first: 50 });
    // A host if there is one (it has the most neighbours), else any resource; none on an empty graph.
    type Picked = { nodes: { id: string; slug: string }[] };
    const found = (await attempt(
      'pick',
      `{ hosts: resources(filter: {kind: host}, first: 1) { nodes { id slug } }
      any: resources(first: 1) { nodes { id slug } } }`,
      {},
    )) as { hosts: Picked; any: Picked } | undefined;
    const picked = found?.hosts.nodes[0] ?? found?.any.nodes[0];
    if (picked) {
      const { id, slug } = picked;
      const until = DateTime.utc();
      const window = { since: until.minus({ hours: 6 }).toISO(), until: until.toISO() };
      // The page is opened by id (links) and by slug (search, typed URLs): each resolves its own way.
      await attempt('resource by slug', RESOURCE.resource!, { slug, ref: slug, refId: slug, zone, first: 25 });
      for (const [name, query] of Object.entries(RESOURCE))
        await attempt(name, query, { id, ref: id, refId: id, zone, first: 25, ...window });
    }
    return { ms: Date.now() - started, documents, failed };
  };

  const done = warm().then(
    (report) => {
      deps.log.info(report, 'console queries warmed');
      return report;
    },
    (err: unknown) => {
      deps.log.warn({ err }, 'console warm-up failed');
      return { ms: 0, documents: 0, failed: ['warm-up'] };
    },
  );
  return {
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}
