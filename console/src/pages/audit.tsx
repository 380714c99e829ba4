// #/audit (operators): the audit log, newest first, filtered by principal, operation and outcome
// (auditLog's own filter, from hash params so a filtered log is a link) and paged by cursor.
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { AUDIT_PAGE, AUDIT_QUERY } from '../queries';
import { setHashParams } from '../components/hash-params';
import { Badge, Button, ErrorBox, Loading } from '../components/ui';
import { resourceHref } from '../router';
import type { Session } from '../session';
import { Time } from '../time';
import './pages.css';

interface Entry {
  id: string;
  at: string;
  principal: string;
  role: string;
  operation: string;
  targetIds: string[];
  outcome: 'ok' | 'refused' | 'error';
  detail: string | null;
  via: string | null;
  arguments: string | null;
}

interface Answer {
  auditLog: { nodes: Entry[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

function Filters(props: { params: Record<string, string> }) {
  const p = props.params;
  const [principal, setPrincipal] = useState(p.principal ?? '');
  const [operation, setOperation] = useState(p.operation ?? '');
  useEffect(() => {
    setPrincipal(p.principal ?? '');
    setOperation(p.operation ?? '');
  }, [p.principal, p.operation]);
  const apply = (outcome = p.outcome) =>
    setHashParams('audit', { principal: principal.trim(), operation: operation.trim(), outcome });
  return (
    <form
      class="filters"
      aria-label="Filter the audit log"
      data-testid="audit-filters"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <label class="field">
        <span>Principal</span>
        <input data-testid="audit-principal" value={principal} onInput={(e) => setPrincipal(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Operation</span>
        <input
          data-testid="audit-operation"
          value={operation}
          placeholder="classifyAction"
          onInput={(e) => setOperation(e.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>Outcome</span>
        <select data-testid="audit-outcome" value={p.outcome ?? ''} onChange={(e) => apply(e.currentTarget.value)}>
          <option value="">any</option>
          <option value="ok">ok</option>
          <option value="refused">refused</option>
          <option value="error">error</option>
        </select>
      </label>
      <div class="filter-actions">
        <Button type="submit" testid="audit-apply">
          Apply
        </Button>
        <Button onClick={() => setHashParams('audit', {})} testid="audit-clear">
          Clear
        </Button>
      </div>
    </form>
  );
}

function AuditTable(props: { entries: Entry[]; filter: string }) {
  return (
    <div class="table-wrap">
      <table class="audit" data-testid="audit-table" data-filter={props.filter}>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Principal</th>
            <th scope="col">Operation</th>
            <th scope="col">Targets</th>
            <th scope="col">Outcome</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((e) => (
            <tr key={e.id} data-testid="audit-row" data-outcome={e.outcome} data-operation={e.operation}>
              <td>
                <Time iso={e.at} />
              </td>
              <td>
                {e.principal} <Badge value={e.role} kind="role" />
              </td>
              <td>
                <code>{e.operation}</code>
                {e.via && <span class="muted"> via {e.via}</span>}
              </td>
              <td>
                {e.targetIds.map((t) => (
                  <div key={t}>
                    <a href={resourceHref(t)}>{t}</a>
                  </div>
                ))}
              </td>
              <td>
                <Badge value={e.outcome} kind="outcome" />
              </td>
              <td>
                {e.detail && <div>{e.detail}</div>}
                {e.arguments && (
                  <details>
                    <summary>Arguments</summary>
                    <pre class="arguments">{e.arguments}</pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function AuditPage(props: { session: Session; params: Record<string, string> }) {
  const { principal, operation, outcome } = props.params;
  // Cursors of the pages before this one, so "Newer" goes back without re-reading from the start.
  // They belong to one filter: another filter starts at its first page.
  const filterKey = `${principal ?? ''}|${operation ?? ''}|${outcome ?? ''}`;
  const [paging, setPaging] = useState<{ key: string; cursors: (string | null)[] }>({
    key: filterKey,
    cursors: [null],
  });
  const cursors = paging.key === filterKey ? paging.cursors : [null];
  const setCursors = (f: (c: (string | null)[]) => (string | null)[]) =>
    setPaging({ key: filterKey, cursors: f(cursors) });
  // The page and the filter and cursor it answers: a new filter's rows replace it, never mix with it.
  const [loaded, setLoaded] = useState<{ key: string; log: Answer['auditLog'] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const after = cursors[cursors.length - 1] ?? null;
  useEffect(() => {
    if (!props.session.canAct) return;
    let cancelled = false;
    setError(null);
    const filter = {
      ...(principal ? { principal } : {}),
      ...(operation ? { operation } : {}),
      ...(outcome ? { outcome } : {}),
    };
    gql<Answer>(AUDIT_QUERY, { filter, first: AUDIT_PAGE, after }).then(
      (d) => !cancelled && setLoaded({ key: `${filterKey}|${after ?? ''}`, log: d.auditLog }),
      (e: Error) => !cancelled && setError(e.message),
    );
    return () => {
      cancelled = true;
    };
  }, [filterKey, after, props.session.canAct]);

  const answer = loaded?.key === `${filterKey}|${after ?? ''}` ? loaded.log : null;

  if (!props.session.canAct)
    return (
      <section class="audit-page">
        <h1>Audit log</h1>
        <p class="note" role="note" data-testid="operators-only">
          The audit log is for operators only: you are signed in as {props.session.principal} ({props.session.role}).
        </p>
      </section>
    );

  return (
    <section class="audit-page" aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <Filters params={props.params} />
      {error && <ErrorBox message={error} />}
      {!answer && !error && <Loading what="the audit log" />}
      {answer && answer.nodes.length === 0 && (
        <p class="muted" data-testid="audit-empty">
          No entries match.
        </p>
      )}
      {answer && answer.nodes.length > 0 && <AuditTable entries={answer.nodes} filter={filterKey} />}
      <nav class="pager" aria-label="Audit log pages">
        <Button onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length < 2} testid="audit-newer">
          Newer
        </Button>
        <span class="muted">page {cursors.length}</span>
        <Button
          onClick={() => answer?.pageInfo.endCursor && setCursors((c) => [...c, answer.pageInfo.endCursor])}
          disabled={!answer?.pageInfo.hasNextPage}
          testid="audit-older"
        >
          Older
        </Button>
      </nav>
    </section>
  );
}
