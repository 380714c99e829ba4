// #/timeline: transitions across the estate, newest first and live (transitionObserved, resumed from
// the newest sequence the page loaded; a re-explained one replaces its row), filtered by hash
// params; open conditions beside it.
import { useEffect, useState } from 'preact/hooks';
import { gql, subscribe } from '../api';
import { ConditionsPanel } from '../components/conditions-panel';
import { browserZone } from '../components/hash-params';
import { filterFromParams, TimelineFilters, type TimelineFilter } from '../components/timeline-filters';
import { TransitionTable, type TransitionRowData } from '../components/transition-list';
import { Button, ErrorBox, Loading } from '../components/ui';
import { TIMELINE_PAGE, TIMELINE_QUERY, TRANSITION_FIELDS } from '../queries';
import type { Session } from '../session';
import './pages.css';

// Live transitions are held to the same test as the list's arguments (matches below).
const LIVE = `subscription($resource: String, $since: Int, $zone: String) {
  transitionObserved(resourceId: $resource, since: $since) { ${TRANSITION_FIELDS} }
}`;

interface ListAnswer {
  transitions: { edges: { node: TransitionRowData }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  newest: { edges: { node: { sequence: number | null } }[] };
}

/** Whether a live transition belongs in the filtered view (the same test the API's arguments make). */
function matches(t: TransitionRowData, f: TimelineFilter): boolean {
  if (f.confidence && t.attribution.confidence !== f.confidence) return false;
  if (f.kind && t.kind !== f.kind) return false;
  if (f.actor && t.attribution.actor !== f.actor) return false;
  if (f.actorKind && t.attribution.actorKind !== f.actorKind) return false;
  if (f.since && t.observedAt < f.since) return false;
  if (f.until && t.observedAt > f.until) return false;
  return true;
}

function variables(f: TimelineFilter, zone: string, after: string | null) {
  return {
    resource: f.resource ?? null,
    kind: f.kind ?? null,
    since: f.since ?? null,
    until: f.until ?? null,
    confidence: f.confidence ?? null,
    actor: f.actor ?? null,
    actorKind: f.actorKind ?? null,
    first: TIMELINE_PAGE,
    after,
    zone,
  };
}

export default function TimelinePage(props: { session: Session; params: Record<string, string> }) {
  const filter = filterFromParams(props.params);
  const key = JSON.stringify(filter);
  const zone = browserZone();
  const [rows, setRows] = useState<TransitionRowData[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState<'connecting' | 'live' | 'interrupted'>('connecting');
  const [loadingMore, setLoadingMore] = useState(false);

  useEffect(() => {
    setRows(null);
    setError(null);
    setFresh(new Set());
    let stop: (() => void) | undefined;
    let cancelled = false;
    gql<ListAnswer>(TIMELINE_QUERY, variables(filter, zone, null)).then(
      (d) => {
        if (cancelled) return;
        setRows(d.transitions.edges.map((e) => e.node));
        setNext(d.transitions.pageInfo.hasNextPage ? d.transitions.pageInfo.endCursor : null);
        const seqs = [...d.newest.edges, ...d.transitions.edges].map((e) => e.node.sequence ?? 0);
        const since = seqs.length ? Math.max(...seqs) : null;
        stop = subscribe<{ transitionObserved: TransitionRowData }>(
          LIVE,
          { resource: filter.resource ?? null, since: since || null, zone },
          (d) => {
            setLive('live');
            const t = d.transitionObserved;
            if (!matches(t, filter)) return;
            // One seen already was explained again (a log gap read later): its new answer replaces it in place.
            setRows((r) => (r?.some((x) => x.id === t.id) ? r.map((x) => (x.id === t.id ? t : x)) : [t, ...(r ?? [])]));
            setFresh((s) => new Set(s).add(t.id));
          },
          () => setLive('interrupted'),
        );
        setLive('live');
      },
      (e: Error) => !cancelled && setError(e.message),
    );
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [key, zone]);

  const more = () => {
    if (!next) return;
    setLoadingMore(true);
    gql<ListAnswer>(TIMELINE_QUERY, variables(filter, zone, next)).then(
      (d) => {
        const page = d.transitions.edges.map((e) => e.node);
        setRows((r) => [...(r ?? []), ...page.filter((t) => !r?.some((x) => x.id === t.id))]);
        setNext(d.transitions.pageInfo.hasNextPage ? d.transitions.pageInfo.endCursor : null);
        setLoadingMore(false);
      },
      (e: Error) => {
        setError(e.message);
        setLoadingMore(false);
      },
    );
  };

  return (
    <div class="timeline-page">
      <section class="timeline-main" aria-labelledby="timeline-title">
        <h1 id="timeline-title">
          Timeline{' '}
          <span class={`live ${live === 'live' ? 'on' : 'off'}`} role="status" data-testid="live-status">
            {live === 'live' ? 'live' : live === 'connecting' ? 'connecting…' : 'reconnecting…'}
          </span>
        </h1>
        <TimelineFilters filter={filter} />
        {error && <ErrorBox message={error} />}
        {!rows && !error && <Loading what="transitions" />}
        {rows && rows.length === 0 && (
          <p class="muted" data-testid="timeline-empty">
            No transitions match.
          </p>
        )}
        {rows && rows.length > 0 && (
          <div data-testid="timeline" data-loaded="true">
            <TransitionTable rows={rows} showResource fresh={fresh} />
          </div>
        )}
        {next && (
          <Button onClick={more} disabled={loadingMore} testid="timeline-more">
            {loadingMore ? 'Loading…' : 'Older transitions'}
          </Button>
        )}
      </section>
      <aside class="timeline-side">
        <ConditionsPanel resource={filter.resource} zone={zone} />
      </aside>
    </div>
  );
}
