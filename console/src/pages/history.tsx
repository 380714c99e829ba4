// Decided requests: approved, denied, used (redeemed) and expired, newest first, with who decided,
// when, why, and who redeemed the grant.
import { useEffect, useState } from 'preact/hooks';
import { type ApprovalRequest, listApprovals, watchApprovals } from '../approvals';
import { Badge, ErrorBox, Loading } from '../components/ui';
import { resourceHref } from '../router';
import type { Session } from '../session';
import { Time } from '../time';

export default function HistoryPage(_props: { session: Session; params: Record<string, string> }) {
  const [rows, setRows] = useState<ApprovalRequest[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const load = () =>
      listApprovals(null, 200).then(
        (list) => setRows(list.filter((a) => a.status !== 'pending' || new Date(a.expiresAt).getTime() <= Date.now())),
        (e: Error) => setError(e.message),
      );
    void load();
    return watchApprovals(() => void load());
  }, []);
  if (error) return <ErrorBox message={error} />;
  if (!rows) return <Loading what="history" />;
  return (
    <section>
      <h1>Approval history</h1>
      {rows.length === 0 ? (
        <p class="empty">No request has been decided yet.</p>
      ) : (
        <table data-testid="history-table">
          <thead>
            <tr>
              <th scope="col">Asked</th>
              <th scope="col">Action</th>
              <th scope="col">Risk</th>
              <th scope="col">Asked by</th>
              <th scope="col">Outcome</th>
              <th scope="col">Decided</th>
              <th scope="col">Grant</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((a) => {
              const expired = a.status === 'pending';
              return (
                <tr
                  key={a.id}
                  data-testid="history-row"
                  data-approval-id={a.id}
                  data-status={expired ? 'expired' : a.status}
                >
                  <td>
                    <Time iso={a.requestedAt} />
                  </td>
                  <td>
                    {a.action} <a href={resourceHref(a.targetId)}>{a.targetName}</a>
                  </td>
                  <td>
                    <Badge value={a.riskClass} kind="risk" />
                  </td>
                  <td>{a.requester}</td>
                  <td>
                    <Badge value={expired ? 'expired' : a.status} kind="status" />
                    {a.decisionReason && <div class="reason">“{a.decisionReason}”</div>}
                  </td>
                  <td>
                    {a.decidedBy ?? '—'}
                    {a.decidedAt && (
                      <>
                        {' '}
                        <Time iso={a.decidedAt} />
                      </>
                    )}
                  </td>
                  <td>
                    {a.usedAt ? (
                      <>
                        redeemed by {a.usedBy ?? '?'} <Time iso={a.usedAt} />
                      </>
                    ) : a.grantExpiresAt ? (
                      <>
                        unredeemed, expires <Time iso={a.grantExpiresAt} />
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
