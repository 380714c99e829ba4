import { DateTime } from 'luxon';
import type { ActorKind, EventRecord, StatusClass } from '../../model/events.js';
import type { Kind } from '../../model/kinds.js';
import { isoZoneProblem } from '../../model/timestamps.js';
import {
  cleanOptionalText,
  cleanProviderText,
  PROVIDER_ACTOR_MAX,
  PROVIDER_MESSAGE_MAX,
  PROVIDER_NAME_MAX,
  PROVIDER_TYPE_MAX,
} from '../../model/provider-text.js';
import { vcenterEventTypeInfo } from './event-types.js';
import { eventArgument, field, isObject, parseMoRef, stringField, type JsonObject, type MoRef } from './payload.js';

/** The vCenter server the events came from (ids are server-scoped), and the class when the payload omits it. */
export interface VcenterEventOptions {
  server: string;
  /** Event class for PascalCase payloads that carry none (a broker's bare `data`). */
  typeName?: string;
}

export type VcenterEventResult = { ok: true; event: EventRecord } | { ok: false; reason: string; raw: unknown };

/** Managed object types that have a Resource kind in aitia. */
const REF_KINDS: Readonly<Record<string, { kind: Kind; segment: string }>> = {
  VirtualMachine: { kind: 'vm', segment: 'vm' },
  HostSystem: { kind: 'host', segment: 'host' },
  ClusterComputeResource: { kind: 'cluster', segment: 'cluster' },
};

/** A CloudEvent envelope (VEBA, Knative): the event is in `data`, its class in `subject` or `type`. */
function unwrap(input: JsonObject): { event: JsonObject; typeName: string | null } {
  if (typeof input.specversion === 'string' && isObject(input.data)) {
    const subject = typeof input.subject === 'string' ? input.subject : '';
    const m = typeof input.type === 'string' ? /^com\.vmware\.vsphere\.(.+)\.v\d+$/.exec(input.type) : null;
    return { event: input.data, typeName: /Event$/.test(subject) ? subject : (m?.[1] ?? null) };
  }
  return { event: input, typeName: null };
}

/**
 * The event's class, most authoritative first: `_typeName` / `_vimtype`, the envelope, the caller, a govc
 * record's `type`, then shape (an EventTypeId means EventEx, a task Info means TaskEvent).
 */
function classOf(event: JsonObject, envelopeType: string | null, given: string | undefined): string | null {
  if (typeof event._typeName === 'string') return event._typeName;
  // pyVmomi's JSON encoder names the class as `vim.event.VmPoweredOnEvent`.
  if (typeof event._vimtype === 'string') return event._vimtype.slice(event._vimtype.lastIndexOf('.') + 1);
  if (envelopeType) return envelopeType;
  if (given) return given;
  if (typeof event.type === 'string' && event.type !== '') return event.type;
  if (stringField(event, 'eventTypeId')) return 'EventEx';
  if (isObject(field(event, 'info'))) return 'TaskEvent';
  return null;
}

function resourceOf(server: string, ref: MoRef | null): { id: string; kind: Kind } | null {
  const known = ref ? REF_KINDS[ref.type] : undefined;
  return ref && known ? { id: `vcenter:${server}/${known.segment}/${ref.value}`, kind: known.kind } : null;
}

/** The event's host argument: `host`, or the class's own (`failedHost`) when it names the host elsewhere. */
function hostArgumentOf(event: JsonObject, name: string | undefined) {
  return (name ? eventArgument(event, name, 'host') : null) ?? eventArgument(event, 'host');
}

/** The resource an event concerns: its host for host events, else its VM, an EventEx object, or a task's entity. */
function subjectOf(
  server: string,
  event: JsonObject,
  hostEvent: boolean,
  hostArgument?: string,
): { id: string; kind: Kind } | null {
  const host = resourceOf(server, hostArgumentOf(event, hostArgument)?.ref ?? null);
  if (hostEvent) return host;
  const vm = resourceOf(server, eventArgument(event, 'vm')?.ref ?? null);
  if (vm) return vm;
  const objectType = stringField(event, 'objectType');
  const objectId = stringField(event, 'objectId');
  if (objectType && objectId) return resourceOf(server, { type: objectType, value: objectId });
  const info = field(event, 'info');
  return isObject(info) ? resourceOf(server, parseMoRef(field(info, 'entity'))) : null;
}

/** Status from a failure class, an EventEx severity / govc category, or a task event's state. */
function statusOf(event: JsonObject, failure: boolean): { statusClass: StatusClass; statusText: string | null } {
  if (failure) return { statusClass: 'error', statusText: 'failed' };
  const severity = stringField(event, 'severity') ?? stringField(event, 'category');
  if (severity)
    return {
      statusClass: severity === 'error' ? 'error' : severity === 'warning' ? 'warning' : 'ok',
      statusText: cleanProviderText(severity, PROVIDER_TYPE_MAX),
    };
  const info = field(event, 'info');
  const state = isObject(info) ? stringField(info, 'state') : null;
  if (state)
    return { statusClass: state === 'error' ? 'error' : 'ok', statusText: cleanProviderText(state, PROVIDER_TYPE_MAX) };
  return { statusClass: 'ok', statusText: null };
}

/**
 * Normalises one vCenter event (VMOMI JSON, PascalCase, pyVmomi references, a CloudEvent envelope,
 * or a short `govc events -json` record) into an EventRecord. vCenter events are instants:
 * `endedAt` equals `startedAt`. An empty userName is a system action (DRS, HA, guest-initiated).
 */
export function transformVcenterEvent(input: unknown, options: VcenterEventOptions): VcenterEventResult {
  const reject = (reason: string): VcenterEventResult => ({ ok: false, reason, raw: input });
  if (!/^[^\s/]+$/.test(options.server))
    return reject(`server name ${JSON.stringify(options.server)} is not usable in ids`);
  if (!isObject(input)) return reject('not a vCenter event: expected a JSON object');
  const { event, typeName: envelopeType } = unwrap(input);
  const className = classOf(event, envelopeType, options.typeName);
  if (!className)
    return reject(
      'event class unknown: the payload names none (no _typeName, envelope or EventTypeId); pass options.typeName',
    );
  const key = stringField(event, 'key');
  if (!key || !/^\d+$/.test(key))
    return reject(`event key ${JSON.stringify(field(event, 'key'))} is not a non-negative integer`);
  const createdRaw = stringField(event, 'createdTime');
  const created = createdRaw ? DateTime.fromISO(createdRaw, { zone: 'utc' }) : null;
  if (!created?.isValid) return reject(`createdTime ${JSON.stringify(createdRaw)} is not an ISO-8601 time`);
  const zone = isoZoneProblem(createdRaw!);
  if (zone) return reject(`createdTime ${zone}`);

  // EventEx / ExtendedEvent carry their real type in eventTypeId; a govc record's lookup is by class.
  const rawType =
    className === 'EventEx' || className === 'ExtendedEvent'
      ? (stringField(event, 'eventTypeId') ?? className)
      : className;
  const info = vcenterEventTypeInfo(rawType);
  const isHostEvent = info ? info.subject === 'host' : /^Host/.test(rawType);
  const subject = subjectOf(options.server, event, isHostEvent, info?.hostArgument);
  const host = hostArgumentOf(event, info?.hostArgument);
  // Every free text below is whoever wrote it's data (names, user names, messages): cleaned and capped.
  const user = cleanOptionalText(stringField(event, 'userName'), PROVIDER_ACTOR_MAX) || null;
  const type = info?.type ?? 'other';
  const actorKind: ActorKind = user ? 'human' : type === 'vm_restarted_by_ha' ? 'ha_manager' : 'system';
  const at = created.toUTC().toISO({ suppressMilliseconds: true })!;
  const chainId = stringField(event, 'chainId');
  return {
    ok: true,
    event: {
      id: `vcenter:${options.server}/event/${key}`,
      provider: 'vcenter',
      resourceId: subject?.id ?? null,
      resourceKind: subject?.kind ?? null,
      objectId: subject ? subject.id.slice(subject.id.lastIndexOf('/') + 1) : null,
      hostId: host?.ref?.type === 'HostSystem' ? `vcenter:${options.server}/host/${host.ref.value}` : null,
      node: cleanOptionalText(host?.name, PROVIDER_NAME_MAX),
      sourceNode: cleanOptionalText(eventArgument(event, 'sourceHost', 'host')?.name, PROVIDER_NAME_MAX),
      type,
      rawType: cleanProviderText(rawType, PROVIDER_TYPE_MAX),
      actor: user,
      actorKind,
      tokenId: null,
      startedAt: at,
      endedAt: at,
      ...statusOf(event, info?.failure === true),
      chainId: chainId && /^\d+$/.test(chainId) ? chainId : null,
      message: cleanOptionalText(
        stringField(event, 'fullFormattedMessage') ?? stringField(event, 'message'),
        PROVIDER_MESSAGE_MAX,
      ),
      pid: null,
      pstart: null,
    },
  };
}
