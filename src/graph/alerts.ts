import type { Driver } from 'neo4j-driver';
import type { FeedEntry, ResourceRecord } from '../model/index.js';
import { type AuditInput, writeWithAudit } from './audit.js';
import { int } from './db/statements.js';
import { appendFeedTx } from './feed.js';
import { resourceFromProperties } from './resources/read.js';

/**
 * Alerts received from Alertmanager: the resources their labels may name (read by name, id or an
 * attribute's value, in one query), and the write that stores a request's alerts as feed entries
 * (topic `alert`, change `received`), all of them and the audit line in one transaction — the
 * notifier delivers them from the feed after its cursor, so an accepted alert outlives a restart.
 */

/** What a label says about a resource: its name, its id, or an attribute's value (compared as text). */
export interface CandidateProbes {
  names: readonly string[];
  ids: readonly string[];
  attrs: ReadonlyArray<{ key: string; value: string }>;
}

/** Resources (not destroyed) any probe names; at most `limit`. */
export async function alertCandidates(
  driver: Driver,
  probes: CandidateProbes,
  limit = 1000,
): Promise<ResourceRecord[]> {
  if (probes.names.length + probes.ids.length + probes.attrs.length === 0) return [];
  const { records } = await driver.executeQuery(
    `CALL () {
       UNWIND $names AS v MATCH (r:Resource) WHERE r.name = v RETURN r
       UNION
       UNWIND $ids AS v MATCH (r:Resource) WHERE r.id = v RETURN r
       UNION
       UNWIND $attrs AS a MATCH (r:Resource) WITH a, r, r['attr.' + a.key] AS v
       // A number written from JavaScript is stored as a float: 101 reads "101.0" as text.
       WHERE toStringOrNull(v) = a.value OR (v IS :: FLOAT AND v = toFloatOrNull(a.value))
         OR (v IS :: INTEGER AND v = toIntegerOrNull(a.value))
       RETURN r
     }
     WITH r WHERE coalesce(r.lifecycle, 'active') <> 'destroyed'
     RETURN properties(r) AS r ORDER BY r.id LIMIT $limit`,
    {
      names: [...new Set(probes.names)],
      ids: [...new Set(probes.ids)],
      attrs: probes.attrs.map((a) => ({ key: a.key, value: a.value })),
      limit: int(limit),
    },
    { routing: 'READ' },
  );
  return records.map((r) => resourceFromProperties(r.get('r')));
}

/** One received alert as stored: the resource it names (or `alertmanager:unmatched`) and its payload. */
export interface StoredAlert {
  resourceId: string;
  at: string;
  payload: unknown;
}

/** Appends the alerts as feed entries in one write with the audit line; returns the entries. */
export function storeAlerts(
  driver: Driver,
  alerts: readonly StoredAlert[],
  audit?: () => AuditInput,
): Promise<FeedEntry[]> {
  return writeWithAudit(
    driver,
    (tx) =>
      appendFeedTx(
        tx,
        alerts.map((a) => ({
          topic: 'alert' as const,
          resourceId: a.resourceId,
          change: 'received',
          at: a.at,
          payload: a.payload,
        })),
      ),
    audit,
  );
}
