import type { Driver } from 'neo4j-driver';
import {
  type ActionAuthorizedRecord,
  type AutonomyState,
  badInput,
  parseSlug,
  type ResourceRecord,
  type TransitionRecord,
} from '../model/index.js';
import { type AuthorizationHistory, autonomyFromProperties } from './autonomy.js';
import { coalescedRead } from './db/coalesced-read.js';
import { toPlain } from './db/statements.js';
import { resourceFromProperties, type ResourceRef } from './resources/read.js';
import { transitionFromProperties } from './transitions/read.js';

/**
 * Everything one gate decision reads, in one statement: the resources its target names, the
 * latest transition of the one it resolves to, the kill switch and breaker, and the authorization
 * history cooldowns and the breaker count. Concurrent questions share it (coalesced-read.ts): all
 * its parameters are per call, bound in its first clause.
 */
const GATE_FACTS = `WITH $refId AS refId, $refName AS refName, $refKind AS refKind, $entityId AS entityId,
       $action AS action, $since AS since, $autoSince AS autoSince
  WITH entityId, action, since, autoSince,
       COLLECT { MATCH (r:Resource {id: refId}) RETURN properties(r) } +
       COLLECT { MATCH (r:Resource {name: refName}) USING INDEX r:Resource(name) WHERE r.kind = refKind
                 RETURN properties(r) ORDER BY r.id } AS found,
       COLLECT { MATCH (k:AutonomySwitch {id: 'global'}) RETURN properties(k) } AS switches
  WITH found, switches, entityId, action, since, autoSince,
       CASE WHEN size(found) = 1 THEN found[0].id END AS rid
  WITH found, switches, action, since, rid, coalesce(rid, entityId) AS tid,
       CASE WHEN autoSince IS NULL THEN null
            WHEN switches[0].setAt IS NOT NULL AND switches[0].setAt > datetime(autoSince) THEN switches[0].setAt
            ELSE datetime(autoSince) END AS autoFrom
  RETURN found, switches[0] AS k,
    COLLECT { MATCH (t:Transition) WHERE t.resourceId = rid AND t.observedAt IS NOT NULL
              WITH t ORDER BY t.observedAt DESC LIMIT 1 RETURN properties(t) } AS latest,
    COLLECT { MATCH (x:ActionAuthorized {targetId: tid, action: action})
              WHERE since IS NOT NULL AND x.at >= datetime(since)
              WITH x ORDER BY x.at DESC LIMIT 1 RETURN properties(x) } AS last,
    COUNT { MATCH (x:ActionAuthorized) WHERE x.at >= autoFrom AND x.source = 'auto' } AS autoCount`;

const PER_CALL = ['refId', 'refName', 'refKind', 'entityId', 'action', 'since', 'autoSince'];

/** What a gate decision rests on, as read in one statement. */
export interface GateFacts {
  /** The resources the ref named: by id none or one, by slug every match in id order (none for an entity). */
  found: ResourceRecord[];
  /** The latest transition of the one resource found (null: none, or not exactly one found). */
  latest: TransitionRecord | null;
  autonomy: AutonomyState;
  /** The history of the target the ref resolved to (the entity's id for an entity target). */
  history: AuthorizationHistory;
}

/**
 * Reads a decision's facts. `ref` names a graph resource (null: an entity outside the graph, its
 * id `entityId`); `since` is the cooldown's start, `autoSince` the breaker window's start before
 * the switch's reset (the later of the two counts, as rateWindows has it).
 */
export async function readGateFacts(
  driver: Driver,
  q: {
    ref: ResourceRef | null;
    entityId: string | null;
    action: string;
    since: string | null;
    autoSince: string | null;
  },
): Promise<GateFacts> {
  let refName: string | null = null;
  let refKind: string | null = null;
  if (q.ref !== null && 'slug' in q.ref) {
    const parsed = parseSlug(q.ref.slug);
    if (!parsed.ok) throw badInput('slug', parsed.reason);
    ({ name: refName, kind: refKind } = parsed);
  }
  const { records } = await coalescedRead(
    driver,
    GATE_FACTS,
    {
      refId: q.ref !== null && 'id' in q.ref ? q.ref.id : null,
      refName,
      refKind,
      entityId: q.entityId,
      action: q.action,
      since: q.since,
      autoSince: q.autoSince,
    },
    PER_CALL,
  );
  const row = records[0]!;
  const latest = row.get('latest') as unknown[];
  const last = row.get('last') as unknown[];
  return {
    found: (row.get('found') as unknown[]).map(resourceFromProperties),
    latest: latest[0] ? transitionFromProperties(latest[0]) : null,
    autonomy: autonomyFromProperties(row.get('k')),
    history: {
      last: last[0] ? (toPlain(last[0]) as ActionAuthorizedRecord) : null,
      autoCount: toPlain(row.get('autoCount')) as number,
    },
  };
}
