// Search resources by name, slug or id. Text that is exactly one resource's id or slug opens its
// page; anything else lists the resources whose name contains it, with kind and state.
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { Badge, ErrorBox, Loading } from '../components/ui';
import { RESOURCE_SUMMARY, type ResourceSummary } from '../resource-fields';
import { navigate, resourceHref } from '../router';
import type { Session } from '../session';

const EXACT = `query($id: ID, $slug: String) { resource(id: $id, slug: $slug) { id } }`;
const LIST = `query($q: String) { resources(filter: { nameContains: $q }, first: 100) { totalCount nodes { ${RESOURCE_SUMMARY} } } }`;

/** The id of the one resource whose id or slug is exactly `q`, if any. */
async function exactMatch(q: string): Promise<string | null> {
  for (const vars of [{ id: q }, { slug: q }]) {
    if ('slug' in vars && !q.includes(':')) continue;
    try {
      const d = await gql<{ resource: { id: string } | null }>(EXACT, vars);
      if (d.resource) return d.resource.id;
    } catch {
      // an ambiguous slug: the list below shows the candidates
    }
  }
  return null;
}

export default function SearchPage(props: { session: Session; params: Record<string, string> }) {
  const q = (props.params.q ?? '').trim();
  const [rows, setRows] = useState<{ total: number; nodes: ResourceSummary[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setRows(null);
    setError(null);
    (async () => {
      if (q) {
        const id = await exactMatch(q);
        if (id && live) return navigate(`/resource/${encodeURIComponent(id)}`, true);
      }
      // A slug's name part also matches by name (vm:web01 → web01).
      const name = q.includes(':') ? q.slice(q.indexOf(':') + 1) : q;
      const d = await gql<{ resources: { totalCount: number; nodes: ResourceSummary[] } }>(LIST, { q: name || null });
      if (live) setRows({ total: d.resources.totalCount, nodes: d.resources.nodes });
    })().catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [q]);
  return (
    <section>
      <h1>Search{q && <>: “{q}”</>}</h1>
      {error && <ErrorBox message={error} />}
      {!error && !rows && <Loading what="resources" />}
      {rows && rows.nodes.length === 0 && <p data-testid="search-empty">No resource’s name, slug or id matches.</p>}
      {rows && rows.nodes.length > 0 && (
        <>
          <p>
            {rows.total} resource{rows.total === 1 ? '' : 's'}
            {rows.total > rows.nodes.length && ` (the first ${rows.nodes.length} shown)`}
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Resource</th>
                <th scope="col">Kind</th>
                <th scope="col">State</th>
                <th scope="col">Lifecycle</th>
                <th scope="col">Provider</th>
              </tr>
            </thead>
            <tbody>
              {rows.nodes.map((r) => (
                <tr key={r.id} data-testid="search-row">
                  <td>
                    <a href={resourceHref(r.id)}>{r.slug}</a>
                  </td>
                  <td>{r.kind}</td>
                  <td>
                    <Badge value={r.state ?? r.rawState ?? 'unknown'} kind="state" />
                  </td>
                  <td>{r.lifecycle}</td>
                  <td>{r.provider}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
