import { type EventType, PROXMOX_SERVICE_USER } from '../src/model/events.js';
import type { ActorKind, SystemContext } from '../src/model/index.js';
import type { PlacedEvent } from './timing.js';

/**
 * Who is credited when nobody asked: the rule that tells a task the provider ran on its own from
 * one a person ran as root@pam. Proxmox's task lists do not say — `qm stop` in a root shell, the
 * web UI as root@pam, the HA manager and the node's own start-up all write `root@pam` — so only the
 * task's type and the other tasks around it can tell. The rules, each with the provider behaviour
 * behind it; anything they do not cover stays `human`:
 *
 * 1. **Node start-up and shutdown.** A root@pam guest task that started while a node-wide
 *    `startall`/`stopall` of the same user ran on the same node is part of it ({@link NODE_BULK_CONTEXTS}).
 *    Ingest marks those two bulk tasks `system` when run as root@pam (pve-guests.service runs them
 *    at boot and shutdown); a root@pam bulk start from the web UI looks the same and is counted
 *    the same way. `suspendall`/`migrateall` (and PVE 9's `bulk-*`) are never run by Proxmox on
 *    its own: their tasks stay the user's.
 * 2. **The HA manager on its own.** For an HA-managed guest, qemu-server and pve-container turn
 *    every start, stop, shutdown and migrate that the HA manager did not issue into an
 *    hastart/hastop/hamigrate request ({@link HA_EXECUTED}). So a root@pam task of those types on an
 *    HA-managed guest, with no request credited to a user, was issued by the HA manager itself
 *    (recovery after a fence, enforcing the requested state, maintenance mode). The resource being
 *    HA-managed comes from the graph (`ha_managed`); without it the task stays `human`.
 * 3. **vSphere HA.** A VmRestartedByHAEvent with no user is vSphere HA's (actor kind `ha_manager`
 *    from ingest); it is named as such.
 *
 * An HA executor whose request names a user is not the system's: that user is credited
 * (request-chains.ts), and the HA manager is named as executor.
 */

/** A node-wide action whose per-guest tasks run as its user (pve-manager API2/Nodes.pm). */
export interface BulkContext {
  bulk: EventType;
  executes: readonly EventType[];
  /** What the node was doing, for the narrative: "node start-up". */
  label: string;
  why: string;
}

export const NODE_BULK_CONTEXTS: readonly BulkContext[] = [
  {
    bulk: 'bulk_start',
    executes: ['vm_start'],
    label: 'node start-up',
    why: 'pve-guests.service runs `pvesh create /nodes/localhost/startall` as root@pam at boot; startall starts each onboot guest with its own qmstart/vzstart as the same user (HA-managed guests are left to HA)',
  },
  {
    bulk: 'bulk_stop',
    executes: ['vm_shutdown', 'vm_stop'],
    label: 'node shutdown',
    why: 'pve-guests.service runs stopall as root@pam when the node shuts down; stopall shuts each guest down with its own qmshutdown/vzshutdown as the same user, force-stopping inside that task after the timeout',
  },
];

/** What qemu-server and pve-container hand to HA for an HA-managed guest unless the HA manager calls them. */
export const HA_EXECUTED: readonly EventType[] = ['vm_start', 'vm_stop', 'vm_shutdown', 'vm_migrate'];

/** A system actor found for the credited event. */
export interface SystemActor {
  actorKind: ActorKind;
  context: SystemContext;
}

/**
 * Whether `credited` (the cause, or the last request of its chain) was the provider acting on its
 * own, per the rules above. `others` are every placed candidate, node-wide tasks included.
 */
export function systemActorFor(
  credited: PlacedEvent,
  others: readonly PlacedEvent[],
  opts: { haManaged: boolean; clockSkewSeconds: number },
): SystemActor | null {
  const e = credited.event;
  if (e.provider === 'vcenter') {
    return e.type === 'vm_restarted_by_ha' && e.actor === null
      ? { actorKind: e.actorKind, context: { label: 'vSphere HA', eventId: null } }
      : null;
  }
  if (e.actor !== PROXMOX_SERVICE_USER || e.actorKind !== 'human') return null;
  const skewMs = opts.clockSkewSeconds * 1000;
  for (const b of others) {
    const bulk = b.event;
    if (bulk.resourceId !== null || bulk.hostId !== e.hostId || bulk.actorKind !== 'system') continue;
    if (bulk.actor !== e.actor) continue;
    const row = NODE_BULK_CONTEXTS.find((r) => r.bulk === bulk.type && r.executes.includes(e.type));
    if (!row) continue;
    if (credited.startMs < b.startMs - skewMs || credited.startMs > b.endMs + skewMs) continue;
    return { actorKind: 'system', context: { label: `${row.label}: ${bulk.rawType}`, eventId: bulk.id } };
  }
  if (opts.haManaged && HA_EXECUTED.includes(e.type))
    return { actorKind: 'system', context: { label: 'HA manager', eventId: null } };
  return null;
}
