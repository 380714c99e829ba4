// The approvals inbox: pending requests, live through the approvalChanged subscription. Approving
// shows the grant token once, for the operator to hand to the agent that asked (only its hash is
// stored, and the agent redeems it with redeemGrant).
import { useCallback, useEffect, useState } from 'preact/hooks';
import {
  type ApprovalRequest,
  approve,
  deny,
  type Grant,
  isOwnRequest,
  listApprovals,
  watchApprovals,
} from '../approvals';
import { ApprovalCard } from '../components/approval-card';
import { type Deciding, DecisionDialog } from '../components/decision-dialog';
import { GrantPanel } from '../components/grant-panel';
import { ErrorBox, Loading } from '../components/ui';
import type { Session } from '../session';

interface Group {
  planId: string | null;
  items: ApprovalRequest[];
}

/** Plans' steps together, in step order; groups newest first (the list's order). */
function groups(list: ApprovalRequest[]): Group[] {
  const out: Group[] = [];
  const byPlan = new Map<string, Group>();
  for (const a of list) {
    if (!a.planId) out.push({ planId: null, items: [a] });
    else {
      let g = byPlan.get(a.planId);
      if (!g) {
        g = { planId: a.planId, items: [] };
        byPlan.set(a.planId, g);
        out.push(g);
      }
      g.items.push(a);
    }
  }
  for (const g of out) g.items.sort((x, y) => (x.step ?? 0) - (y.step ?? 0));
  return out;
}

export default function InboxPage(props: { session: Session; params: Record<string, string> }) {
  const [pending, setPending] = useState<ApprovalRequest[] | null>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  const [deciding, setDeciding] = useState<Deciding | null>(null);
  const [grants, setGrants] = useState<{ grant: Grant; a: ApprovalRequest | undefined }[]>([]);
  const [, tick] = useState(0);

  const reload = useCallback(() => {
    listApprovals(true).then(
      (list) => {
        setPending(list);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  }, []);

  useEffect(() => {
    reload();
    const stop = watchApprovals(
      (c) => {
        if (c.change === 'requested') setFresh((s) => new Set(s).add(c.approval.id));
        setPending((list) => {
          const rest = (list ?? []).filter((a) => a.id !== c.approval.id);
          return c.approval.status === 'pending' && !c.approval.expired ? [c.approval, ...rest] : rest;
        });
      },
      () => {
        setLive(false);
        reload();
      },
      () => setLive(true),
    );
    const timer = setInterval(() => tick((n) => n + 1), 15_000); // "expires in" stays current
    return () => {
      stop();
      clearInterval(timer);
    };
  }, [reload]);

  const decide = async (reasonOrTyped: { typed: string; reason: string }) => {
    if (!deciding) return;
    const t = deciding.target;
    const id = 'id' in t ? t.id : t.planId;
    if (deciding.how === 'deny') await deny(id, reasonOrTyped.reason);
    else {
      const confirm = 'id' in t && t.approval === 'operator_confirmed' ? reasonOrTyped.typed : undefined;
      const result = await approve(id, confirm);
      const byId = new Map(result.approvals.map((a) => [a.id, a]));
      setGrants((g) => [...result.grants.map((grant) => ({ grant, a: byId.get(grant.approvalId) })), ...g]);
    }
    setDeciding(null);
    reload();
  };

  const canDecide = (a: ApprovalRequest) => props.session.canAct && !isOwnRequest(a, props.session.principal);
  return (
    <section>
      <h1>
        Approvals inbox{' '}
        <span
          class={`live ${live ? 'on' : 'off'}`}
          data-testid="live"
          title={live ? 'Live' : 'Connecting to the live feed'}
        >
          {live ? '● live' : '○ connecting'}
        </span>
      </h1>
      {!props.session.canAct && <p class="hint">Read-only: only operators approve or deny.</p>}
      <GrantPanel grants={grants} onDismiss={(token) => setGrants((g) => g.filter((x) => x.grant.token !== token))} />
      {error && <ErrorBox message={error} />}
      {!pending && !error && <Loading what="approvals" />}
      {pending && pending.length === 0 && (
        <p data-testid="inbox-empty" class="empty">
          Nothing is waiting for an operator.
        </p>
      )}
      <div class="approvals" data-testid="inbox-list" data-count={pending?.length ?? 0}>
        {pending &&
          groups(pending).map((g) =>
            g.planId === null ? (
              <ApprovalCard
                key={g.items[0]!.id}
                a={g.items[0]!}
                session={props.session}
                fresh={fresh.has(g.items[0]!.id)}
                onDecide={(a, how) => setDeciding({ target: a, how })}
              />
            ) : (
              <section class="plan" key={g.planId} data-testid="plan" aria-label={`Plan ${g.planId}`}>
                <header class="plan-head">
                  <h2>
                    Plan of {g.items.length} pending step{g.items.length === 1 ? '' : 's'}
                  </h2>
                  {g.items.some(canDecide) && (
                    <div class="card-actions">
                      <button
                        type="button"
                        class="btn btn-primary"
                        data-testid="approve-plan"
                        onClick={() => setDeciding({ target: { planId: g.planId!, steps: g.items }, how: 'approve' })}
                      >
                        Approve plan
                      </button>
                      <button
                        type="button"
                        class="btn btn-danger"
                        data-testid="deny-plan"
                        onClick={() => setDeciding({ target: { planId: g.planId!, steps: g.items }, how: 'deny' })}
                      >
                        Deny plan
                      </button>
                    </div>
                  )}
                </header>
                <p class="hint">
                  Approving the plan grants its steps that need a plain operator approval; a destructive or
                  name-confirmed step stays pending until approved on its own.
                </p>
                {g.items.map((a) => (
                  <ApprovalCard
                    key={a.id}
                    a={a}
                    session={props.session}
                    fresh={fresh.has(a.id)}
                    onDecide={(x, how) => setDeciding({ target: x, how })}
                  />
                ))}
              </section>
            ),
          )}
      </div>
      {deciding && <DecisionDialog deciding={deciding} onConfirm={decide} onCancel={() => setDeciding(null)} />}
    </section>
  );
}
