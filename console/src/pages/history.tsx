// The approvals' history: decided requests (approved, denied, used, expired undecided) with who
// decided, when and why; and every redeem of a grant, used or refused with the failed check.
import { useEffect, useState } from 'preact/hooks';
import { type ApprovalRequest, type GrantRedeem, listApprovals, listRedeems, watchApprovals } from '../approvals';
import { Badge, ErrorBox, Loading } from '../components/ui';
import { resourceHref } from '../router';
import type { Session } from '../session';
import { Time } from '../time';
import { HISTORY_PAGE } from '../queries';

function Decided(props: { rows: ApprovalRequest[] }) {
  if (props.rows.length === 0) return <p class="empty">No request has been decided yet.</p>;
  return (
    <table data-testid="history-table">
      <thead>
        <tr>
          <th scope="col">Asked</th>
          <th scope="col">Action</th>
          <th scope="col">Risk</th>
          <th scope="col">Asked by</th>
          <th scope="col">Outcome</th>
          <th scope="col">Decided by</th>
          <th scope="col">Grant</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((a) => {
          const status = a.status === 'pending' && a.expired ? 'expired' : a.status;
          return (
            <tr key={a.id} data-testid="history-row" data-approval-id={a.id} data-status={status}>
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
                <Badge value={status} kind="status" />
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
                    not redeemed; expires <Time iso={a.grantExpiresAt} />
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
  );
}

function Redeems(props: { rows: GrantRedeem[] }) {
  if (props.rows.length === 0) return <p class="empty">No grant has been presented yet.</p>;
  return (
    <table data-testid="redeems-table">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Executor</th>
          <th scope="col">Action</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr key={r.id} data-testid="redeem-row" data-approval-id={r.approvalId} data-outcome={r.outcome}>
            <td>
              <Time iso={r.at} />
            </td>
            <td>{r.principal}</td>
            <td>
              {r.approval ? (
                <>
                  {r.approval.action} <a href={resourceHref(r.approval.targetId)}>{r.approval.targetName}</a>
                </>
              ) : (
                r.approvalId
              )}
            </td>
            <td>
              <Badge value={r.outcome} kind="outcome" />{' '}
              {r.refusal
                ? `${r.refusal.code}${r.refusal.field ? ` (${r.refusal.field})` : ''}: ${r.refusal.message}`
                : 'authorized'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function HistoryPage(_props: { session: Session; params: Record<string, string> }) {
  const [decided, setDecided] = useState<ApprovalRequest[] | null>(null);
  const [redeems, setRedeems] = useState<GrantRedeem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const load = () =>
      Promise.all([listApprovals(false, HISTORY_PAGE), listRedeems(HISTORY_PAGE)]).then(
        ([a, r]) => {
          setDecided(a);
          setRedeems(r);
        },
        (e: Error) => setError(e.message),
      );
    void load();
    return watchApprovals(() => void load());
  }, []);
  if (error) return <ErrorBox message={error} />;
  if (!decided || !redeems) return <Loading what="history" />;
  return (
    <section>
      <h1>Approval history</h1>
      <h2>Decided requests</h2>
      <Decided rows={decided} />
      <h2>Grants presented</h2>
      <Redeems rows={redeems} />
    </section>
  );
}
