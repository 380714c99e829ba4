import { reportActionTaken } from '../services/actions.js';
import { approvals, approve, deny, requestApproval } from '../services/approvals.js';
import { classifyAction } from '../services/gate.js';
import { grantRedeems } from '../services/grant-history.js';
import { redeemGrant, setAutonomy } from '../services/grants.js';
import { replayDecision } from '../services/replay.js';
import * as A from './approval-outputs.js';
import * as I from './inputs.js';
import { nextCursorOf } from './paging.js';
import * as R from './records.js';
import { defineTool, READ, RECORD } from './tool.js';

/*
 * The tools of the gate: ask it before acting, ask an operator to approve, decide, redeem the
 * grant once and read the redeems since, report an automatic action, replay a decision, and the kill switch.
 */

export const classifyActionTool = defineTool({
  name: 'classify_action',
  title: 'Ask the gate before acting',
  description:
    'Whether an action on a target may run on its own (auto), needs an operator (escalate) or never runs: its risk class, approval, the rule it matched and every reason. Nothing is queued; the question and the answer are recorded in the audit log.',
  permission: 'policy:classify',
  graphql: 'Query.classifyAction',
  input: I.ClassifyActionIn,
  output: R.ClassificationOut,
  // It changes nothing it is asked about: the only write is its own audit line.
  annotations: READ,
  run: (deps, principal, input) => classifyAction(deps, principal, input),
});

export const requestApprovalTool = defineTool({
  name: 'request_approval',
  title: 'Ask an operator to approve an action',
  description:
    'For an action classify_action escalates (or a plan of steps): records a pending approval bound to the exact action, target, parameters and policy. An operator other than you approves it; you then redeem its grant once with redeem_grant. Refused for an action that is auto (needs none), never allowed, or blocked by preflight. Audited.',
  permission: 'approval:request',
  graphql: 'Mutation.requestApproval',
  input: I.RequestApprovalIn,
  output: A.RequestApprovalOut,
  annotations: RECORD,
  run: async (deps, principal, input) => ({ approvals: await requestApproval(deps, principal, input) }),
});

export const approvalsTool = defineTool({
  name: 'approvals',
  title: 'Approval requests',
  description:
    'Approval requests newest first, optionally of one status (pending, approved, denied, used), and open (pending, unexpired: what an operator can still decide) or not.',
  permission: 'approval:read',
  graphql: 'Query.approvals',
  input: I.ApprovalsIn,
  output: A.ApprovalsOut,
  annotations: READ,
  narrow: 'first',
  run: async (deps, principal, input) => {
    const page = await approvals(deps, principal, input);
    return { approvals: page.nodes, nextCursor: nextCursorOf(page) };
  },
});

export const approveTool = defineTool({
  name: 'approve',
  title: 'Approve a request',
  description:
    "Operators only, never your own request. Approves a pending approval (operator_confirmed needs confirmTarget, the target's name) or a plan's non-destructive steps, and returns each grant token once. Audited.",
  permission: 'approval:decide',
  graphql: 'Mutation.approve',
  input: I.ApproveIn,
  output: A.DecisionOut,
  annotations: RECORD,
  run: (deps, principal, input) => approve(deps, principal, input),
});

export const denyTool = defineTool({
  name: 'deny',
  title: 'Deny a request',
  description:
    'Operators only, never your own request. Denies a pending approval (or a plan’s pending steps) with the reason. Audited.',
  permission: 'approval:decide',
  graphql: 'Mutation.deny',
  input: I.DenyIn,
  output: A.DecisionOut,
  annotations: RECORD,
  run: (deps, principal, input) => deny(deps, principal, input),
});

export const redeemGrantTool = defineTool({
  name: 'redeem_grant',
  title: 'Redeem a grant before acting',
  description:
    'Presents a grant token with exactly the approved action: authorized once, atomically. A replayed, expired, changed (naming the field), policy-changed or halted grant is refused with its code and nothing is used up. Audited.',
  permission: 'grant:redeem',
  graphql: 'Mutation.redeemGrant',
  input: I.RedeemGrantIn,
  output: A.RedeemGrantOut,
  annotations: RECORD,
  run: (deps, principal, input) => redeemGrant(deps, principal, input),
});

export const grantRedeemsTool = defineTool({
  name: 'grant_redeems',
  title: 'History of grant redeems',
  description:
    'Every redeem of a known grant newest first, redeemed or refused (with the failed check), who presented it, the ActionAuthorized entry it recorded and its approval; optionally only one outcome or one approval’s grant. An unknown token is not here (audit_log has it).',
  permission: 'approval:read',
  graphql: 'Query.grantRedeems',
  input: I.GrantRedeemsIn,
  output: A.GrantRedeemsOut,
  annotations: READ,
  narrow: 'first',
  run: async (deps, principal, input) => {
    const page = await grantRedeems(deps, principal, input);
    return { redeems: page.nodes, nextCursor: nextCursorOf(page) };
  },
});

export const setAutonomyTool = defineTool({
  name: 'set_autonomy',
  title: 'Kill switch',
  description:
    'Operators only. halt: every classify_action escalates ("halted by X at T: reason") and every redeem is refused; normal: the policy decides again. Audited.',
  permission: 'autonomy:set',
  graphql: 'Mutation.setAutonomy',
  input: I.SetAutonomyIn,
  output: A.AutonomyOut,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: (deps, principal, input) => setAutonomy(deps, principal, input),
});

export const reportActionTakenTool = defineTool({
  name: 'report_action_taken',
  title: 'Report an automatic action taken',
  description:
    'After acting on an `auto` answer of classify_action, report it: recorded (cooldowns and the breaker count it) only when the gate still answers auto; otherwise refused — it needed an approval. Audited.',
  permission: 'action:report',
  graphql: 'Mutation.reportActionTaken',
  input: I.ReportActionTakenIn,
  output: A.ActionAuthorizedOut,
  annotations: RECORD,
  run: (deps, principal, { providerTaskId, ...input }) => reportActionTaken(deps, principal, input, { providerTaskId }),
});

export const replayDecisionTool = defineTool({
  name: 'replay_decision',
  title: 'Replay a gate decision',
  description:
    'Re-runs a recorded classify_action (its decisionId) on the stored inputs and facts under the policy in force: identical or not, and what differs.',
  permission: 'policy:classify',
  graphql: 'Query.replayDecision',
  input: I.ReplayDecisionIn,
  output: A.ReplayDecisionOut,
  annotations: READ,
  run: (deps, principal, input) => replayDecision(deps, principal, input),
});
