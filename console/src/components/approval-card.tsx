// One pending approval request: who asked, the target, action, risk, the gate's reasons, the
// redacted inputs, how long until it expires, and (for operators who did not ask) Approve and Deny.
import { type ApprovalRequest, isOwnRequest, prettyInputs } from '../approvals';
import { resourceHref } from '../router';
import type { Session } from '../session';
import { relative, Time } from '../time';
import { Badge, Button } from './ui';

export type Decide = (a: ApprovalRequest, how: 'approve' | 'deny') => void;

export function ApprovalCard(props: { a: ApprovalRequest; session: Session; onDecide: Decide; fresh?: boolean }) {
  const { a, session } = props;
  const own = isOwnRequest(a, session.principal);
  const expired = a.expired || new Date(a.expiresAt).getTime() <= Date.now();
  return (
    <article class={`card approval${props.fresh ? ' fresh' : ''}`} data-testid="approval" data-approval-id={a.id}>
      <header class="card-head">
        <h3>
          <span class="action" data-testid="approval-action">
            {a.action}
          </span>{' '}
          <a href={resourceHref(a.targetId)} data-testid="approval-target">
            {a.targetName}
          </a>
          {a.step !== null && <span class="step"> · step {a.step + 1}</span>}
        </h3>
        <Badge value={a.riskClass} kind="risk" title="Risk class" />
        <Badge value={a.approval} kind="approval" title="Approval needed" />
      </header>
      <dl class="facts">
        <dt>Asked by</dt>
        <dd data-testid="approval-requester">
          {a.requester}
          {a.requesterOwner && a.requesterOwner !== a.requester && <> (for {a.requesterOwner})</>}
          {', '}
          <Time iso={a.requestedAt} />
        </dd>
        <dt>Why</dt>
        <dd data-testid="approval-reason">{a.reason}</dd>
        <dt>Expires</dt>
        <dd class={expired ? 'expired' : undefined}>
          {expired ? 'expired ' : ''}
          {relative(a.expiresAt)} (<Time iso={a.expiresAt} />)
        </dd>
        <dt>Gate’s reasons</dt>
        <dd>
          <ul class="reasons" data-testid="approval-reasons">
            {a.reasons.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </dd>
      </dl>
      <details>
        <summary>Inputs (secrets redacted)</summary>
        <pre data-testid="approval-inputs">{prettyInputs(a.inputs)}</pre>
      </details>
      {session.canAct && !own && !expired && (
        <div class="card-actions">
          <Button kind="primary" onClick={() => props.onDecide(a, 'approve')} testid="approve">
            Approve{a.planId ? ' this step' : ''}
          </Button>
          <Button kind="danger" onClick={() => props.onDecide(a, 'deny')} testid="deny">
            Deny
          </Button>
        </div>
      )}
      {session.canAct && own && (
        <p class="hint" data-testid="own-request">
          You asked for this: another operator decides it.
        </p>
      )}
    </article>
  );
}
