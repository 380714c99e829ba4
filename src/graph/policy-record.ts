import type { Driver } from 'neo4j-driver';
import { writeAuditTx, type AuditInput } from './audit.js';

/** The policy last in force, as recorded at a start: its digest and canonical JSON (to name what changed). */
export interface PolicyRecord {
  digest: string;
  policy: string;
  path: string;
  recordedAt: string;
}

/**
 * Records the policy now in force as `(:PolicyInForce {id: 'current'})` and returns the one it
 * replaced (null the first time). `auditOf` words the change when the digest differs; the audit
 * line and the new record commit together.
 */
export async function swapPolicyRecord(
  driver: Driver,
  next: PolicyRecord,
  auditOf: (previous: PolicyRecord) => AuditInput | null,
): Promise<PolicyRecord | null> {
  const session = driver.session();
  try {
    return await session.executeWrite(async (tx) => {
      const { records } = await tx.run(
        `MATCH (p:PolicyInForce {id: 'current'}) RETURN p.digest AS digest, p.policy AS policy, p.path AS path, toString(p.recordedAt) AS recordedAt`,
      );
      const row = records[0];
      const previous: PolicyRecord | null = row
        ? {
            digest: row.get('digest') as string,
            policy: row.get('policy') as string,
            path: row.get('path') as string,
            recordedAt: row.get('recordedAt') as string,
          }
        : null;
      if (previous?.digest === next.digest) return previous;
      const entry = previous ? auditOf(previous) : null;
      if (entry) await writeAuditTx(tx, [entry]);
      await tx.run(
        `MERGE (p:PolicyInForce {id: 'current'})
         SET p.digest = $digest, p.policy = $policy, p.path = $path, p.recordedAt = datetime($recordedAt)`,
        next,
      );
      return previous;
    });
  } finally {
    await session.close();
  }
}
