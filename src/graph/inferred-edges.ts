import type { Driver } from 'neo4j-driver';

/**
 * Removes inferred edges asserted by one resolver `source` (optionally only one `rule`), and
 * nothing else: observed edges (a provider's) and declared ones (a principal's) are never matched,
 * whatever their source says. `exceptTag` keeps the edges a resolver run just (re)asserted, so a
 * run withdraws exactly what it no longer infers; `idPrefixes` confines it to edges whose both ends
 * lie under one of the prefixes.
 */
export async function withdrawInferredEdges(
  driver: Driver,
  options: { source: string; rule?: string | null; exceptTag?: string | null; idPrefixes?: readonly string[] | null },
): Promise<{ withdrawn: number }> {
  if (options.source.trim() === '') throw new Error('withdrawInferredEdges: source must not be empty');
  const { records } = await driver.executeQuery(
    `MATCH (a:Resource)-[e]->(b:Resource)
     WHERE e.provenance = 'inferred' AND e.source = $source
       AND ($rule IS NULL OR e.rule = $rule)
       AND ($except IS NULL OR coalesce(e.updateTag, '') <> $except)
       AND ($prefixes IS NULL OR (any(p IN $prefixes WHERE a.id STARTS WITH p) AND any(p IN $prefixes WHERE b.id STARTS WITH p)))
     DELETE e
     RETURN count(*) AS n`,
    {
      source: options.source,
      rule: options.rule ?? null,
      except: options.exceptTag ?? null,
      prefixes: options.idPrefixes ? [...options.idPrefixes] : null,
    },
  );
  return { withdrawn: Number(records[0]?.get('n') ?? 0) };
}
