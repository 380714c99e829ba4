// Grant tokens just returned by approve. The service stores only their hash and shows each once;
// the operator hands it to the agent that asked, which redeems it once with redeemGrant.
import { useState } from 'preact/hooks';
import type { ApprovalRequest, Grant } from '../approvals';
import { relative, Time } from '../time';
import { Button } from './ui';

function CopyButton(props: { text: string }) {
  const [done, setDone] = useState(false);
  return (
    <Button
      onClick={() =>
        void navigator.clipboard.writeText(props.text).then(
          () => setDone(true),
          () => setDone(false),
        )
      }
      testid="copy-grant"
      label="Copy grant token"
    >
      {done ? 'Copied' : 'Copy'}
    </Button>
  );
}

export function GrantPanel(props: {
  grants: { grant: Grant; a: ApprovalRequest | undefined }[];
  onDismiss: (token: string) => void;
}) {
  if (props.grants.length === 0) return null;
  return (
    <section class="grants" aria-label="Grants issued" data-testid="grants">
      <h2>Approved: hand the grant to the agent</h2>
      <p class="hint">
        Shown only now (aitia keeps only its hash). The agent redeems it once with <code>redeemGrant</code>, for exactly
        the approved action, before it expires.
      </p>
      {props.grants.map(({ grant, a }) => (
        <div class="grant" key={grant.token} data-testid="grant" data-approval-id={grant.approvalId}>
          <div>
            {a ? `${a.action} ${a.targetName} for ${a.requester}` : grant.approvalId} — expires{' '}
            {relative(grant.expiresAt)} (
            <Time iso={grant.expiresAt} />)
          </div>
          <code class="token" data-testid="grant-token">
            {grant.token}
          </code>
          <CopyButton text={grant.token} />
          <Button onClick={() => props.onDismiss(grant.token)} label="Dismiss this grant">
            Dismiss
          </Button>
        </div>
      ))}
    </section>
  );
}
