// #/resource/<id or kind:name>: what the resource is and says (kind, state, raw state, lifecycle,
// attributes with their owners), its health and checks, its transitions, its neighbourhood graph
// and the incident-context paragraph. A new transition of it (transitionObserved) reloads the page's data.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { gql, GqlError, subscribe } from '../api';
import { type AttributeOwnerData, AttributesTable } from '../components/attribute-owners';
import { ChecksTable, type CheckData } from '../components/checks-table';
import { ConditionsPanel } from '../components/conditions-panel';
import { NeighbourhoodGraph } from '../components/graph';
import { browserZone } from '../components/hash-params';
import { IncidentParagraph } from '../components/incident-paragraph';
import { TransitionTable, type TransitionRowData } from '../components/transition-list';
import { Badge, ErrorBox, Loading } from '../components/ui';
import { RESOURCE_HISTORY_PAGE, RESOURCE_QUERY } from '../queries';
import { href, navigate } from '../router';
import type { Session } from '../session';
import { Time } from '../time';
import './pages.css';

const LIVE = `subscription($ref: String, $since: Int) { transitionObserved(resourceId: $ref, since: $since) { id sequence } }`;

interface ResourceData {
  id: string;
  kind: string;
  provider: string;
  name: string;
  slug: string;
  lifecycle: string;
  rawState: string | null;
  state?: string;
  attributes: Record<string, unknown>;
  attributeOwners: AttributeOwnerData[];
  health: string;
  lastCheckAt: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  missingSince: string | null;
  declaration: { by: string; evidence: string | null; at: string | null } | null;
}

interface Details {
  checks: CheckData[];
  transitions: { edges: { node: TransitionRowData }[]; pageInfo: { hasNextPage: boolean } };
  newest: { edges: { node: { observedAt: string } }[] };
}

/** `vm:web01` is a slug; anything else (proxmox:homelab/qemu/101, manual:…) an id. */
const SLUG = /^(cluster|host|vm|lxc|storage|network|service):/;

function Facts(props: { r: ResourceData }) {
  const { r } = props;
  const row = (label: string, value: ComponentChildren) => (
    <>
      <dt>{label}</dt>
      <dd>{value ?? <span class="muted">—</span>}</dd>
    </>
  );
  return (
    <dl class="facts" data-testid="resource-facts">
      {row('Kind', r.kind)}
      {row('Provider', r.provider)}
      {row('State', r.state && <Badge value={r.state} kind="state" />)}
      {row('Raw state', r.rawState && <code>{r.rawState}</code>)}
      {row('Lifecycle', <Badge value={r.lifecycle} kind="lifecycle" />)}
      {row('Health', <Badge value={r.health} kind="health" />)}
      {row('Last check', r.lastCheckAt && <Time iso={r.lastCheckAt} />)}
      {row('First seen', r.firstSeen && <Time iso={r.firstSeen} />)}
      {row('Last seen', r.lastSeen && <Time iso={r.lastSeen} />)}
      {r.missingSince && row('Missing since', <Time iso={r.missingSince} />)}
      {r.declaration &&
        row(
          'Declared',
          <>
            by {r.declaration.by}
            {r.declaration.at && (
              <>
                {' '}
                on <Time iso={r.declaration.at} />
              </>
            )}
            {r.declaration.evidence && <div class="muted">evidence: {r.declaration.evidence}</div>}
          </>,
        )}
      {row('Id', <code>{r.id}</code>)}
    </dl>
  );
}

export default function ResourcePage(props: { session: Session; params: Record<string, string> }) {
  const ref = props.params.id ?? '';
  const zone = browserZone();
  const [resource, setResource] = useState<ResourceData | null | undefined>(undefined);
  const [details, setDetails] = useState<Details | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  // Leaving for another resource: the old one's data goes at once.
  useEffect(() => {
    setResource(undefined);
    setDetails(null);
  }, [ref]);

  useEffect(() => {
    let cancelled = false;
    setError(null);
    const vars = {
      ...(SLUG.test(ref) ? { slug: ref } : { id: ref }),
      ref,
      refId: ref,
      zone,
      first: RESOURCE_HISTORY_PAGE,
    };
    gql<{ resource: ResourceData | null } & Details>(RESOURCE_QUERY, vars)
      .then((d) => {
        if (cancelled) return;
        setResource(d.resource);
        setDetails(d.resource ? { checks: d.checks, transitions: d.transitions, newest: d.newest } : null);
      })
      .catch((e: Error) => {
        if (cancelled) return;
        // checks and transitions refuse a ref that names nothing, so no answer means no resource.
        if (e instanceof GqlError && e.code === 'NOT_FOUND') setResource(null);
        else setError(e.message);
      });
    return () => {
      cancelled = true;
    };
  }, [ref, zone, version]);

  // A new transition of this resource: read it all again (state, history, conditions).
  const id = resource?.id;
  useEffect(() => {
    if (!id) return;
    return subscribe<{ transitionObserved: { id: string } }>(LIVE, { ref: id }, () => setVersion((v) => v + 1));
  }, [id]);

  if (error) return <ErrorBox message={error} />;
  if (resource === undefined) return <Loading what="the resource" />;
  if (resource === null)
    return (
      <p data-testid="resource-missing">
        No resource <code>{ref}</code>. <a href={href(`/search?q=${encodeURIComponent(ref)}`)}>Search for it</a>.
      </p>
    );
  const transitions = details?.transitions.edges.map((e) => e.node) ?? null;
  return (
    <article class="resource-page" data-testid="resource" data-resource-id={resource.id}>
      <h1>
        {resource.name} <span class="muted">{resource.slug}</span>
      </h1>
      <div class="resource-grid">
        <section aria-labelledby="facts-title">
          <h2 id="facts-title">Resource</h2>
          <Facts r={resource} />
        </section>
        <section aria-labelledby="attributes-title">
          <h2 id="attributes-title">Attributes</h2>
          <AttributesTable attributes={resource.attributes} owners={resource.attributeOwners} />
        </section>
      </div>
      <NeighbourhoodGraph
        root={{
          id: resource.id,
          name: resource.name,
          slug: resource.slug,
          kind: resource.kind,
          health: resource.health,
        }}
        onWalk={(to) => navigate(`/resource/${encodeURIComponent(to)}`)}
      />
      {details && transitions ? (
        // Its own latest change, else the estate's: a quiet resource's context is its neighbours'.
        <IncidentParagraph
          key={resource.id}
          id={resource.id}
          zone={zone}
          latestChangeAt={transitions[0]?.observedAt ?? details.newest.edges[0]?.node.observedAt ?? null}
        />
      ) : (
        <Loading what="the incident context" />
      )}
      <section aria-labelledby="checks-title">
        <h2 id="checks-title">Health and checks</h2>
        {details ? <ChecksTable checks={details.checks} /> : <Loading what="checks" />}
      </section>
      <ConditionsPanel resource={resource.id} zone={zone} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">Transitions</h2>
        {!transitions && <Loading what="transitions" />}
        {transitions && transitions.length === 0 && <p class="muted">No transitions recorded.</p>}
        {transitions && transitions.length > 0 && (
          <>
            <TransitionTable rows={transitions} showResource={false} />
            {details?.transitions.pageInfo.hasNextPage && (
              <p>
                <a href={href(`/timeline?resource=${encodeURIComponent(resource.id)}`)}>All its transitions</a>
              </p>
            )}
          </>
        )}
      </section>
    </article>
  );
}
