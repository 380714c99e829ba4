import { DateTime } from 'luxon';
import { recordNoun } from '../../correlator/describe.js';
import type { ReceivedAlert } from '../model/alertmanager-webhook.js';
import type { ResourceRecord, TransitionRecord } from '../model/index.js';

/**
 * The sentence an enriched alert opens with (pure): the alert, the resource it names, and what
 * aitia's records say caused it — the resource's latest change in the window with its actor and
 * task when the ladder gave it high confidence ("stopped by alice@pve — task qmstop UPID:… at
 * 02:08:31 UTC, high confidence"), "cause not established" at medium, and "cause unknown" when
 * nothing explains it. The incident paragraph (what it depends on, every change and condition)
 * follows it in the stored narrative.
 */

const DONE: Record<string, string> = { running: 'started', online: 'brought online', offline: 'taken offline' };

const utc = (iso: string) => `${DateTime.fromISO(iso, { zone: 'utc' }).toFormat('HH:mm:ss')} UTC`;

/** What explains the resource's state, from its own latest transition in the window (oldest first). */
export function causeOfAlert(subjectId: string, transitions: readonly TransitionRecord[]): string {
  const own = transitions.filter((t) => t.resourceId === subjectId);
  const t = own[own.length - 1];
  if (!t) return 'cause unknown: aitia recorded no change of it in the window';
  const a = t.attribution;
  const cause = a.events.find((e) => e.role === 'cause');
  const change = `it went ${t.from} → ${t.to} at ${utc(t.observedAt)}`;
  if (!cause || a.confidence === 'none' || a.confidence === 'low')
    return `cause unknown: ${change} and no task or event explains it`;
  const record = `${recordNoun(cause.provider)} ${cause.rawType} ${cause.id}`;
  if (a.confidence === 'medium') return `cause not established: ${change}, possibly ${record} (medium confidence)`;
  const who = a.systemContext ? `the system (${a.systemContext.label})` : (a.actor ?? 'the system');
  return `${DONE[t.to] ?? t.to} by ${who} — ${record} at ${utc(t.observedAt)}, high confidence`;
}

/** "Alert InstanceDown (firing since 02:09:10 UTC) on vm web01 (proxmox:…/qemu/101): stopped by alice@pve — …." */
export function alertLead(
  alert: ReceivedAlert,
  resource: Pick<ResourceRecord, 'id' | 'kind' | 'name'>,
  cause: string,
): string {
  const name = alert.labels.alertname ?? 'alert';
  const since = Number.isNaN(Date.parse(alert.startsAt)) ? '' : ` since ${utc(alert.startsAt)}`;
  return `Alert ${name} (${alert.status}${since}) on ${resource.kind} ${resource.name || resource.id} (${resource.id}): ${cause}.`;
}
