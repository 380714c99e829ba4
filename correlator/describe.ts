import type { EventRecord } from '../src/model/events.js';
import type { AttributionEvent } from '../src/model/index.js';
import { providerWord, statusPhrase } from '../src/model/provider-text.js';

/** Proxmox records are tasks, vCenter records events: say which. */
export function recordNoun(provider: EventRecord['provider']): 'task' | 'event' {
  return provider === 'proxmox' ? 'task' : 'event';
}

/** `task qmstop (UPID:…)` or `event VmPoweredOffEvent (vcenter:vc1/event/9902)`. */
export function describeEvent(e: Pick<EventRecord, 'provider' | 'rawType' | 'id'>): string {
  return `${recordNoun(e.provider)} ${providerWord(e.rawType)} (${e.id})`;
}

/** "3 s before the observation", "still running at the observation", "2 s after the observation …". */
export function whenPhrase(deltaSeconds: number, running: boolean): string {
  if (deltaSeconds === 0) return running ? 'still running at the observation' : 'spanning the observation';
  const s = Math.round(Math.abs(deltaSeconds));
  const amount = s === 0 ? 'less than 1 s' : `${s} s`;
  return deltaSeconds > 0
    ? `${amount} before the observation`
    : `${amount} after the observation (within the clock-skew tolerance)`;
}

/** The event as an attribution carries it, with a one-line UTC summary. */
export function toAttributionEvent(e: EventRecord, role: AttributionEvent['role']): AttributionEvent {
  const who = e.actor ? providerWord(e.actor) : e.actorKind === 'ha_manager' ? 'the HA manager' : 'the system';
  const span =
    e.endedAt === e.startedAt
      ? e.startedAt
      : `${e.startedAt}–${e.endedAt ?? (e.statusClass === 'running' ? 'running' : 'end not reported')}`;
  const status =
    e.statusText && e.statusText.toLowerCase() !== e.statusClass
      ? `${e.statusClass}: ${statusPhrase(e.statusText)}`
      : e.statusClass;
  return {
    id: e.id,
    role,
    provider: e.provider,
    type: e.type,
    rawType: e.rawType,
    actor: e.actor,
    actorKind: e.actorKind,
    node: e.node,
    startedAt: e.startedAt,
    endedAt: e.endedAt,
    statusClass: e.statusClass,
    statusText: e.statusText,
    summary: `${providerWord(e.rawType)} by ${who}${e.node ? ` on ${providerWord(e.node)}` : ''}, ${span}, ${status}`,
  };
}
