/**
 * Resource search as an operator types it into one box: an id, a `kind:name` slug, or part of a
 * name or id, case-insensitively. Best matches first: the exact id, an exact slug or name, a name
 * that starts with the text, then names and ids that contain it.
 */
import type { Driver } from 'neo4j-driver';
import { parseSlug, type ResourceRecord } from '../../model/index.js';
import { int } from '../db/statements.js';
import { resourceFromProperties } from './read.js';

/** At most `limit` resources matching `text` (already trimmed, not empty), best first, then by name and id. */
export async function searchResources(driver: Driver, text: string, limit: number): Promise<ResourceRecord[]> {
  const slug = parseSlug(text);
  const { records } = await driver.executeQuery(
    `WITH $text AS text, toLower($text) AS q
     MATCH (r:Resource)
     WHERE r.id = text OR toLower(r.name) CONTAINS q OR toLower(r.id) CONTAINS q
        OR ($slugKind IS NOT NULL AND r.kind = $slugKind AND toLower(r.name) CONTAINS $slugName)
     WITH r, CASE
       WHEN r.id = text THEN 0
       WHEN toLower(r.name) = q OR (r.kind = $slugKind AND toLower(r.name) = $slugName) THEN 1
       WHEN toLower(r.name) STARTS WITH q OR (r.kind = $slugKind AND toLower(r.name) STARTS WITH $slugName) THEN 2
       WHEN toLower(r.name) CONTAINS q OR r.kind = $slugKind THEN 3
       ELSE 4 END AS rank
     RETURN properties(r) AS p ORDER BY rank, toLower(r.name), r.id LIMIT $limit`,
    {
      text,
      slugKind: slug.ok ? slug.kind : null,
      slugName: slug.ok ? slug.name.toLowerCase() : null,
      limit: int(limit),
    },
    { routing: 'READ' },
  );
  return records.map((r) => resourceFromProperties(r.get('p')));
}
