import DataLoader from 'dataloader';
import {
  type ConditionRecord,
  type EdgeRecord,
  groupBy,
  type ResourceRecord,
  type StoredEventRecord,
  type TransitionRecord,
} from '../src/model/index.js';
import type { ServiceDeps } from '../src/services/deps.js';
import { conditionsOfMany } from '../src/services/health.js';
import { relationsOfMany, type RelationsOptions } from '../src/services/relationships.js';
import { resourcesByIds } from '../src/services/resources.js';
import { eventsByIds, transitionsByIds } from '../src/services/transitions.js';

type RelationsKey = RelationsOptions & { id: string };

interface ConditionsKey {
  id: string;
  status: 'open' | 'resolved' | null;
}

/** Answers `ids` in their order from what a batch found (null where it found nothing). */
async function inOrder<T extends { id: string }>(ids: readonly string[], found: Promise<T[]>): Promise<(T | null)[]> {
  const byId = new Map((await found).map((x) => [x.id, x]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * Per-request DataLoaders over the services' batch functions (keys sharing their non-id options
 * are grouped into one query): a page of N resources with their relations, relation endpoints and
 * conditions costs a constant number of Cypher queries, not N.
 */
export function createLoaders(deps: ServiceDeps) {
  const resourceById = new DataLoader<string, ResourceRecord | null>((ids) => inOrder(ids, resourcesByIds(deps, ids)));
  const eventById = new DataLoader<string, StoredEventRecord | null>((ids) => inOrder(ids, eventsByIds(deps, ids)));
  const transitionById = new DataLoader<string, TransitionRecord | null>((ids) =>
    inOrder(ids, transitionsByIds(deps, ids)),
  );

  const relations = new DataLoader<RelationsKey, EdgeRecord[], string>(
    async (keys) => {
      const results = new Map<string, EdgeRecord[]>();
      for (const [, group] of groupBy(keys, (k) => `${k.types?.join(',') ?? '*'}|${k.direction}|${k.includeStale}`)) {
        const first = group[0]!;
        const byId = await relationsOfMany(
          deps,
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
          deps,
          group.map((k) => k.id),
          group[0]!.status,
        );
        for (const k of group) results.set(`${k.id}|${k.status}`, byId.get(k.id) ?? []);
      }
      return keys.map((k) => results.get(`${k.id}|${k.status}`) ?? []);
    },
    { cacheKeyFn: (k) => `${k.id}|${k.status}` },
  );

  return { resourceById, eventById, transitionById, relations, conditions };
}

function relationsCacheKey(k: RelationsKey): string {
  return `${k.id}|${k.types?.join(',') ?? '*'}|${k.direction}|${k.includeStale}`;
}

export type Loaders = ReturnType<typeof createLoaders>;
