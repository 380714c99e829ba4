import type { Driver } from 'neo4j-driver';
import { toPlain } from './statements.js';

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

/** Records one decision as `(:Decision)`. */
export async function recordDecision(driver: Driver, d: StoredDecision): Promise<void> {
  await driver.executeQuery(`CREATE (d:Decision) SET d = $d, d.at = datetime($d.at)`, { d });
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
