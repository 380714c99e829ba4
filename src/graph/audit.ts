import { randomUUID } from 'node:crypto';
import type { Driver, ManagedTransaction } from 'neo4j-driver';
import type { Role, Surface } from '../model/index.js';
import { isoNow, newestFirst, toPlain, type KeysetPage } from './db/statements.js';

/** One mutation as it was asked and answered. */
export interface AuditEntry {
  id: string;
  at: string;
  principal: string;
  role: Role;
  operation: string;
  targetIds: string[];
  outcome: 'ok' | 'refused' | 'error';
  detail: string | null;
  /** The API surface the call came through (graphql, mcp); null for in-process callers and older entries. */
  via: Surface | null;
  /** The arguments as asked, JSON with secrets redacted and size-capped; null when not recorded. */
  arguments: string | null;
}

/** Records a mutation; the audit trail is append-only. */
export async function writeAudit(driver: Driver, entry: AuditInput): Promise<AuditEntry> {
  const full = completeEntry(entry);
  await driver.executeQuery(CREATE_ENTRY, { rows: [full] });
  return full;
}

/** An entry to record: everything but its id and (defaulted) time. */
export type AuditInput = Omit<AuditEntry, 'id' | 'at' | 'via' | 'arguments'> & {
  at?: string;
  via?: Surface | null;
  arguments?: string | null;
};

/** Records entries inside the caller's transaction, so the audit line and its effect commit together. */
export async function writeAuditTx(tx: ManagedTransaction, entries: readonly AuditInput[]): Promise<AuditEntry[]> {
  const full = entries.map(completeEntry);
  if (full.length > 0) await tx.run(CREATE_ENTRY, { rows: full });
  return full;
}

/**
 * Runs one write transaction — `work`, then the audit entry `audit` builds from its result (none
 * when it returns null) — so an effect never commits without its audit line. Through executeQuery's
 * bookmark manager: executeQuery reads afterwards see the write.
 */
export async function writeWithAudit<T>(
  driver: Driver,
  work: (tx: ManagedTransaction) => Promise<T>,
  audit?: (result: T) => AuditInput | null,
): Promise<T> {
  const session = driver.session({ bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    return await session.executeWrite(async (tx) => {
      const result = await work(tx);
      const entry = audit?.(result) ?? null;
      if (entry) await writeAuditTx(tx, [entry]);
      return result;
    });
  } finally {
    await session.close();
  }
}

/** Cypher creating `(a:AuditEntry)` from the completed entry `e` (an expression): a write's own statement may carry its audit line. */
export function createAuditCypher(e: string): string {
  return `CREATE (a:AuditEntry {id: ${e}.id, at: datetime(${e}.at), principal: ${e}.principal, role: ${e}.role, operation: ${e}.operation,
    targetIds: ${e}.targetIds, outcome: ${e}.outcome, detail: ${e}.detail, via: ${e}.via, arguments: ${e}.arguments})`;
}

const CREATE_ENTRY = `UNWIND $rows AS e
  ${createAuditCypher('e')}`;

/** An entry as stored: its id and time given, absent fields null. */
export function completeEntry(entry: AuditInput): AuditEntry {
  return {
    id: randomUUID(),
    at: entry.at ?? isoNow(),
    ...entry,
    detail: entry.detail ?? null,
    via: entry.via ?? null,
    arguments: entry.arguments ?? null,
  };
}

export interface AuditFilter {
  principal?: string | null;
  operation?: string | null;
  targetId?: string | null;
  outcome?: string | null;
  since?: string | null;
}

/** Newest first; keyset paging on (at, id). */
/** The audit log, newest first, keyset-paginated (`first` 1–500). */
export async function listAudit(
  driver: Driver,
  filter: AuditFilter,
  page: { first: number; after?: string | null },
): Promise<KeysetPage<AuditEntry>> {
  const keyset = newestFirst(page, 'auditLog');
  const { records } = await driver.executeQuery(
    `MATCH (a:AuditEntry)
     WHERE ($principal IS NULL OR a.principal = $principal)
       AND ($operation IS NULL OR a.operation = $operation)
       AND ($targetId IS NULL OR $targetId IN a.targetIds)
       AND ($outcome IS NULL OR a.outcome = $outcome)
       AND ($since IS NULL OR a.at >= datetime($since))
       AND ${keyset.before('a', 'at')}
     RETURN properties(a) AS a ORDER BY a.at DESC, a.id DESC LIMIT $limit`,
    {
      principal: filter.principal ?? null,
      operation: filter.operation ?? null,
      targetId: filter.targetId ?? null,
      outcome: filter.outcome ?? null,
      since: filter.since ?? null,
      ...keyset.params,
    },
    { routing: 'READ' },
  );
  return keyset.cut(
    // Neo4j stores no nulls: a missing detail or via (entries older than surfaces) reads as null.
    records.map(
      (r) =>
        ({ detail: null, via: null, arguments: null, ...(toPlain(r.get('a')) as Partial<AuditEntry>) }) as AuditEntry,
    ),
    (e) => e,
  );
}
