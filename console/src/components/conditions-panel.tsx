// Open conditions beside the timeline: the paging ones (openConditions) and the suppressed ones
// (conditions(filter: {status: open, suppressed: true})), each with the change it followed, whether
// someone meant it (`expected`), `suppressed`, `wouldSuppress` and why. Live through conditionChanged.
import { useEffect, useState } from 'preact/hooks';
import { gql, subscribe } from '../api';
import { CONDITION_FIELDS, CONDITIONS_QUERY, SUPPRESSED_PAGE } from '../queries';
import { resourceHref } from '../router';
import { Time } from '../time';
import { ConfidenceBadge } from './transition-list';
import { Badge, ErrorBox, Loading } from './ui';

export interface ConditionData {
  id: string;
  type: string;
  status: 'open' | 'resolved';
  resourceId: string;
  openedAt: string;
  expected: boolean;
  suppressed: boolean;
  wouldSuppress: boolean;
  suppressionReasons: string[];
  resource: { id: string; slug: string } | null;
  cause: {
    transition: { id: string; from: string; to: string; observedAt: string };
    attribution: { confidence: string; actor: string | null; actorKind: string | null };
    resource: { id: string; slug: string } | null;
  } | null;
  narrative: string;
}

const CHANGED = `subscription($resource: String, $zone: String, $since: Int) {
  conditionChanged(resourceId: $resource, since: $since) { sequence change at condition { ${CONDITION_FIELDS} } }
}`;

function merge(list: ConditionData[], c: ConditionData): ConditionData[] {
  const rest = list.filter((x) => x.id !== c.id);
  if (c.status !== 'open') return rest;
  return [c, ...rest].sort((a, b) => b.openedAt.localeCompare(a.openedAt));
}

function Flag(props: { on: boolean; label: string }) {
  return (
    <span class={`flag ${props.on ? 'flag-on' : 'flag-off'}`}>{`${props.label}: ${props.on ? 'yes' : 'no'}`}</span>
  );
}

function ConditionItem(props: { c: ConditionData }) {
  const { c } = props;
  return (
    <li class="condition" data-testid="condition" data-type={c.type} data-resource={c.resourceId}>
      <div class="condition-head">
        <Badge value={c.type} kind="condition" />{' '}
        <a href={resourceHref(c.resourceId)}>{c.resource?.slug ?? c.resourceId}</a> since <Time iso={c.openedAt} />
      </div>
      <p class="condition-cause">
        {c.cause ? (
          <>
            After <a href={resourceHref(c.cause.resource?.id ?? c.resourceId)}>{c.cause.resource?.slug ?? 'it'}</a> went{' '}
            {c.cause.transition.from} → {c.cause.transition.to}{' '}
            <ConfidenceBadge confidence={c.cause.attribution.confidence} />
            {c.cause.attribution.actor && <> by {c.cause.attribution.actor}</>}
          </>
        ) : (
          <span class="muted">cause unknown</span>
        )}
      </p>
      <p class="flags">
        <Flag on={c.expected} label="expected" /> <Flag on={c.suppressed} label="suppressed" />{' '}
        <Flag on={c.wouldSuppress} label="would suppress" />
      </p>
      {c.suppressionReasons.length > 0 && (
        <ul class="reasons" aria-label="Why it was or was not suppressed">
          {c.suppressionReasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
      <details>
        <summary>Narrative</summary>
        <p>{c.narrative}</p>
      </details>
    </li>
  );
}

export function ConditionsPanel(props: { resource?: string; zone: string }) {
  const [list, setList] = useState<ConditionData[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setList(null);
    setError(null);
    let loaded = false;
    const early: ConditionData[] = [];
    const vars = { resource: props.resource || null, zone: props.zone };
    // Subscribe first so nothing opened while the list loads is lost; replayed on top of it.
    const stop = subscribe<{ conditionChanged: { condition: ConditionData } }>(
      CHANGED,
      vars,
      (d) => {
        setError(null);
        if (loaded) setList((l) => merge(l ?? [], d.conditionChanged.condition));
        else early.push(d.conditionChanged.condition);
      },
      (e) => setError(`Live updates interrupted: ${e.message}`),
    );
    gql<{ openConditions: ConditionData[]; conditions: { nodes: ConditionData[] } }>(CONDITIONS_QUERY, {
      ...vars,
      suppressed: SUPPRESSED_PAGE,
    }).then(
      (d) => {
        let next = [...d.openConditions, ...d.conditions.nodes].reduce(merge, [] as ConditionData[]);
        for (const c of early) next = merge(next, c);
        loaded = true;
        setList(next);
      },
      (e: Error) => setError(e.message),
    );
    return stop;
  }, [props.resource, props.zone]);

  return (
    <section class="conditions-panel" aria-labelledby="conditions-title" data-testid="conditions">
      <h2 id="conditions-title">Open conditions{list && <span class="count"> ({list.length})</span>}</h2>
      {error && <ErrorBox message={error} />}
      {!list && !error && <Loading what="conditions" />}
      {list && list.length === 0 && <p class="muted">No open conditions.</p>}
      {list && list.length > 0 && (
        <ul class="condition-list">
          {list.map((c) => (
            <ConditionItem key={c.id} c={c} />
          ))}
        </ul>
      )}
    </section>
  );
}
