// The timeline's filter form. Every filter is a hash param (#/timeline?confidence=none&kind=vm), so a
// filtered timeline is a link; the form only writes the hash and the page reads it back.
import { useEffect, useState } from 'preact/hooks';
import { Button } from './ui';
import { fromLocalInput, setHashParams, toLocalInput } from './hash-params';

export interface TimelineFilter {
  confidence?: string;
  kind?: string;
  resource?: string;
  actor?: string;
  actorKind?: string;
  since?: string;
  until?: string;
}

export const FILTER_KEYS = ['confidence', 'kind', 'resource', 'actor', 'actorKind', 'since', 'until'] as const;

export function filterFromParams(params: Record<string, string>): TimelineFilter {
  const f: TimelineFilter = {};
  for (const k of FILTER_KEYS) if (params[k]) f[k] = params[k];
  return f;
}

const KINDS = ['cluster', 'host', 'vm', 'lxc', 'storage', 'network', 'service'];

export function TimelineFilters(props: { filter: TimelineFilter }) {
  const f = props.filter;
  const [resource, setResource] = useState(f.resource ?? '');
  const [actor, setActor] = useState(f.actor ?? '');
  const [since, setSince] = useState(toLocalInput(f.since));
  const [until, setUntil] = useState(toLocalInput(f.until));
  // A link or the back button changes the hash: the text fields follow it.
  useEffect(() => {
    setResource(f.resource ?? '');
    setActor(f.actor ?? '');
    setSince(toLocalInput(f.since));
    setUntil(toLocalInput(f.until));
  }, [f.resource, f.actor, f.since, f.until]);

  const apply = (changes: Partial<TimelineFilter>) =>
    setHashParams('timeline', {
      ...f,
      resource: resource.trim(),
      actor: actor.trim(),
      since: fromLocalInput(since),
      until: fromLocalInput(until),
      ...changes,
    });

  return (
    <form
      class="filters"
      aria-label="Filter transitions"
      data-testid="timeline-filters"
      onSubmit={(e) => {
        e.preventDefault();
        apply({});
      }}
    >
      <label class="field">
        <span>Confidence</span>
        <select
          data-testid="filter-confidence"
          value={f.confidence ?? ''}
          onChange={(e) => apply({ confidence: e.currentTarget.value })}
        >
          <option value="">any</option>
          <option value="high">high</option>
          <option value="medium">medium</option>
          <option value="low">low</option>
          <option value="none">cause unknown only</option>
        </select>
      </label>
      <label class="field">
        <span>Kind</span>
        <select data-testid="filter-kind" value={f.kind ?? ''} onChange={(e) => apply({ kind: e.currentTarget.value })}>
          <option value="">any</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>Actor kind</span>
        <select
          data-testid="filter-actor-kind"
          value={f.actorKind ?? ''}
          onChange={(e) => apply({ actorKind: e.currentTarget.value })}
        >
          <option value="">any</option>
          <option value="human">person</option>
          <option value="api_token">token</option>
          <option value="ha_manager">system (HA manager)</option>
          <option value="system">system</option>
        </select>
      </label>
      <label class="field">
        <span>Resource (id or kind:name)</span>
        <input
          data-testid="filter-resource"
          value={resource}
          placeholder="vm:web01"
          onInput={(e) => setResource(e.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>Actor (exact)</span>
        <input
          data-testid="filter-actor"
          value={actor}
          placeholder="alice@pve"
          onInput={(e) => setActor(e.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>From</span>
        <input
          type="datetime-local"
          data-testid="filter-since"
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>Until</span>
        <input
          type="datetime-local"
          data-testid="filter-until"
          value={until}
          onInput={(e) => setUntil(e.currentTarget.value)}
        />
      </label>
      <div class="filter-actions">
        <Button type="submit" testid="filter-apply">
          Apply
        </Button>
        <Button onClick={() => setHashParams('timeline', {})} testid="filter-clear">
          Clear
        </Button>
      </div>
    </form>
  );
}
