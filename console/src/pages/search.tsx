// Search resources by name, slug or id (searchResources, best match first). Text that is exactly
// one resource's id or slug opens its page; anything else lists the matches with kind and state.
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { Badge, ErrorBox, Loading } from '../components/ui';
import { ALL_RESOURCES_QUERY, SEARCH_QUERY } from '../queries';
import type { ResourceSummary } from '../resource-fields';
import { navigate, resourceHref } from '../router';
import type { Session } from '../session';

/** The one resource whose id or slug is exactly the text, if exactly one is. */
function exact(q: string, found: ResourceSummary[]): ResourceSummary | undefined {
  const lower = q.toLowerCase();
  const hits = found.filter((r) => r.id === q || r.slug.toLowerCase() === lower);
  return hits.length === 1 ? hits[0] : undefined;
}

export default function SearchPage(props: { session: Session; params: Record<string, string> }) {
  const q = (props.params.q ?? '').trim();
  const [rows, setRows] = useState<ResourceSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setRows(null);
    setError(null);
    (async () => {
      const found = q
        ? (await gql<{ searchResources: ResourceSummary[] }>(SEARCH_QUERY, { q })).searchResources
        : (await gql<{ resources: { nodes: ResourceSummary[] } }>(ALL_RESOURCES_QUERY)).resources.nodes;
      const one = q ? exact(q, found) : undefined;
      if (!live) return;
      if (one) navigate(`/resource/${encodeURIComponent(one.id)}`, true);
      else setRows(found);
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
      {rows && rows.length === 0 && <p data-testid="search-empty">No resource’s name, slug or id matches.</p>}
      {rows && rows.length > 0 && (
        <>
          <p>
            {rows.length} resource{rows.length === 1 ? '' : 's'}
            {q ? ', best match first' : ''}
            {rows.length === 100 ? ' (the first 100)' : ''}
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
              {rows.map((r) => (
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
