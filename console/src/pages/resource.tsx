// One resource (C3 owns this page and extends it with the neighbourhood graph).
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { ErrorBox, Loading } from '../components/ui';
import { RESOURCE_SUMMARY, type ResourceSummary } from '../resource-fields';
import type { Session } from '../session';

export default function ResourcePage(props: { session: Session; params: Record<string, string> }) {
  const id = props.params.id ?? '';
  const [r, setR] = useState<ResourceSummary | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setR(undefined);
    gql<{ resource: ResourceSummary | null }>(`query($id: ID) { resource(id: $id) { ${RESOURCE_SUMMARY} } }`, {
      id,
    }).then(
      (d) => setR(d.resource),
      (e: Error) => setError(e.message),
    );
  }, [id]);
  if (error) return <ErrorBox message={error} />;
  if (r === undefined) return <Loading what={id} />;
  if (r === null) return <ErrorBox message={`No resource ${id}`} />;
  return (
    <section>
      <h1>{r.slug}</h1>
      <dl>
        <dt>Kind</dt>
        <dd>{r.kind}</dd>
        <dt>State</dt>
        <dd>{r.state ?? r.rawState ?? '—'}</dd>
        <dt>Lifecycle</dt>
        <dd>{r.lifecycle}</dd>
        <dt>Provider</dt>
        <dd>{r.provider}</dd>
      </dl>
    </section>
  );
}
