// The confirmation for approving or denying a request or a plan: operator_confirmed asks for the
// target's name typed out; a denial asks for the reason the agent will read.
import type { ApprovalRequest } from '../approvals';
import { ConfirmDialog, type ConfirmValues } from './ui';

export interface Deciding {
  target: ApprovalRequest | { planId: string; steps: ApprovalRequest[] };
  how: 'approve' | 'deny';
}

export function DecisionDialog(props: {
  deciding: Deciding;
  onConfirm: (v: ConfirmValues) => Promise<void>;
  onCancel: () => void;
}) {
  const { target, how } = props.deciding;
  const single = 'steps' in target ? null : target;
  const steps = 'steps' in target ? target.steps : [];
  const what = single ? `${single.action} ${single.targetName}` : `the plan's ${steps.length} pending steps`;
  const confirmName = how === 'approve' && single?.approval === 'operator_confirmed' ? single.targetName : undefined;
  return (
    <ConfirmDialog
      title={how === 'approve' ? `Approve ${what}?` : `Deny ${what}?`}
      confirmLabel={how === 'approve' ? 'Approve' : 'Deny'}
      kind={how === 'approve' ? 'primary' : 'danger'}
      requireText={confirmName}
      requireLabel={confirmName ? `This needs the target's name: type ${confirmName}` : undefined}
      reasonLabel={how === 'deny' ? 'Reason (the agent reads it)' : undefined}
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
    >
      {single ? (
        <p>
          Risk <strong>{single.riskClass.replace(/_/g, ' ')}</strong>, asked by {single.requester}: “{single.reason}”.
        </p>
      ) : (
        <ul>
          {steps.map((s) => (
            <li key={s.id}>
              {s.action} {s.targetName} ({s.riskClass.replace(/_/g, ' ')}
              {s.riskClass === 'destructive' || s.approval === 'operator_confirmed' ? ': approved only on its own' : ''}
              )
            </li>
          ))}
        </ul>
      )}
      {how === 'approve' && (
        <p class="hint">The grant token is shown once after approving: hand it to the agent that asked.</p>
      )}
    </ConfirmDialog>
  );
}
