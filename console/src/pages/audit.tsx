// The audit log for operators (C3 owns this page and extends it with filters).
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { ErrorBox, Loading } from '../components/ui';
import type { Session } from '../session';
import { Time } from '../time';

interface Entry {
  id: string;
  at: string;
  principal: string;
  operation: string;
  outcome: string;
  detail: string | null;
}

export default function AuditPage(_props: { session: Session; params: Record<string, string> }) {
  const [rows, setRows] = useState<Entry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    gql<{ auditLog: { nodes: Entry[] } }>(
      '{ auditLog(first: 50) { nodes { id at principal operation outcome detail } } }',
    ).then(
      (d) => setRows(d.auditLog.nodes),
      (e: Error) => setError(e.message),
    );
  }, []);
  if (error) return <ErrorBox message={error} />;
  if (!rows) return <Loading what="audit log" />;
  return (
    <section>
      <h1>Audit log</h1>
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Principal</th>
            <th scope="col">Operation</th>
            <th scope="col">Outcome</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.id} data-testid="audit-row">
              <td>
                <Time iso={e.at} />
              </td>
              <td>{e.principal}</td>
              <td>{e.operation}</td>
              <td>{e.outcome}</td>
              <td>{e.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
