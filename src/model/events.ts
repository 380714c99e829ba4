import { z } from 'zod';
import type { Kind } from './kinds.js';

/**
 * Normalised event types: what a provider log entry (a Proxmox task, a vCenter event) did, in one
 * vocabulary for both providers. Names are `<scope>_<verb>`; guest verbs use `vm_` for VMs and
 * containers alike (the resource id says which). `*_request` types are asks that another party
 * executes (HA manager, guest OS); `bulk_*` are node-wide actions with no single guest; `other`
 * keeps anything the tables do not know, with its raw type beside it.
 */
export const EVENT_TYPES = [
  'vm_start',
  'vm_stop',
  'vm_shutdown',
  'vm_reboot',
  'vm_reset',
  'vm_pause',
  'vm_suspend',
  'vm_resume',
  'vm_starting',
  'vm_stopping',
  'vm_suspending',
  'vm_resuming',
  'vm_delete',
  'vm_migrate',
  'vm_create',
  'vm_clone',
  'vm_restore',
  'vm_template',
  'vm_snapshot',
  'vm_snapshot_delete',
  'vm_rollback',
  'vm_move_disk',
  'vm_backup',
  'vm_config',
  'vm_rename',
  'vm_connect',
  'vm_disconnect',
  'vm_power_on_failed',
  'vm_power_off_failed',
  'vm_guest_shutdown_request',
  'vm_guest_reboot_request',
  'vm_guest_standby_request',
  'vm_restarted_by_ha',
  'ha_start_request',
  'ha_stop_request',
  'ha_migrate_request',
  'bulk_start',
  'bulk_stop',
  'bulk_suspend',
  'bulk_migrate',
  'host_connect',
  'host_disconnect',
  'host_connection_lost',
  'host_shutdown',
  'host_failure',
  'node_service_reload',
  'node_apt_update',
  'other',
] as const;
export const EventTypeSchema = z
  .enum(EVENT_TYPES)
  .describe("A provider log entry's normalised type; `other` keeps unknown ones (their raw type is in `rawType`).");
export type EventType = z.infer<typeof EventTypeSchema>;

/**
 * How an event ended. `running` = not finished when read; `unknown` = the provider could not say
 * (Proxmox `unexpected status`: the worker vanished, e.g. its node crashed).
 */
export const STATUS_CLASSES = ['ok', 'warning', 'error', 'unknown', 'running'] as const;
export const StatusClassSchema = z
  .enum(STATUS_CLASSES)
  .describe('How an event ended. `running`: not finished when read; `unknown`: the provider could not say.');
export type StatusClass = z.infer<typeof StatusClassSchema>;

/**
 * Who stands behind an event. `ha_manager` executes on behalf of a requester; `system` is a
 * provider acting on its own (vCenter events with an empty userName: DRS, guest-initiated).
 * root@pam is `human` at ingest: the CLI and the web UI look the same in the task lists. The one
 * exception the task type alone decides: `startall`/`stopall` run as root@pam are the node's own
 * start-up and shutdown (pve-guests.service), so `system`. Whether a root@pam guest task was the HA
 * manager's or part of such a bulk action needs the other tasks: the correlator decides that.
 */
export const ACTOR_KINDS = ['human', 'api_token', 'ha_manager', 'system'] as const;
export const ActorKindSchema = z
  .enum(ACTOR_KINDS)
  .describe(
    'Who stands behind an event: a person, an API token, the HA manager executing a request, or the provider on its own.',
  );
export type ActorKind = z.infer<typeof ActorKindSchema>;

/** The account Proxmox's own services (HA manager, qmeventd, migration, pve-guests) run tasks as. */
export const PROXMOX_SERVICE_USER = 'root@pam';

/** How sure an attribution is. `low` is defined but only emitted when asked for. */
export const ATTRIBUTION_CONFIDENCES = ['high', 'medium', 'low', 'none'] as const;
export const AttributionConfidenceSchema = z
  .enum(ATTRIBUTION_CONFIDENCES)
  .describe(
    'How sure an attribution is: high = the expected task/event on this resource near the change; medium = related, not established; low = provider-level activity only (not emitted by default); none = nothing found, the cause is unknown.',
  );
export type AttributionConfidence = z.infer<typeof AttributionConfidenceSchema>;

/**
 * One provider log entry, normalised, as the graph stores it. Times are ISO-8601 UTC. Fields a
 * provider does not carry are `null`, never "".
 */
export interface EventRecord {
  /** The UPID string, or `vcenter:<server>/event/<key>`: the event's identity, idempotent on re-ingest. */
  id: string;
  provider: 'proxmox' | 'vcenter';
  /** The resource it concerns (`proxmox:<cluster>/qemu/<vmid>`, `vcenter:<server>/vm/<moref>`), or null for node/provider-wide activity. */
  resourceId: string | null;
  /** Kind of `resourceId` when known. */
  resourceKind: Kind | null;
  /** The provider's own object id: the UPID id field (VMID, service name, ''→null) or the vCenter moref. */
  objectId: string | null;
  /** The node or host resource the event ran on (`proxmox:<cluster>/node/<node>`, `vcenter:<server>/host/<moref>`). */
  hostId: string | null;
  /** Node / host name as the provider wrote it (for a vCenter migration: the destination). */
  node: string | null;
  /** vCenter migrations: the source host's name. */
  sourceNode: string | null;
  type: EventType;
  /** The provider's word: task type (`qmstop`), event class (`VmPoweredOffEvent`) or EventEx type id. */
  rawType: string;
  /** `user@realm`, `user@realm!tokenid`, a vCenter user name; null for system actions. */
  actor: string | null;
  actorKind: ActorKind;
  tokenId: string | null;
  startedAt: string;
  /** Null while running, or when the source gave no end (task status bodies carry no endtime). */
  endedAt: string | null;
  statusClass: StatusClass;
  /** The provider's status text (`OK`, `WARNINGS: 2`, the error message); null while running. */
  statusText: string | null;
  /** vCenter: key of the task event that started the chain. */
  chainId: string | null;
  message: string | null;
  /** Proxmox worker identity (pid + pstart); null for vCenter or when not reported. */
  pid: number | null;
  pstart: number | null;
}

/**
 * What makes up a logged event: once stored under its id, these never change (vCenter's history is
 * append-only). The import's in-document check and the graph's in-write check compare these.
 */
export const EVENT_CONTENT_FIELDS = [
  'type',
  'rawType',
  'actor',
  'actorKind',
  'startedAt',
  'endedAt',
  'statusClass',
  'statusText',
  'message',
  'objectId',
  'hostId',
  'chainId',
] as const satisfies readonly (keyof EventRecord)[];

/**
 * How an EventRecord sits on an `(:Event)` node: every field as a property of the same name, the
 * times (`startedAt`, `endedAt`) as Neo4j datetimes (the correlator's range look-up compares them),
 * plus `ingestedAt` (first write) and `updatedAt` (last change of outcome).
 */
export interface StoredEventRecord extends EventRecord {
  ingestedAt: string | null;
  updatedAt: string | null;
}
