import type { TargetFacts } from './target-facts.js';

/** The outcome of one check made before an action may be queued at all. */
export interface PreflightResult {
  check: string;
  ok: boolean;
  /** A blocking failure means the action cannot run as asked, whatever approval it gets. */
  blocking: boolean;
  message: string;
}

/** The exact message returned when a vm's guest agent cannot carry a `run`. */
export function guestAgentBlockedMessage(vmName: string): string {
  return `run on vm:${vmName} blocked: QEMU guest agent is not running (qm guest exec unavailable). Start the agent first or use a different target.`;
}

/**
 * Preflight checks for `action` on `target`. `run` on a vm goes through `qm guest exec`, which
 * needs the QEMU guest agent; failing here is fast and actionable, instead of a queued command
 * that never runs. Only what the provider observed counts (`target.observations`).
 */
export function runPreflight(target: TargetFacts, action: string, entityType: string | null): PreflightResult[] {
  if (action !== 'run' || (target.kind !== 'vm' && entityType !== 'vm')) return [];
  // The provider's observation only: an agent-written qemu_guest_agent is no evidence.
  const agent = target.observations?.['qemu_guest_agent'];
  if (typeof agent === 'string' && agent.trim().toLowerCase() === 'running') {
    return [
      {
        check: 'qemu_guest_agent',
        ok: true,
        blocking: false,
        message: `QEMU guest agent on vm:${target.name} is running`,
      },
    ];
  }
  return [{ check: 'qemu_guest_agent', ok: false, blocking: true, message: guestAgentBlockedMessage(target.name) }];
}
