import type { Driver } from 'neo4j-driver';
import { badInput } from '../errors.js';
import {
  ATTRIBUTE_PREFIX,
  AttributeKeySchema,
  STATES,
  isStateOf,
  type Kind,
  type Lifecycle,
  type Provider,
} from '../model/index.js';
import { resourceFromProperties, type ResourceRecord } from './resource-record.js';
import { int } from './values.js';

export interface ResourceFilter {
  kind?: Kind | null;
  state?: string | null;
  provider?: Provider | null;
  nameContains?: string | null;
  attribute?: { key: string; equals: unknown } | null;
  hasOpenCondition?: boolean | null;
  lifecycle?: Lifecycle | null;
}

export const MAX_PAGE_SIZE = 500;

/** Checks a filter and turns it into query parameters; bad values name their field. */
function filterParams(filter: ResourceFilter) {
  if (filter.state != null) {
    if (filter.kind == null) {
      const anyKind = (Object.keys(STATES) as Kind[]).some((k) => isStateOf(k, filter.state!));
      if (!anyKind) throw badInput('filter.state', `"${filter.state}" is not a state of any kind`);
    } else if (!isStateOf(filter.kind, filter.state)) {
      throw badInput(
        'filter.state',
        `"${filter.state}" is not a ${filter.kind} state (allowed: ${STATES[filter.kind].join(', ')})`,
      );
    }
  }
  let attrKey: string | null = null;
  let attrValue: unknown = null;
  if (filter.attribute) {
    const key = AttributeKeySchema.safeParse(filter.attribute.key);
    if (!key.success) throw badInput('filter.attribute.key', key.error.issues[0]!.message);
    const v = filter.attribute.equals;
    if (v === null || (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')) {
      throw badInput('filter.attribute.equals', 'must be a string, number or boolean');
    }
    attrKey = ATTRIBUTE_PREFIX + key.data;
    attrValue = v;
  }
  return {
    kind: filter.kind ?? null,
    state: filter.state ?? null,
    provider: filter.provider ?? null,
    nameContains: filter.nameContains ? filter.nameContains.toLowerCase() : null,
    attrKey,
    attrValue,
    hasOpen: filter.hasOpenCondition ?? null,
    lifecycle: filter.lifecycle ?? null,
  };
}

const WHERE = `
  ($kind IS NULL OR r.kind = $kind)
  AND ($state IS NULL OR r.state = $state)
  AND ($provider IS NULL OR r.provider = $provider)
  AND ($lifecycle IS NULL OR r.lifecycle = $lifecycle)
  AND ($nameContains IS NULL OR toLower(r.name) CONTAINS $nameContains)
  AND ($attrKey IS NULL OR r[$attrKey] = $attrValue)
  AND ($hasOpen IS NULL OR $hasOpen = EXISTS { MATCH (c:Condition) WHERE c.resourceId = r.id AND c.status = 'open' })`;

/** One page of resources ordered by id (keyset: `afterId` exclusive) plus the filter's total count. */
export async function listResources(
  driver: Driver,
  filter: ResourceFilter,
  page: { first: number; afterId?: string | null },
): Promise<{ nodes: ResourceRecord[]; hasNextPage: boolean; totalCount: number }> {
  if (!Number.isInteger(page.first) || page.first < 1 || page.first > MAX_PAGE_SIZE) {
    throw badInput('first', `must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${page.first}`);
  }
  const params = filterParams(filter);
  const [rows, count] = await Promise.all([
    driver.executeQuery(
      `MATCH (r:Resource) WHERE ${WHERE} AND ($after IS NULL OR r.id > $after)
       RETURN properties(r) AS p ORDER BY r.id LIMIT $limit`,
      { ...params, after: page.afterId ?? null, limit: int(page.first + 1) },
      { routing: 'READ' },
    ),
    driver.executeQuery(`MATCH (r:Resource) WHERE ${WHERE} RETURN count(r) AS n`, params, { routing: 'READ' }),
  ]);
  const all = rows.records.map((r) => resourceFromProperties(r.get('p')));
  return {
    nodes: all.slice(0, page.first),
    hasNextPage: all.length > page.first,
    totalCount: Number(count.records[0]?.get('n') ?? 0),
  };
}
