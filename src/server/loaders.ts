import DataLoader from 'dataloader';
import type { Driver } from 'neo4j-driver';
import { conditionsOfMany } from '../graph/conditions.js';
import { getResourcesByIds } from '../graph/resources.js';
import { type Direction, relationsOfMany } from '../graph/edges.js';
import {
  type ConditionRecord,
  type EdgeRecord,
  groupBy,
  type RelationshipType,
  type ResourceRecord,
} from '../model/index.js';

interface RelationsKey {
  id: string;
  types: RelationshipType[] | null;
  direction: Direction;
  includeStale: boolean;
}

interface ConditionsKey {
  id: string;
  status: 'open' | 'resolved' | null;
}

/**
 * Per-request DataLoaders (keys sharing their non-id options are grouped into one query): a page of N resources with their relations, relation endpoints and
 * conditions costs a constant number of Cypher queries, not N.
 */
export function createLoaders(driver: Driver) {
  const resourceById = new DataLoader<string, ResourceRecord | null>(async (ids) => {
    const found = new Map((await getResourcesByIds(driver, ids)).map((r) => [r.id, r]));
    return ids.map((id) => found.get(id) ?? null);
  });

  const relations = new DataLoader<RelationsKey, EdgeRecord[], string>(
    async (keys) => {
      const results = new Map<string, EdgeRecord[]>();
      for (const [, group] of groupBy(keys, (k) => `${k.types?.join(',') ?? '*'}|${k.direction}|${k.includeStale}`)) {
        const first = group[0]!;
        const byId = await relationsOfMany(
          driver,
          group.map((k) => k.id),
          { types: first.types, direction: first.direction, includeStale: first.includeStale },
        );
        for (const k of group) results.set(relationsCacheKey(k), byId.get(k.id) ?? []);
      }
      return keys.map((k) => results.get(relationsCacheKey(k)) ?? []);
    },
    { cacheKeyFn: relationsCacheKey },
  );

  const conditions = new DataLoader<ConditionsKey, ConditionRecord[], string>(
    async (keys) => {
      const results = new Map<string, ConditionRecord[]>();
      for (const [, group] of groupBy(keys, (k) => k.status ?? '*')) {
        const byId = await conditionsOfMany(
          driver,
          group.map((k) => k.id),
          group[0]!.status,
        );
        for (const k of group) results.set(`${k.id}|${k.status}`, byId.get(k.id) ?? []);
      }
      return keys.map((k) => results.get(`${k.id}|${k.status}`) ?? []);
    },
    { cacheKeyFn: (k) => `${k.id}|${k.status}` },
  );

  return { resourceById, relations, conditions };
}

function relationsCacheKey(k: RelationsKey): string {
  return `${k.id}|${k.types?.join(',') ?? '*'}|${k.direction}|${k.includeStale}`;
}

export type Loaders = ReturnType<typeof createLoaders>;
