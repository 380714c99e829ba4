import type { Driver } from 'neo4j-driver';
import { toPlain } from './db/statements.js';

/**
 * What each configured source reported, kept in the graph as `(:IngestSource {name})` so any
 * process serving the API can answer `sources { … }` and a restart keeps the history. A source no
 * longer configured is marked `removed` (its resources stay in the graph, never deleted).
 */

export type SourceStatus = 'polling' | 'disabled' | 'removed';

export interface SourceRecord {
  name: string;
  kind: string;
  url: string;
  status: SourceStatus;
  /** Why a disabled source is not polled, or the last pass's first error; null after a clean pass. */
  lastError: string | null;
  lastPassAt: string | null;
  lastCompletePass: string | null;
  pollSeconds: number | null;
}

/**
 * Registers the configured sources at start (status polling or disabled) and marks every other
 * known source removed. Returns the names newly or still marked removed.
 */
export async function registerSources(
  driver: Driver,
  sources: ReadonlyArray<{
    name: string;
    kind: string;
    url: string;
    status: SourceStatus;
    lastError: string | null;
    pollSeconds: number;
  }>,
  at: string,
): Promise<string[]> {
  await driver.executeQuery(
    `UNWIND $rows AS row
     MERGE (s:IngestSource {name: row.name})
     SET s.id = 'source:' + row.name, s.kind = row.kind, s.url = row.url, s.status = row.status, s.pollSeconds = row.pollSeconds,
         s.registeredAt = datetime($at),
         s.lastError = CASE WHEN row.status = 'disabled' THEN row.lastError ELSE s.lastError END`,
    { rows: sources.map((s) => ({ ...s })), at },
  );
  const { records } = await driver.executeQuery(
    // The Alertmanager silencer reports beside the sources (alertmanager-silences.ts): not a source of the file.
    `MATCH (s:IngestSource) WHERE NOT s.name IN $names AND coalesce(s.kind, '') <> 'alertmanager'
     SET s.status = 'removed'
     RETURN s.name AS name ORDER BY name`,
    { names: sources.map((s) => s.name) },
  );
  return records.map((r) => r.get('name') as string);
}

/** Records one pass: when, whether it read everything, and its first error (null when clean). */
export async function recordSourcePass(
  driver: Driver,
  input: { name: string; at: string; complete: boolean; error: string | null },
): Promise<void> {
  await driver.executeQuery(
    `MATCH (s:IngestSource {name: $name})
     SET s.lastPassAt = datetime($at), s.lastError = $error,
         s.lastCompletePass = CASE WHEN $complete THEN datetime($at) ELSE s.lastCompletePass END`,
    input,
  );
}

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : String(toPlain(v)));

/** Every source known, configured or removed, by name. */
export async function listSources(driver: Driver): Promise<SourceRecord[]> {
  const { records } = await driver.executeQuery(
    'MATCH (s:IngestSource) RETURN properties(s) AS s ORDER BY s.name',
    {},
    { routing: 'READ' },
  );
  return records.map((r) => {
    const p = toPlain(r.get('s')) as Record<string, unknown>;
    return {
      name: String(p.name),
      kind: String(p.kind ?? 'unknown'),
      url: String(p.url ?? ''),
      status: (p.status as SourceStatus | undefined) ?? 'removed',
      lastError: typeof p.lastError === 'string' ? p.lastError : null,
      lastPassAt: iso(p.lastPassAt),
      lastCompletePass: iso(p.lastCompletePass),
      pollSeconds: typeof p.pollSeconds === 'number' ? p.pollSeconds : null,
    };
  });
}
