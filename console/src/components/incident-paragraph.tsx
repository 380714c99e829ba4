// The incident-context paragraph for a ticket (incidentContext): over a window the operator picks —
// by default the 6 hours up to the latest change (the resource's, else the estate's) when that is
// older than the last 6 hours — with a button that copies it to the clipboard.
import { useEffect, useState } from 'preact/hooks';
import { gql, GqlError } from '../api';
import { INCIDENT_QUERY } from '../queries';
import { Button, ErrorBox, Loading } from './ui';

const HOUR = 3_600_000;
const WINDOWS: Record<string, { label: string; hours: number }> = {
  latest: { label: 'the 6 hours up to the latest change', hours: 6 },
  '6h': { label: 'the last 6 hours', hours: 6 },
  '24h': { label: 'the last 24 hours', hours: 24 },
  '7d': { label: 'the last 7 days', hours: 24 * 7 },
};

function range(choice: string, latestChangeAt: string | null): { since: string; until: string } {
  const hours = WINDOWS[choice]?.hours ?? 6;
  const until =
    choice === 'latest' && latestChangeAt ? new Date(new Date(latestChangeAt).getTime() + HOUR / 2) : new Date();
  return { since: new Date(until.getTime() - hours * HOUR).toISOString(), until: until.toISOString() };
}

export function IncidentParagraph(props: { id: string; zone: string; latestChangeAt: string | null }) {
  const stale = props.latestChangeAt !== null && Date.now() - new Date(props.latestChangeAt).getTime() > 6 * HOUR;
  const [choice, setChoice] = useState(stale ? 'latest' : '6h');
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string>('');

  useEffect(() => {
    let cancelled = false;
    setText(null);
    setError(null);
    setCopied('');
    const ask = (zone: string) =>
      gql<{ incidentContext: { narrative: string } }>(INCIDENT_QUERY, {
        id: props.id,
        zone,
        ...range(choice, props.latestChangeAt),
      });
    ask(props.zone)
      // A zone the service does not know: the paragraph in UTC (it names its zone).
      .catch((e: unknown) => {
        if (e instanceof GqlError && e.code === 'BAD_USER_INPUT' && /zone/.test(e.message)) return ask('UTC');
        throw e;
      })
      .then(
        (d) => !cancelled && setText(d.incidentContext.narrative),
        (e: Error) => !cancelled && setError(e.message),
      );
    return () => {
      cancelled = true;
    };
  }, [props.id, props.zone, choice, props.latestChangeAt]);

  const copy = async () => {
    if (!text) return;
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the paragraph and copy it.');
    }
  };

  return (
    <section class="incident" aria-labelledby="incident-title">
      <h2 id="incident-title">Incident context</h2>
      <div class="incident-controls">
        <label class="field">
          <span>Window</span>
          <select data-testid="incident-window" value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
            {Object.entries(WINDOWS)
              .filter(([k]) => k !== 'latest' || props.latestChangeAt)
              .map(([k, w]) => (
                <option key={k} value={k}>
                  {w.label}
                </option>
              ))}
          </select>
        </label>
        <Button onClick={() => void copy()} disabled={!text} testid="incident-copy" label="Copy the incident paragraph">
          Copy paragraph
        </Button>
        <span role="status" aria-live="polite" class="muted" data-testid="incident-copied">
          {copied}
        </span>
      </div>
      {error && <ErrorBox message={error} />}
      {!text && !error && <Loading what="the incident context" />}
      {text && (
        <p class="incident-text" data-testid="incident-text">
          {text}
        </p>
      )}
    </section>
  );
}
