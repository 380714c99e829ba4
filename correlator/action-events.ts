import type { EventType } from '../src/model/events.js';

/**
 * Which provider records an action the gate authorizes leaves: the gate's action names (canonical,
 * kebab-case) mapped to the event types of the tasks or events that carry it out. Data, not
 * learned, like the transition table; an action not listed (cache-clear, dns-record change) leaves
 * no hypervisor record, so it never explains a transition. The HA request types are listed because
 * an HA-managed guest's start or stop is the agent's request, executed by root@pam.
 */
export const ACTION_EVENT_TYPES: Readonly<Record<string, readonly EventType[]>> = {
  start: ['vm_start', 'ha_start_request'],
  stop: ['vm_stop', 'vm_shutdown', 'ha_stop_request', 'vm_guest_shutdown_request'],
  shutdown: ['vm_shutdown', 'vm_stop', 'ha_stop_request', 'vm_guest_shutdown_request'],
  // A restart is a qmreboot (its restart a qmstart), or a stop then a start.
  restart: [
    'vm_reboot',
    'vm_stop',
    'vm_shutdown',
    'vm_start',
    'vm_reset',
    'vm_guest_reboot_request',
    'vm_guest_shutdown_request',
    'ha_stop_request',
    'ha_start_request',
  ],
  reboot: ['vm_reboot', 'vm_stop', 'vm_shutdown', 'vm_start', 'vm_guest_reboot_request'],
  reset: ['vm_reset'],
  pause: ['vm_pause', 'vm_suspend'],
  suspend: ['vm_suspend', 'vm_guest_standby_request'],
  resume: ['vm_resume', 'vm_start'],
  migrate: ['vm_migrate', 'ha_migrate_request'],
  destroy: ['vm_delete', 'vm_stop'],
  snapshot: ['vm_snapshot'],
  rollback: ['vm_rollback'],
};

/** The event types `action` leaves (empty when it leaves none a hypervisor records). */
export function actionEventTypes(action: string): readonly EventType[] {
  const canonical = action.trim().toLowerCase().replace(/_/g, '-');
  return Object.hasOwn(ACTION_EVENT_TYPES, canonical) ? ACTION_EVENT_TYPES[canonical]! : [];
}

// A restart or reboot may be carried out as two tasks, a stop then a start (qmstop, qmstart).
const TWO_STEP_ACTIONS: ReadonlySet<string> = new Set(['restart', 'reboot']);
const DOWN_TYPES: ReadonlySet<string> = new Set([
  'vm_stop',
  'vm_shutdown',
  'ha_stop_request',
  'vm_guest_shutdown_request',
]);
const UP_TYPES: ReadonlySet<string> = new Set(['vm_start', 'ha_start_request']);

/** Whether `action` may be carried out as a stop then a start: one authorization explains one of each. */
export function isTwoStepAction(action: string): boolean {
  return TWO_STEP_ACTIONS.has(action.trim().toLowerCase().replace(/_/g, '-'));
}

/** The half of a two-step action an event type is: `down` (a stop), `up` (a start), or null. */
export function actionPhase(type: string | null | undefined): 'down' | 'up' | null {
  if (!type) return null;
  return DOWN_TYPES.has(type) ? 'down' : UP_TYPES.has(type) ? 'up' : null;
}
