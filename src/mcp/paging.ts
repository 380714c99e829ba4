import { badInput } from '../model/index.js';

/*
 * Pages over an answer a service gives whole (relations, a traversal, checks, open conditions):
 * the MCP tools answer `first` items at a time after an opaque cursor, as the keyset-paged services
 * do. The services order these lists deterministically, so an offset names a position.
 */

const cursorOf = (tool: string, offset: number) => Buffer.from(`${tool}@${offset}`, 'utf8').toString('base64url');

function offsetOf(tool: string, cursor: string): number {
  const m = /^([a-z_]+)@(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || m[1] !== tool) throw badInput('after', `not a cursor returned by ${tool}`);
  return Number(m[2]);
}

/** One page of `items`: `first` of them after `after`, how many there are, and the next page's cursor. */
export function pageOf<T>(
  tool: string,
  items: readonly T[],
  page: { first: number; after?: string | undefined },
): { items: T[]; total: number; nextCursor: string | null } {
  const start = page.after ? offsetOf(tool, page.after) : 0;
  const slice = items.slice(start, start + page.first);
  const end = start + slice.length;
  return { items: slice, total: items.length, nextCursor: end < items.length ? cursorOf(tool, end) : null };
}

/** The next page's cursor of a keyset-paged service answer, or null on the last page. */
export function nextCursorOf(page: { hasNextPage: boolean; endCursor: string | null }): string | null {
  return page.hasNextPage ? page.endCursor : null;
}
