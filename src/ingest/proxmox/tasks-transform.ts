import { DateTime } from 'luxon';
import { z } from 'zod';
import { type ActorKind, type EventRecord, PROXMOX_SERVICE_USER, type StatusClass } from '../../model/events.js';
import {
  cleanOptionalText,
  cleanProviderText,
  PROVIDER_ACTOR_MAX,
  PROVIDER_MESSAGE_MAX,
  PROVIDER_TYPE_MAX,
} from '../../model/provider-text.js';
import { taskTypeInfo, type GuestKind } from './task-types.js';
import { parseUpid, type Upid } from './upid.js';

/**
 * One task as Proxmox reports it: an entry of `GET /nodes/{node}/tasks?source=all` (status text,
 * endtime; user split from tokenid when finished) or a `…/tasks/{upid}/status` body (`status:
 * running | stopped`, `exitstatus`). Everything but the UPID is optional: the UPID encodes the rest.
 */
export const ProxmoxTaskSchema = z.object({
  upid: z.string(),
  node: z.string().optional(),
  pid: z.number().int().nonnegative().optional(),
  pstart: z.number().int().nonnegative().optional(),
  starttime: z.number().int().nonnegative().optional(),
  endtime: z.number().int().nonnegative().optional(),
  type: z.string().optional(),
  id: z.union([z.string(), z.number()]).optional(),
  user: z.string().optional(),
  tokenid: z.string().optional(),
  status: z.string().optional(),
  exitstatus: z.string().optional(),
});
export type ProxmoxTask = z.infer<typeof ProxmoxTaskSchema>;

/** What the transform needs from its caller: the cluster name (ids are cluster-scoped) and a VMID lookup. */
export interface TaskTransformOptions {
  cluster: string;
  /** Resolves a VMID's family when the task type does not say (hastart, vzdump, unknown types). */
  guestKindOf?: (vmid: string, node: string) => GuestKind | null;
}

export type TaskTransformResult = { ok: true; event: EventRecord } | { ok: false; reason: string; raw: unknown };

/** Status text → class: `OK`, `WARNINGS: n`, `unexpected status` (worker vanished), anything else is an error message. */
export function classifyTaskStatus(text: string): Exclude<StatusClass, 'running'> {
  if (text === 'OK') return 'ok';
  if (/^WARNINGS: \d+$/.test(text)) return 'warning';
  if (text === 'unexpected status') return 'unknown';
  return 'error';
}

function iso(epochSeconds: number): string {
  return DateTime.fromSeconds(epochSeconds, { zone: 'utc' }).toISO({ suppressMilliseconds: true })!;
}

/** The entry's fields must agree with what the UPID encodes; a mismatch means a corrupt entry. */
function disagreement(task: ProxmoxTask, upid: Upid): string | null {
  const user = task.user === undefined ? undefined : task.tokenid ? `${task.user}!${task.tokenid}` : task.user;
  const pairs: Array<[string, unknown, unknown]> = [
    ['node', task.node, upid.node],
    ['pid', task.pid, upid.pid],
    ['pstart', task.pstart, upid.pstart],
    ['starttime', task.starttime, upid.starttime],
    ['type', task.type, upid.type],
    ['id', task.id === undefined ? undefined : String(task.id), upid.id],
    ['user', user, upid.user],
  ];
  const bad = pairs.find(([, given, encoded]) => given !== undefined && given !== encoded);
  return bad ? `${bad[0]} ${JSON.stringify(bad[1])} disagrees with the UPID's ${JSON.stringify(bad[2])}` : null;
}

/** Status class, status text and end time of a list entry or a status body. */
function outcome(task: ProxmoxTask): { statusClass: StatusClass; statusText: string | null; endedAt: string | null } {
  const endedAt = task.endtime === undefined ? null : iso(task.endtime);
  if (task.status === 'RUNNING' || task.status === 'running')
    return { statusClass: 'running', statusText: null, endedAt: null };
  // Status body: `stopped` + exitstatus (no endtime in that body).
  const text = task.status === 'stopped' ? task.exitstatus : task.status;
  if (text === undefined) {
    // A list entry with neither status nor endtime has not finished; an end without status is unknowable.
    return endedAt === null && task.status === undefined
      ? { statusClass: 'running', statusText: null, endedAt: null }
      : { statusClass: 'unknown', statusText: null, endedAt };
  }
  // Classified on the text as sent; kept cleaned and capped: an error message is the task's data, not prose.
  const statusText = cleanProviderText(text, PROVIDER_MESSAGE_MAX);
  return { statusClass: classifyTaskStatus(text), statusText: statusText === '' ? null : statusText, endedAt };
}

/**
 * Normalises one Proxmox task into an EventRecord. Rejects (with the reason and the raw input) an
 * entry whose UPID is malformed or whose fields contradict its UPID.
 */
export function transformProxmoxTask(input: unknown, options: TaskTransformOptions): TaskTransformResult {
  if (!/^[^\s/:]+$/.test(options.cluster))
    return { ok: false, reason: `cluster name ${JSON.stringify(options.cluster)} is not usable in ids`, raw: input };
  // Status bodies arrive wrapped in `{ data: … }`; accept them as fetched.
  const body = isWrapped(input) ? input.data : input;
  const parsed = ProxmoxTaskSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      reason: `not a Proxmox task: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
      raw: input,
    };
  }
  const task = parsed.data;
  const upidResult = parseUpid(task.upid);
  if (!upidResult.ok) return { ok: false, reason: upidResult.reason, raw: input };
  const upid = upidResult.upid;
  const conflict = disagreement(task, upid);
  if (conflict) return { ok: false, reason: `task ${upid.raw}: ${conflict}`, raw: input };

  const info = taskTypeInfo(upid.type);
  const vmid = /^\d+$/.test(upid.id) ? upid.id : null;
  const guestKind =
    info.scope === 'guest' && vmid ? (info.guestKind ?? options.guestKindOf?.(vmid, upid.node) ?? null) : null;
  const { statusClass, statusText, endedAt } = outcome(task);
  // root@pam stays `human` here (the CLI and the web UI look the same); HA crediting and a guest
  // task's part in a node start-up are the correlator's job, with the other tasks in view. Only the
  // node's own start-up/shutdown bulk task is known from its type: pve-guests.service runs it as root@pam.
  const actorKind: ActorKind = upid.tokenId
    ? 'api_token'
    : info.runByNode && upid.user === PROXMOX_SERVICE_USER
      ? 'system'
      : 'human';
  return {
    ok: true,
    event: {
      id: upid.raw,
      provider: 'proxmox',
      resourceId: guestKind && vmid ? `proxmox:${options.cluster}/${guestKind}/${vmid}` : null,
      resourceKind: guestKind === 'qemu' ? 'vm' : guestKind === 'lxc' ? 'lxc' : null,
      objectId: upid.id === '' ? null : upid.id,
      hostId: `proxmox:${options.cluster}/node/${upid.node}`,
      node: upid.node,
      sourceNode: null,
      type: info.type,
      rawType: cleanProviderText(upid.type, PROVIDER_TYPE_MAX),
      actor: cleanProviderText(upid.user, PROVIDER_ACTOR_MAX),
      actorKind,
      tokenId: cleanOptionalText(upid.tokenId, PROVIDER_ACTOR_MAX),
      startedAt: iso(task.starttime ?? upid.starttime),
      endedAt,
      statusClass,
      statusText,
      chainId: null,
      message: null,
      pid: upid.pid,
      pstart: upid.pstart,
    },
  };
}

function isWrapped(input: unknown): input is { data: unknown } {
  return typeof input === 'object' && input !== null && !('upid' in input) && 'data' in input;
}
