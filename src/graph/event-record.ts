import type { ActorKind, EventRecord, EventType, StatusClass } from '../model/events.js';
import type { Kind } from '../model/kinds.js';
import { int, toPlain } from './values.js';

/**
 * How an EventRecord sits on an `(:Event)` node: every field as a property of the same name, the
 * times (`startedAt`, `endedAt`) as Neo4j datetimes (the correlator's range look-up compares them),
 * plus `ingestedAt` (first write) and `updatedAt` (last change of outcome).
 */
export interface StoredEventRecord extends EventRecord {
  ingestedAt: string | null;
  updatedAt: string | null;
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Builds a record from an Event node's properties (datetimes come back as ISO-8601 UTC). */
export function eventFromProperties(raw: unknown): StoredEventRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  return {
    id: String(p.id),
    provider: p.provider === 'vcenter' ? 'vcenter' : 'proxmox',
    resourceId: str(p.resourceId),
    resourceKind: (str(p.resourceKind) as Kind | null) ?? null,
    objectId: str(p.objectId),
    hostId: str(p.hostId),
    node: str(p.node),
    sourceNode: str(p.sourceNode),
    type: String(p.type) as EventType,
    rawType: String(p.rawType),
    actor: str(p.actor),
    actorKind: String(p.actorKind) as ActorKind,
    tokenId: str(p.tokenId),
    startedAt: String(p.startedAt),
    endedAt: str(p.endedAt),
    statusClass: String(p.statusClass) as StatusClass,
    statusText: str(p.statusText),
    chainId: str(p.chainId),
    message: str(p.message),
    pid: num(p.pid),
    pstart: num(p.pstart),
    ingestedAt: str(p.ingestedAt),
    updatedAt: str(p.updatedAt),
  };
}

/**
 * The properties written with `SET e += row.props`. Times travel beside them (converted to datetimes
 * in Cypher); `resourceId` / `resourceKind` too, because a later read must not unset a known resource.
 */
export function eventProperties(e: EventRecord): Record<string, unknown> {
  return {
    provider: e.provider,
    objectId: e.objectId,
    hostId: e.hostId,
    node: e.node,
    sourceNode: e.sourceNode,
    type: e.type,
    rawType: e.rawType,
    actor: e.actor,
    actorKind: e.actorKind,
    tokenId: e.tokenId,
    statusClass: e.statusClass,
    statusText: e.statusText,
    chainId: e.chainId,
    message: e.message,
    // Integers, not Bolt floats: pid and pstart are identities, compared exactly.
    pid: e.pid === null ? null : int(e.pid),
    pstart: e.pstart === null ? null : int(e.pstart),
  };
}
