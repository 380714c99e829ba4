import { removeDemoApprovals } from '../graph/resources/demo-scope.js';
import { AitiaError, resourceId } from '../model/index.js';
import type { ApprovalRecord } from '../model/index.js';
import { requestApproval } from '../services/approvals.js';
import type { ServiceDeps } from '../services/deps.js';
import { DEMO_CLUSTER, DEMO_SERVICES } from './story.js';

/*
 * The demo's open loop: after the story, an agent asks to start build02 again (whose stop nobody
 * explains) through the real requestApproval, so the console's inbox has one request waiting for
 * an operator. The gate escalates it (the shipped policy's auto_act is off).
 */

/** What the demo's agent asks for, and why. */
export const DEMO_APPROVAL = {
  target: 'vm:build02',
  action: 'start',
  reason:
    'build02 stopped at 02:34 UTC and no task says why; the ci runner lives on it and jobs are queueing. Start it again (then look into the stop).',
} as const;

/**
 * Replaces any approval an earlier run left on the demo's resources with one pending request by
 * `agent` (the demo's agent token name). Returns it, or null (printed why) when the policy in force
 * lets the action run without an operator or refuses it.
 */
export async function requestDemoApproval(
  deps: ServiceDeps,
  agent: string,
  print: (line: string) => void,
): Promise<ApprovalRecord | null> {
  await removeDemoApprovals(
    deps.driver,
    `proxmox:${DEMO_CLUSTER}/`,
    DEMO_SERVICES.map((s) => resourceId('manual', 'service', s.name)),
  );
  try {
    const [asked] = await requestApproval(deps, { name: agent, role: 'agent' }, { ...DEMO_APPROVAL });
    print(
      `demo: ${agent} asked an operator to ${asked!.action} ${asked!.targetName} (${asked!.riskClass}); it waits in the console's inbox until ${asked!.expiresAt}`,
    );
    return asked!;
  } catch (err) {
    if (!(err instanceof AitiaError) || err.code !== 'BAD_USER_INPUT') throw err;
    print(`demo: no pending approval: the policy in force answers ${DEMO_APPROVAL.target} start with: ${err.message}`);
    return null;
  }
}
