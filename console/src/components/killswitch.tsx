// The kill switch on every page: a banner while autonomy is halt (who, when, why) or the breaker is
// open, and for operators halt/resume with a reason, confirmed in a dialog.
import { useState } from 'preact/hooks';
import type { Autonomy } from '../about';
import { AUTONOMY_FIELDS } from '../queries';
import { gql } from '../api';
import type { Session } from '../session';
import { Time } from '../time';
import { Button, ConfirmDialog } from './ui';

export function KillSwitch(props: { session: Session; autonomy: Autonomy | null; onChanged: () => void }) {
  const [asking, setAsking] = useState<'halt' | 'normal' | null>(null);
  const a = props.autonomy;
  const halted = a?.mode === 'halt';
  const set = async (mode: 'halt' | 'normal', reason: string) => {
    await gql(
      `mutation($mode: AutonomyMode!, $reason: String!) { setAutonomy(mode: $mode, reason: $reason) { ${AUTONOMY_FIELDS} } }`,
      {
        mode,
        reason,
      },
    );
    setAsking(null);
    props.onChanged();
  };
  return (
    <>
      {halted && a && (
        <div class="banner banner-halt" role="alert" data-testid="halt-banner">
          <span>
            <strong>Autonomy halted</strong> — every action escalates and no grant is redeemed. Halted by{' '}
            <span data-testid="halt-by">{a.setBy ?? 'unknown'}</span>
            {a.setAt && (
              <>
                {' '}
                at <Time iso={a.setAt} />
              </>
            )}
            {a.reason && <>: “{a.reason}”</>}
          </span>
          {props.session.canAct && (
            <Button kind="primary" onClick={() => setAsking('normal')} testid="resume">
              Resume
            </Button>
          )}
        </div>
      )}
      {!halted && a?.breakerOpenedAt && (
        <div class="banner banner-breaker" role="alert" data-testid="breaker-banner">
          <span>
            <strong>Breaker open</strong> since <Time iso={a.breakerOpenedAt} />
            {a.breakerReason && <>: {a.breakerReason}</>}. Resuming closes it.
          </span>
          {props.session.canAct && (
            <Button kind="primary" onClick={() => setAsking('normal')} testid="resume">
              Resume
            </Button>
          )}
        </div>
      )}
      {!halted && a && props.session.canAct && (
        <Button kind="danger" onClick={() => setAsking('halt')} testid="halt" label="Halt autonomy (kill switch)">
          Halt
        </Button>
      )}
      {asking && (
        <ConfirmDialog
          title={asking === 'halt' ? 'Halt autonomy' : 'Resume autonomy'}
          confirmLabel={asking === 'halt' ? 'Halt' : 'Resume'}
          kind={asking === 'halt' ? 'danger' : 'primary'}
          reasonLabel={asking === 'halt' ? 'Why halt? (shown to agents and operators)' : 'Why resume?'}
          onConfirm={({ reason }) => set(asking, reason)}
          onCancel={() => setAsking(null)}
        >
          <p>
            {asking === 'halt'
              ? 'Every classifyAction will escalate and every grant redeem is refused until an operator resumes.'
              : 'Decisions go back to the policy (and the breaker starts a fresh window).'}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
