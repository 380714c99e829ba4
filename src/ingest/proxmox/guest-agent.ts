/** The answer to `POST …/qemu/{vmid}/agent/ping`: `{"data":{"result":{}}}`, or an error with its message. */
export type AgentPingAnswer = { ok: true } | { ok: false; status: number | null; message: string | null };

/** The `qemu_guest_agent` attribute: is the agent inside the VM actually answering? */
export type GuestAgentState = 'running' | 'not_running' | 'not_configured';

/**
 * Decides the attribute from the config flag, the VM's state and the ping answer.
 * Agent not enabled → not_configured (no ping needed); VM not running → not_running (a stopped
 * or paused guest cannot answer); otherwise the ping decides, reading the HTTP 500 messages
 * `QEMU guest agent is not running`, `VM <id> is not running`, `No QEMU guest agent configured`.
 * Returns null when the ping failed for another reason (timeout, 595): the stored value stays.
 */
export function guestAgentState(input: {
  enabled: boolean;
  running: boolean;
  ping: AgentPingAnswer | null;
}): GuestAgentState | null {
  if (!input.enabled) return 'not_configured';
  if (!input.running) return 'not_running';
  if (!input.ping) return null;
  if (input.ping.ok) return 'running';
  const message = input.ping.message ?? '';
  if (/no qemu guest agent configured/i.test(message)) return 'not_configured';
  if (/guest agent is not running|vm \d+ is not running/i.test(message)) return 'not_running';
  return null;
}

/** True when the VM should be pinged: agent enabled and the guest really running. */
export function shouldPingAgent(input: { enabled: boolean; running: boolean }): boolean {
  return input.enabled && input.running;
}
