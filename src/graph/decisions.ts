import type { Driver } from 'neo4j-driver';
import { type AuditInput, writeAuditTx } from './audit.js';
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

const CREATE_DECISION = `CREATE (d:Decision) SET d = $d, d.at = datetime($d.at)`;

/**
 * Records one decision as `(:Decision)`; with `audit`, its audit line in the same transaction, so
 * the two commit together (one commit per gate question instead of two).
 */
export async function recordDecision(driver: Driver, d: StoredDecision, audit?: AuditInput): Promise<void> {
  if (!audit) {
    await driver.executeQuery(CREATE_DECISION, { d });
    return;
  }
  // executeQuery's bookmark manager: reads through executeQuery and readQuery see this write.
  const session = driver.session({ bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    await session.executeWrite(async (tx) => {
      await tx.run(CREATE_DECISION, { d });
      await writeAuditTx(tx, [audit]);
    });
  } finally {
    await session.close();
  }
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
