import type { ActorKind, EventRecord, EventType } from '../src/model/events.js';
import type { PlacedEvent } from './timing.js';

/**
 * A request that another party executes as a separate Proxmox task by root@pam (PROVIDER_FORMATS.md):
 * HA requests run by the HA manager 10–20 s later; qmreboot's restart is a qmstart; a live
 * migration's target side is a qmstart/qmresume.
 */
export interface RequestChain {
  request: EventType;
  executes: readonly EventType[];
  executorKind: ActorKind;
  /** How a narrative names the request: "via an HA request". */
  label: string;
}

/** The chains the correlator follows, explicit. */
export const REQUEST_CHAINS: readonly RequestChain[] = [
  { request: 'ha_start_request', executes: ['vm_start'], executorKind: 'ha_manager', label: 'an HA request' },
  {
    request: 'ha_stop_request',
    executes: ['vm_stop', 'vm_shutdown'],
    executorKind: 'ha_manager',
    label: 'an HA request',
  },
  { request: 'ha_migrate_request', executes: ['vm_migrate'], executorKind: 'ha_manager', label: 'an HA request' },
  { request: 'vm_reboot', executes: ['vm_start'], executorKind: 'system', label: 'a reboot' },
  { request: 'vm_migrate', executes: ['vm_start', 'vm_resume'], executorKind: 'system', label: 'a migration' },
];

/** The account Proxmox's own services (HA manager, qmeventd, migration) run tasks as. */
export const PROXMOX_SERVICE_USER = 'root@pam';

/** A request found behind an executing task. */
export interface RequestMatch {
  chain: RequestChain;
  request: PlacedEvent;
}

/**
 * The request behind `executor`, if any: a Proxmox task on the same resource, of a type whose chain
 * includes the executor's type, that did not fail, and that started before the executor and at
 * most `windowSeconds` (plus skew) after it ended (a migration's target task starts mid-migration).
 * The latest such request wins. Executors not run by root@pam are never credited to anyone else.
 */
export function findRequest(
  executor: PlacedEvent,
  pool: readonly PlacedEvent[],
  windowSeconds: number,
  clockSkewSeconds: number,
): RequestMatch | null {
  const e = executor.event;
  if (e.provider !== 'proxmox' || e.actor !== PROXMOX_SERVICE_USER || e.actorKind !== 'human') return null;
  const skewMs = clockSkewSeconds * 1000;
  const matches: RequestMatch[] = [];
  for (const candidate of pool) {
    const r: EventRecord = candidate.event;
    if (r.id === e.id || r.provider !== 'proxmox' || r.resourceId !== e.resourceId) continue;
    if (r.statusClass === 'error' || r.statusClass === 'unknown') continue;
    const chain = REQUEST_CHAINS.find((c) => c.request === r.type && c.executes.includes(e.type));
    if (!chain) continue;
    const afterStart = executor.startMs >= candidate.startMs - skewMs;
    const soonAfter = executor.startMs <= candidate.endMs + windowSeconds * 1000 + skewMs;
    if (afterStart && soonAfter) matches.push({ chain, request: candidate });
  }
  matches.sort((a, b) => b.request.startMs - a.request.startMs);
  return matches[0] ?? null;
}
