// Transitions as the timeline and the resource page list them: one row each with its confidence,
// actor (person / token / system), the task or event it was attributed to, the narrative, the
// resource and the time (local, UTC on hover).
import { resourceHref } from '../router';
import { Time } from '../time';

export type ActorKind = 'human' | 'api_token' | 'ha_manager' | 'system';

export interface TransitionRowData {
  id: string;
  sequence: number | null;
  resourceId: string;
  kind: string;
  from: string;
  to: string;
  rawFrom: string | null;
  rawTo: string | null;
  observedAt: string;
  resource: { id: string; name: string; slug: string } | null;
  attribution: {
    confidence: 'high' | 'medium' | 'low' | 'none';
    actor: string | null;
    actorKind: ActorKind | null;
    requestedBy: string | null;
    executor: string | null;
    reason: string;
    systemContext: { label: string; eventId: string | null } | null;
    events: { id: string; role: 'cause' | 'request'; rawType: string; summary: string }[];
  };
  decision: { decision: string; reasons: string[]; wouldHaveSuppressed: string | null };
  narrative: string;
}

/** Who stands behind an actor kind, in an operator's words. */
export const ACTOR_KIND_LABELS: Record<ActorKind, string> = {
  human: 'person',
  api_token: 'token',
  ha_manager: 'system (HA manager)',
  system: 'system',
};

export const CONFIDENCE_LABELS: Record<string, string> = {
  high: 'high',
  medium: 'medium',
  low: 'low',
  none: 'cause unknown',
};

/** The shell's confidence badge colours; `none` reads "cause unknown". */
export function ConfidenceBadge(props: { confidence: string; reason?: string }) {
  const colour = props.confidence === 'none' ? 'unknown' : props.confidence;
  return (
    <span
      class={`badge badge-confidence badge-${colour}`}
      title={props.reason ?? `confidence ${CONFIDENCE_LABELS[props.confidence] ?? props.confidence}`}
      data-testid="badge-confidence"
      data-confidence={props.confidence}
    >
      {CONFIDENCE_LABELS[props.confidence] ?? props.confidence}
    </span>
  );
}

function Actor(props: { a: TransitionRowData['attribution'] }) {
  const { a } = props;
  if (!a.actor && !a.actorKind) return <span class="muted">nobody found</span>;
  const kind = a.actorKind ? ACTOR_KIND_LABELS[a.actorKind] : 'unknown';
  return (
    <span class="actor">
      <span class="actor-name">{a.actor ?? a.systemContext?.label ?? 'system'}</span>{' '}
      <span class={`actor-kind actor-${a.actorKind ?? 'unknown'}`}>{kind}</span>
      {a.executor && a.executor !== a.actor && <span class="muted"> via {a.executor}</span>}
    </span>
  );
}

/** The cause (a Proxmox UPID or a vCenter event id) and the requests behind it. */
function Events(props: { a: TransitionRowData['attribution'] }) {
  const events = props.a.events;
  if (events.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="event-list">
      {events.map((e) => (
        <li key={e.id} title={e.summary}>
          <span class="event-role">{e.role}</span> {e.rawType}
          <code class="event-id">{e.id}</code>
        </li>
      ))}
    </ul>
  );
}

/**
 * One <tbody> per transition: its facts on one row and its narrative across the table under them,
 * so the sentence is read whole at any width.
 */
export function TransitionTable(props: { rows: TransitionRowData[]; showResource: boolean; fresh?: Set<string> }) {
  const columns = props.showResource ? 6 : 5;
  return (
    <div class="table-wrap">
      <table class="transitions" data-testid="transitions">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Confidence</th>
            {props.showResource && <th scope="col">Resource</th>}
            <th scope="col">Change</th>
            <th scope="col">Actor</th>
            <th scope="col">Task or event</th>
          </tr>
        </thead>
        {props.rows.map((t) => (
          <tbody
            key={t.id}
            data-testid="transition-row"
            data-resource={t.resourceId}
            data-confidence={t.attribution.confidence}
            class={props.fresh?.has(t.id) ? 'transition row-fresh' : 'transition'}
          >
            <tr>
              <td>
                <Time iso={t.observedAt} />
              </td>
              <td>
                <ConfidenceBadge confidence={t.attribution.confidence} reason={t.attribution.reason} />
              </td>
              {props.showResource && (
                <td>
                  <a href={resourceHref(t.resourceId)}>{t.resource?.slug ?? t.resourceId}</a>
                </td>
              )}
              <td>
                <span class="state">{t.from}</span> → <span class="state">{t.to}</span>
                {t.rawTo && t.rawTo !== t.to && <span class="muted"> ({t.rawTo})</span>}
              </td>
              <td>
                <Actor a={t.attribution} />
              </td>
              <td class="events">
                <Events a={t.attribution} />
              </td>
            </tr>
            <tr>
              <td class="narrative" colSpan={columns}>
                {t.narrative}
              </td>
            </tr>
          </tbody>
        ))}
      </table>
    </div>
  );
}
