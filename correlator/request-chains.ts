import { type ActorKind, type EventRecord, type EventType, PROXMOX_SERVICE_USER } from '../src/model/events.js';
import type { Kind } from '../src/model/kinds.js';
import type { PlacedEvent } from './timing.js';

export { PROXMOX_SERVICE_USER };

/**
 * A request that another party executes as a separate task or event. Proxmox (PROVIDER_FORMATS.md):
 * HA requests run by the HA manager 10–20 s later as root@pam; qmreboot's restart is a qmstart; a
 * migration's target side is a qmstart/qmresume (a container's a vzstart). vCenter: a guest
 * shutdown or standby request is carried out by the guest OS, and the power-off or suspend event
 * that follows has no user.
 */
export interface RequestChain {
  provider: EventRecord['provider'];
  request: EventType;
  executes: readonly EventType[];
  /** Only for executors on these resource kinds (every kind when absent). */
  kinds?: readonly Kind[];
  executorKind: ActorKind;
  /** How a narrative names the request: "via an HA request". */
  label: string;
  /** How a narrative names who executed it: "executed by the HA manager". */
  executorName: string;
  /** How long after the request ended the executor may start; `requestChainSeconds` when absent. */
  windowSeconds?: number;
  /** Why the provider works this way, written down. */
  why: string;
}

/** The chains the correlator follows, explicit. */
export const REQUEST_CHAINS: readonly RequestChain[] = [
  {
    provider: 'proxmox',
    request: 'ha_start_request',
    executes: ['vm_start'],
    executorKind: 'ha_manager',
    label: 'an HA request',
    executorName: 'the HA manager',
    why: 'hastart only sets the HA state; the LRM starts the guest as root@pam on its next loop',
  },
  {
    provider: 'proxmox',
    request: 'ha_stop_request',
    executes: ['vm_stop', 'vm_shutdown'],
    executorKind: 'ha_manager',
    label: 'an HA request',
    executorName: 'the HA manager',
    why: 'hastop only sets the HA state; the LRM shuts the guest down (or stops it) as root@pam',
  },
  {
    provider: 'proxmox',
    request: 'ha_migrate_request',
    executes: ['vm_migrate'],
    executorKind: 'ha_manager',
    label: 'an HA request',
    executorName: 'the HA manager',
    why: 'hamigrate queues a CRM command; the LRM runs the migration as root@pam',
  },
  {
    provider: 'proxmox',
    request: 'ha_migrate_request',
    executes: ['vm_shutdown', 'vm_stop'],
    kinds: ['lxc'],
    executorKind: 'ha_manager',
    label: 'an HA request',
    executorName: 'the HA manager',
    why: 'HA relocates containers (pve-ha-manager PVECT.pm migrate): it shuts the container down first, migrates it offline and starts it on the target',
  },
  {
    provider: 'proxmox',
    request: 'vm_reboot',
    executes: ['vm_start'],
    executorKind: 'system',
    label: 'a reboot',
    executorName: 'Proxmox',
    why: 'qmreboot only shuts the VM down; qmeventd then starts it again with a qmstart as root@pam',
  },
  {
    provider: 'proxmox',
    request: 'vm_migrate',
    executes: ['vm_start', 'vm_resume'],
    executorKind: 'system',
    label: 'a migration',
    executorName: 'Proxmox',
    why: "a migration starts (or resumes) the guest on the target as root@pam: qm start --migratedfrom, a restart migration's pct start",
  },
  {
    provider: 'vcenter',
    request: 'vm_guest_shutdown_request',
    executes: ['vm_stop'],
    executorKind: 'system',
    label: 'a guest shutdown request',
    executorName: 'the guest OS',
    windowSeconds: 300,
    why: 'VmGuestShutdownEvent records who asked VMware Tools to shut the guest down; the guest powers off later on its own, and VmPoweredOffEvent has no user. A guest may take minutes: 300 s',
  },
  {
    provider: 'vcenter',
    request: 'vm_guest_standby_request',
    executes: ['vm_suspend'],
    executorKind: 'system',
    label: 'a guest standby request',
    executorName: 'the guest OS',
    windowSeconds: 300,
    why: 'VmGuestStandbyEvent records who asked; the guest suspends on its own, and VmSuspendedEvent has no user',
  },
];

/** A request found behind an executing task. */
export interface RequestMatch {
  chain: RequestChain;
  request: PlacedEvent;
}

/** May this event be an executor, i.e. credited to someone else? Only the provider acting for someone. */
function canExecuteForOthers(e: EventRecord): boolean {
  if (e.provider === 'proxmox') return e.actor === PROXMOX_SERVICE_USER && e.actorKind === 'human';
  return e.actor === null;
}

/**
 * The request behind `executor`, if any: an event of the same provider on the same resource, of a
 * type whose chain includes the executor's type, that did not fail, and that started before the
 * executor and at most the chain's window (`windowSeconds` unless the chain sets its own), plus
 * skew, after it ended (a migration's target task starts mid-migration). The latest such request
 * wins. Only root@pam (Proxmox) or an event with no user (vCenter) is ever credited to anyone
 * else: a named user's task is that user's.
 */
export function findRequest(
  executor: PlacedEvent,
  pool: readonly PlacedEvent[],
  windowSeconds: number,
  clockSkewSeconds: number,
): RequestMatch | null {
  const e = executor.event;
  if (!canExecuteForOthers(e)) return null;
  const skewMs = clockSkewSeconds * 1000;
  const matches: RequestMatch[] = [];
  for (const candidate of pool) {
    const r: EventRecord = candidate.event;
    if (r.id === e.id || r.provider !== e.provider || r.resourceId !== e.resourceId) continue;
    if (r.statusClass === 'error' || r.statusClass === 'unknown') continue;
    const chain = REQUEST_CHAINS.find(
      (c) =>
        c.provider === e.provider &&
        c.request === r.type &&
        c.executes.includes(e.type) &&
        (!c.kinds || (e.resourceKind !== null && c.kinds.includes(e.resourceKind))),
    );
    if (!chain) continue;
    const afterStart = executor.startMs >= candidate.startMs - skewMs;
    const soonAfter = executor.startMs <= candidate.endMs + (chain.windowSeconds ?? windowSeconds) * 1000 + skewMs;
    if (afterStart && soonAfter) matches.push({ chain, request: candidate });
  }
  matches.sort((a, b) => b.request.startMs - a.request.startMs);
  return matches[0] ?? null;
}

/** A chain followed to its end: the requests behind a cause, nearest first; the last is credited. */
export interface RequestTrail {
  /** The chain of the credited (last) request: it says who executed on the requester's behalf. */
  chain: RequestChain;
  requests: PlacedEvent[];
}

/** How many requests deep a trail goes: an HA migration's target start is three tasks from the user. */
export const MAX_REQUEST_DEPTH = 3;

/**
 * Follows requests from `cause` to the end: a request run by root@pam may itself execute another
 * request (an HA migrate request → the migration by root@pam → the start on the target by
 * root@pam), so the user at the far end is credited. Each event is used once.
 */
export function followRequests(
  cause: PlacedEvent,
  pool: readonly PlacedEvent[],
  windowSeconds: number,
  clockSkewSeconds: number,
): RequestTrail | null {
  const used = new Set([cause.event.id]);
  const requests: PlacedEvent[] = [];
  let chain: RequestChain | null = null;
  let current = cause;
  while (requests.length < MAX_REQUEST_DEPTH) {
    const match = findRequest(
      current,
      pool.filter((p) => !used.has(p.event.id)),
      windowSeconds,
      clockSkewSeconds,
    );
    if (!match) break;
    requests.push(match.request);
    used.add(match.request.event.id);
    chain = match.chain;
    current = match.request;
  }
  return chain ? { chain, requests } : null;
}
