/** A page as the services return it: the nodes, a cursor each, and whether more follow. */
interface Page<T> {
  nodes: T[];
  cursors: string[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** The Relay connection of a page: edges with cursors, the nodes themselves, and where it ends. */
export function connection<T>(page: Page<T>) {
  return {
    edges: page.nodes.map((node, i) => ({ cursor: page.cursors[i]!, node })),
    nodes: page.nodes,
    pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
  };
}
