import type { Driver } from 'neo4j-driver';
import { type AuditInput, completeEntry, createAuditCypher } from './audit.js';
import { groupCommit } from './db/group-commit.js';
import { toPlain } from './db/statements.js';

/** A gate decision as recorded for replay: canonical inputs, the facts read, the policy digest and the answer (secrets redacted). */
export interface StoredDecision {
  id: string;
  at: string;
  principal: string;
  request: string;
  target: string;
  autonomy: string | null;
  rate: string | null;
  /** `at` exactly as the classifier read it (the stored datetime may print differently). */
  askedAt: string | null;
  policyDigest: string;
  answer: string;
}

// The decision and, when given, its audit line: one statement, so one row of a group commit.
const CREATE_DECISION = `CREATE (d:Decision) SET d = row.d, d.at = datetime(row.d.at)
  WITH row
  FOREACH (e IN CASE WHEN row.audit IS NULL THEN [] ELSE [row.audit] END |
    ${createAuditCypher('e')})
  RETURN row.d.id AS id`;

/**
 * Records one decision as `(:Decision)`; with `audit`, its audit line in the same statement, so
 * the two commit together. Concurrent decisions share one transaction (group-commit.ts); this
 * resolves once this one's has committed.
 */
export async function recordDecision(driver: Driver, d: StoredDecision, audit?: AuditInput): Promise<void> {
  await groupCommit(driver, 'decision', CREATE_DECISION, { d, audit: audit ? completeEntry(audit) : null }, ['id']);
}

/** One recorded decision, or null. */
export async function decisionById(driver: Driver, id: string): Promise<StoredDecision | null> {
  const { records } = await driver.executeQuery(
    'MATCH (d:Decision {id: $id}) RETURN properties(d) AS d',
    { id },
    { routing: 'READ' },
  );
  if (!records[0]) return null;
  return {
    autonomy: null,
    rate: null,
    askedAt: null,
    ...(toPlain(records[0].get('d')) as Omit<StoredDecision, 'autonomy' | 'rate' | 'askedAt'>),
  };
}
