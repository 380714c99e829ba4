import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { approvalsById, createApprovals, decideApprovals, listApprovals } from '../graph/approvals.js';
import type { KeysetPage } from '../graph/db/statements.js';
import {
  AitiaError,
  APPROVAL_STATUSES,
  type ApprovalRecord,
  type ApprovalStatus,
  badInput,
  notFound,
} from '../model/index.js';
import { boundInputsOf, fieldDigestsOf, inputsDigestOf, redactedInputsOf } from '../policy/index.js';
import { inputsDigestKey } from './inputs-digest.js';
import { type AuditOk, audited } from './audit.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { decide, policyOf } from './gate.js';
import type { ClassifyActionArgs } from './gate-input.js';
import { assertCan, type Principal } from './permissions.js';
import { type Person, personOf, samePerson } from './tokens.js';

/*
 * Approvals: an agent asks for an escalated action (or a plan of steps), an operator other than the
 * requester approves or denies, and an approval yields a grant token bound to the exact inputs and
 * policy (redeemed once, see grants.ts). Each operation validates, checks its permission and is
 * audited here, whatever surface calls it.
 */

/** The input of requestApproval: one action (the classifyAction fields) or an ordered plan of steps. */
export interface RequestApprovalArgs extends Omit<Partial<ClassifyActionArgs>, 'target' | 'action'> {
  target?: string | null;
  action?: string | null;
  reason: string;
  steps?: readonly ClassifyActionArgs[] | null;
}

/** At most this many steps in a plan; a reason of at most this many characters. */
export const APPROVAL_LIMITS = { steps: 50, reasonChars: 2000 } as const;

function checkReason(reason: string | null | undefined, field: string): string {
  const r = (reason ?? '').trim();
  if (r === '') throw badInput(field, 'must say why (not empty)');
  if (r.length > APPROVAL_LIMITS.reasonChars)
    throw badInput(field, `at most ${APPROVAL_LIMITS.reasonChars} characters`);
  return r;
}

/** The steps asked for, each with the field prefix its errors name. */
function stepsOf(input: RequestApprovalArgs): { args: ClassifyActionArgs; prefix: string }[] {
  const single = input.target != null || input.action != null;
  if (input.steps != null) {
    if (single) throw badInput('input.steps', 'give either one action (target, action, …) or steps, not both');
    if (input.steps.length === 0) throw badInput('input.steps', 'must hold at least one step');
    if (input.steps.length > APPROVAL_LIMITS.steps)
      throw badInput('input.steps', `at most ${APPROVAL_LIMITS.steps} steps`);
    return input.steps.map((args, i) => ({ args, prefix: `input.steps.${i}` }));
  }
  if (input.target == null) throw badInput('input.target', 'required (or give steps)');
  if (input.action == null) throw badInput('input.action', 'required (or give steps)');
  return [{ args: { ...input, target: input.target, action: input.action }, prefix: 'input' }];
}

/** The ok line's detail of a request: each approval with its step, action, target and digests. */
function describeRequests(rows: readonly ApprovalRecord[]): string {
  return rows
    .map(
      (r) =>
        `${r.id}${r.step === null ? '' : ` (step ${r.step} of ${r.planId})`}: ${r.action} ${r.targetId}, ${r.riskClass}, approval ${r.approval}, inputs ${r.inputsDigest}, policy ${r.policyDigest}`,
    )
    .join('; ');
}

/**
 * Asks an operator for an action the gate escalates, or for a plan of steps. Each step is
 * classified now, with the kill switch; a step the gate never allows, or whose preflight blocks
 * it, refuses the whole request naming the step. A single action the gate allows on its own needs
 * no approval and is refused as such. Returns the pending approvals, in step order.
 */
export function requestApproval(
  deps: ServiceDeps,
  principal: Principal,
  input: RequestApprovalArgs,
): Promise<ApprovalRecord[]> {
  let targetIds: string[] = [];
  const run = async (ok: AuditOk): Promise<ApprovalRecord[]> => {
    assertCan(principal, 'approval:request');
    const reason = checkReason(input.reason, 'input.reason');
    const steps = stepsOf(input);
    const { policy } = policyOf(deps);
    const now = nowOf(deps);
    const expiresAt = DateTime.fromISO(now, { zone: 'utc' }).plus({ seconds: policy.approvals.request_ttl_seconds });
    const planId = input.steps != null ? `plan-${randomUUID()}` : null;
    // Recorded with the request: the approver is compared by person, even after this token is revoked.
    const requester = personOf(deps, principal);
    const rows: ApprovalRecord[] = [];
    for (const [i, { args, prefix }] of steps.entries()) {
      const { request, classification: c } = await decide(deps, args, prefix);
      targetIds = [...new Set([...targetIds, c.target.id])];
      if (c.autonomy === 'never')
        throw badInput(`${prefix}.action`, `never allowed, nobody can approve it: ${c.reasons.join('; ')}`);
      if (c.blocked) {
        const failed = c.preflight.filter((p) => !p.ok && p.blocking).map((p) => `${p.check}: ${p.message}`);
        throw badInput(`${prefix}.target`, `blocked by preflight (${failed.join('; ')}): fix the cause first`);
      }
      if (c.autonomy === 'auto' && planId === null) {
        throw badInput(`${prefix}.action`, 'the gate allows it on its own (auto): no approval is needed');
      }
      const bound = boundInputsOf(request, c.target.id);
      const digestKey = await inputsDigestKey(deps);
      rows.push({
        id: `apr-${randomUUID()}`,
        planId,
        step: planId === null ? null : i,
        status: 'pending',
        requester: principal.name,
        requesterRole: principal.role,
        requesterOwner: requester.person,
        requesterCreatedBy: requester.createdBy,
        reason,
        requestedAt: now,
        expiresAt: expiresAt.toISO()!,
        action: bound.action,
        targetId: c.target.id,
        targetName: c.target.name,
        inputs: redactedInputsOf(bound),
        inputsDigest: inputsDigestOf(bound, digestKey),
        fieldDigests: JSON.stringify(fieldDigestsOf(bound, digestKey)),
        policyDigest: c.policyDigest,
        riskClass: c.riskClass,
        autonomy: c.autonomy,
        approval: c.approval,
        reasons: c.reasons,
        decidedBy: null,
        decidedAt: null,
        decisionReason: null,
        grantExpiresAt: null,
        usedAt: null,
        usedBy: null,
        authorizationId: null,
      });
    }
    // The requests and their audit line commit together.
    await createApprovals(deps.driver, rows, () => ok.entry(describeRequests(rows)));
    return rows;
  };
  return audited(deps, principal, 'requestApproval', () => targetIds, run, describeRequests, { args: input });
}

/** A grant as approve returns it: the token shown this once, only its SHA-256 stored. */
export interface IssuedGrant {
  approvalId: string;
  token: string;
  expiresAt: string;
}

/** SHA-256 (hex) of a grant token: what the graph holds and a redeem looks up. */
export function grantHashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Why a step is left for its own approval when its plan is approved, or null when the plan approval covers it. */
function needsOwnApproval(a: ApprovalRecord): string | null {
  if (a.riskClass === 'destructive') return 'a destructive step is never approved by a plan approval';
  if (a.approval === 'operator_confirmed') return 'it needs approve with confirmTarget';
  return null;
}

/** Loads what `id` names (an approval or a plan) and refuses anything the principal may not decide. */
async function decidable(deps: ServiceDeps, principal: Principal, id: string): Promise<ApprovalRecord[]> {
  assertCan(principal, 'approval:decide');
  if (typeof id !== 'string' || id.trim() === '') throw badInput('id', 'must not be empty');
  const found = await approvalsById(deps.driver, id);
  if (found.length === 0) throw notFound('id', `approval or plan ${id}`);
  const own = found.map((a) => ownRequest(a, principal, personOf(deps, principal))).find((why) => why !== null);
  if (own) throw new AitiaError('FORBIDDEN', `${own}: no one approves or denies their own request`, { field: 'id' });
  return found;
}

/**
 * Why the approval is the decider's own request, or null. Compared by person, not token: the same
 * token, another token of the requester's person, a token the requester created, and (for a request
 * an operator token asked) the person who created the requester's token are all the requester.
 */
function ownRequest(a: ApprovalRecord, principal: Principal, decider: Person): string | null {
  const requester = a.requesterOwner ?? a.requester;
  if (a.requester === principal.name) return `${principal.name} requested ${a.id}`;
  if (samePerson(decider.person, requester))
    return `${a.id} was requested by ${a.requester}, a token of ${requester}, and ${principal.name} is ${requester}'s too`;
  if (samePerson(decider.createdBy, requester) || samePerson(decider.createdBy, a.requester))
    return `${principal.name} was created by ${decider.createdBy}, who requested ${a.id}`;
  if (a.requesterRole === 'operator' && samePerson(a.requesterCreatedBy, decider.person))
    return `${a.id} was requested with the operator token ${a.requester}, which ${decider.person} created`;
  return null;
}

function assertPending(a: ApprovalRecord, now: string): void {
  if (a.status !== 'pending') {
    throw new AitiaError(
      'CONFLICT',
      `approval ${a.id} is ${a.status}${a.decidedBy ? ` (by ${a.decidedBy} at ${a.decidedAt})` : ''}: only a pending one can be decided`,
      { field: 'id' },
    );
  }
  if (Date.parse(a.expiresAt) <= Date.parse(now)) {
    throw new AitiaError('CONFLICT', `approval ${a.id} expired at ${a.expiresAt} undecided: ask again`, {
      field: 'id',
    });
  }
}

/** What approve and deny answer: the approvals as decided (a plan's every step), and the grants issued. */
export interface DecisionResult {
  approvals: ApprovalRecord[];
  grants: IssuedGrant[];
}

/** The ok line's detail of an approval: what was approved, until when, what is still pending. */
function describeApproved(r: DecisionResult): string {
  const pending = r.approvals.filter((a) => a.status === 'pending').map((a) => a.id);
  return (
    `approved ${r.grants.map((g) => g.approvalId).join(', ')}; grants expire ${r.grants[0]?.expiresAt ?? 'n/a'}` +
    (pending.length > 0 ? `; still pending: ${pending.join(', ')}` : '')
  );
}

/**
 * Approves a pending request (operators, never the requester). An `operator_confirmed` one needs
 * `confirmTarget` equal to its target's name. A plan id approves each pending step the plan may
 * cover; destructive and confirm-needing steps stay pending for their own approve. Each approved
 * step gets its grant token, returned this once.
 */
export function approve(
  deps: ServiceDeps,
  principal: Principal,
  args: { id: string; confirmTarget?: string | null },
): Promise<DecisionResult> {
  let targetIds: string[] = [];
  const run = async (ok: AuditOk): Promise<DecisionResult> => {
    const found = await decidable(deps, principal, args.id);
    targetIds = [...new Set(found.map((a) => a.targetId))];
    const now = nowOf(deps);
    const isPlan = found.some((a) => a.planId === args.id);
    const chosen = isPlan ? found.filter((a) => a.status === 'pending' && needsOwnApproval(a) === null) : found;
    if (chosen.length === 0) {
      const left = found
        .filter((a) => a.status === 'pending')
        .map((a) => `${a.id}: ${needsOwnApproval(a) ?? 'pending'}`);
      throw new AitiaError(
        'CONFLICT',
        `plan ${args.id} has no step a plan approval covers${left.length ? ` (${left.join('; ')})` : ''}`,
        { field: 'id' },
      );
    }
    for (const a of chosen) {
      assertPending(a, now);
      if (a.approval === 'operator_confirmed' && args.confirmTarget !== a.targetName) {
        throw badInput(
          'confirmTarget',
          `${a.riskClass} on ${a.targetId} needs confirmTarget equal to the target's name "${a.targetName}"`,
        );
      }
    }
    const ttl = policyOf(deps).policy.approvals.grant_ttl_seconds;
    const grantExpiresAt = DateTime.fromISO(now, { zone: 'utc' }).plus({ seconds: ttl }).toISO()!;
    const grants: IssuedGrant[] = chosen.map((a) => ({
      approvalId: a.id,
      token: `aitia-grant-${randomBytes(32).toString('base64url')}`,
      expiresAt: grantExpiresAt,
    }));
    // Every chosen step and the audit line commit together, or nothing is approved.
    const approvals = await decideApprovals(
      deps.driver,
      args.id,
      grants.map((g) => ({
        id: g.approvalId,
        status: 'approved',
        decidedBy: principal.name,
        decidedAt: now,
        decisionReason: null,
        grantHash: grantHashOf(g.token),
        grantExpiresAt,
      })),
      (decided) => ok.entry(describeApproved({ approvals: decided, grants })),
    );
    return { approvals, grants };
  };
  return audited(deps, principal, 'approve', () => targetIds, run, describeApproved, { args });
}

/** The ok line's detail of a denial: the approvals denied and why. */
function describeDenied(r: DecisionResult, reason: string): string {
  return `denied ${r.approvals
    .filter((a) => a.status === 'denied')
    .map((a) => a.id)
    .join(', ')}: ${reason}`;
}

/** Denies a pending request, or every pending step of a plan (operators, never the requester), with the reason. */
export function deny(
  deps: ServiceDeps,
  principal: Principal,
  args: { id: string; reason: string },
): Promise<DecisionResult> {
  let targetIds: string[] = [];
  const run = async (ok: AuditOk): Promise<DecisionResult> => {
    const found = await decidable(deps, principal, args.id);
    targetIds = [...new Set(found.map((a) => a.targetId))];
    const reason = checkReason(args.reason, 'reason');
    const now = nowOf(deps);
    const chosen = found.length > 1 ? found.filter((a) => a.status === 'pending') : found;
    if (chosen.length === 0) throw new AitiaError('CONFLICT', `plan ${args.id} has no pending step`, { field: 'id' });
    for (const a of chosen) assertPending(a, now);
    // Every chosen step and the audit line commit together, or nothing is denied.
    const approvals = await decideApprovals(
      deps.driver,
      args.id,
      chosen.map((a) => ({
        id: a.id,
        status: 'denied',
        decidedBy: principal.name,
        decidedAt: now,
        decisionReason: reason,
        grantHash: null,
        grantExpiresAt: null,
      })),
      (decided) => ok.entry(describeDenied({ approvals: decided, grants: [] }, args.reason)),
    );
    return { approvals, grants: [] };
  };
  return audited(
    deps,
    principal,
    'deny',
    () => targetIds,
    run,
    (r) => describeDenied(r, args.reason),
    { args },
  );
}

/**
 * Approvals newest first (agents and operators), optionally of one status, and open (pending and
 * unexpired: what an operator can still decide, the inbox) or not (decided, used, or expired
 * undecided: the history).
 */
export async function approvals(
  deps: ServiceDeps,
  principal: Principal,
  args: { status?: ApprovalStatus | null; open?: boolean | null; first?: number | null; after?: string | null },
): Promise<KeysetPage<ApprovalRecord>> {
  assertCan(principal, 'approval:read');
  const status = args.status ?? null;
  if (status !== null && !(APPROVAL_STATUSES as readonly string[]).includes(status)) {
    throw badInput('status', `must be one of ${APPROVAL_STATUSES.join(', ')}`);
  }
  const open = args.open == null ? null : { open: args.open, now: nowOf(deps) };
  return listApprovals(deps.driver, status, { first: args.first ?? 50, after: args.after ?? null }, open);
}

/** Whether a request is pending past its expiry (by the service's clock): nobody can decide it any more. */
export function approvalExpired(deps: ServiceDeps, a: Pick<ApprovalRecord, 'status' | 'expiresAt'>): boolean {
  return a.status === 'pending' && Date.parse(a.expiresAt) <= Date.parse(nowOf(deps));
}
