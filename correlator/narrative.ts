import { recordNoun, whenPhrase } from './describe.js';
import { REQUEST_CHAINS } from './request-chains.js';
import { providerWord, quoteProviderText, statusPhrase } from '../src/model/provider-text.js';
import { unknownSentence } from './unknown-narrative.js';
import { authorizedPhrase, unauthorizedPhrase } from './authorization-narrative.js';
import { creditedEventOf } from './authorization.js';
import { type Clock, clockFor } from './narrative-clock.js';
import type { Attribution, AttributionEvent, Transition } from '../src/model/index.js';

/** What the narrative names: kind, display name and id of the resource. */
export interface NarrativeResource {
  id: string;
  kind: string;
  name?: string | null;
}

export interface NarrativeOptions {
  /** An IANA zone (`Europe/Berlin`) or `UTC` (the default); always named in the text. */
  zone?: string;
}

export type NarrativeResult = { ok: true; text: string; zone: string } | { ok: false; reason: string };

function statusWords(e: AttributionEvent): string | null {
  switch (e.statusClass) {
    case 'ok':
      return e.provider === 'proxmox' ? 'OK' : null;
    case 'warning':
      return e.statusText ? statusPhrase(e.statusText) : 'finished with warnings';
    case 'error':
      return `failed: ${e.statusText ? statusPhrase(e.statusText) : 'error'}`;
    case 'unknown':
      return e.statusText ? `outcome unknown (${statusPhrase(e.statusText)})` : 'outcome unknown';
    case 'running':
      return 'still running';
  }
}

/** `task qmstop (UPID:…), 02:08:29–02:08:30 UTC, OK`; with `by`, the actor follows the id. */
function eventPhrase(e: AttributionEvent, c: Clock, by?: string): string {
  const head = `${recordNoun(e.provider)} ${providerWord(e.rawType)} (${e.id})${by ? ` by ${by}` : ''}`;
  const when =
    e.endedAt === e.startedAt
      ? `at ${c.short(e.startedAt)} ${c.label}`
      : e.endedAt
        ? `${c.short(e.startedAt)}–${c.short(e.endedAt)} ${c.label}`
        : `started ${c.short(e.startedAt)} ${c.label}${e.statusClass === 'running' ? '' : ' (end not reported)'}`;
  const status = statusWords(e);
  return `${head}, ${when}${status ? `, ${status}` : ''}`;
}

function verbFor(from: string, to: string): string {
  if (to === 'running') {
    if (from === 'stopped') return 'Started';
    if (from === 'migrating') return 'Migrated';
    if (from === 'unreachable') return 'Reconnected';
    return 'Resumed';
  }
  const verbs: Record<string, string> = {
    stopped: 'Stopped',
    paused: 'Paused',
    suspended: 'Suspended',
    frozen: 'Frozen',
    migrating: 'Migrated',
    unreachable: 'Made unreachable',
    offline: 'Taken offline',
    online: 'Brought online',
  };
  return verbs[to] ?? 'Changed';
}

/**
 * Who, in words: the credited account, or the system with what it was doing ("the system (HA
 * manager)", "the system (node start-up: startall)") — root@pam running the node's own tasks is
 * not named as if it were a person.
 */
function actorPhrase(
  a: Pick<Attribution, 'actor' | 'actorKind'> & { systemContext?: Attribution['systemContext'] },
): string {
  if (a.systemContext) return `the system (${a.systemContext.label})`;
  if (a.actor) return providerWord(a.actor);
  return a.actorKind === 'ha_manager' ? 'the HA manager' : 'the system (no user recorded)';
}

/** The request credited (the last of the chain) and the requests between it and the cause, nearest first. */
function requestsOf(a: Attribution): { credited: AttributionEvent | null; between: AttributionEvent[] } {
  const requests = a.events.filter((e) => e.role === 'request');
  return { credited: requests[requests.length - 1] ?? null, between: requests.slice(0, -1) };
}

function chainOf(request: AttributionEvent) {
  return REQUEST_CHAINS.find((ch) => ch.request === request.type && ch.provider === request.provider);
}

/** "; requested by bob@pve via an HA request — task hastop (…)" when a request chain was found. */
function requestPhrase(a: Attribution, c: Clock): string {
  const { credited } = requestsOf(a);
  if (!credited) return '';
  const label = chainOf(credited)?.label ?? 'a request';
  return `; requested by ${actorPhrase(a)} via ${label} — ${eventPhrase(credited, c)}`;
}

/** The cause's host, when the cause is an event on the host the resource ran on rather than on the resource. */
function hostOf(resourceKind: string, cause: AttributionEvent): string | null {
  if (resourceKind === 'host' || !cause.type.startsWith('host_')) return null;
  return cause.node ? providerWord(cause.node) : 'unnamed';
}

/**
 * "Stopped by alice@pve via an HA request — task hastop (…); executed by the HA manager as
 * root@pam — task qmshutdown (…)"; a longer chain lists its tasks in order ("— task qmigrate (…),
 * then task qmresume (…)").
 */
function causePhrase(verb: string, a: Attribution, c: Clock, resourceKind: string): string {
  const cause = a.events.find((e) => e.role === 'cause')!;
  const { credited, between } = requestsOf(a);
  const host = hostOf(resourceKind, cause);
  const where = host ? `on its host ${host}, ` : '';
  if (!credited) return `${verb} by ${actorPhrase(a)} — ${where}${eventPhrase(cause, c)}`;
  const chain = chainOf(credited);
  const executor = chain?.executorName ?? (a.executorKind === 'ha_manager' ? 'the HA manager' : 'the system');
  const steps = [...[...between].reverse(), cause].map((e) => eventPhrase(e, c)).join(', then ');
  return `${verb} by ${actorPhrase(a)} via ${chain?.label ?? 'a request'} — ${eventPhrase(credited, c)}; executed by ${executor}${a.executor ? ` as ${providerWord(a.executor)}` : ''} — ${steps}`;
}

/**
 * The incident sentence(s) for one attributed transition, in UTC or the zone asked for (always
 * named). Says only what the records say: medium and low never claim a cause, none says unknown.
 */
export function narrate(
  resource: NarrativeResource,
  transition: Pick<Transition, 'from' | 'to' | 'observedAt'>,
  attribution: Attribution,
  options: NarrativeOptions = {},
): NarrativeResult {
  const zone = options.zone ?? 'UTC';
  const clock = clockFor(zone, transition.observedAt);
  if (typeof clock === 'string') return { ok: false, reason: clock };
  const who = resource.name
    ? `${resource.kind} ${quoteProviderText(resource.name)} (${resource.id})`
    : `${resource.kind} ${resource.id}`;
  const previous = attribution.previousObservedAt
    ? ` (it was ${transition.from} at the previous observation, ${clock.short(attribution.previousObservedAt)} ${clock.label})`
    : '';
  const head = `${who} went ${transition.from} → ${transition.to} at ${clock.full(transition.observedAt)} ${clock.label}${previous}.`;
  const cause = attribution.events.find((e) => e.role === 'cause');
  const unknown = unknownSentence(attribution.unknownBecause, resource.id, clock);
  const lead = unknown ? ` ${unknown}` : '';
  if (attribution.confidence === 'none' || !cause) {
    const why =
      attribution.consideredEvents === 0
        ? `No task or event on this resource in the ${attribution.lookbackSeconds} s before the change`
        : `The ${attribution.consideredEvents} task(s)/event(s) on this resource in the ${attribution.lookbackSeconds} s before the change already explain earlier transitions`;
    return { ok: true, zone: clock.label, text: `${head}${lead} ${why}; the cause is unknown.` };
  }
  const noun = recordNoun(cause.provider);
  const when = whenPhrase(attribution.deltaSeconds ?? 0, cause.statusClass === 'running');
  let body: string;
  const onHost = hostOf(resource.kind, cause) ? ' on the host it ran on' : '';
  if (attribution.confidence === 'high') {
    const verb = cause.type === 'vm_restarted_by_ha' ? 'Restarted' : verbFor(transition.from, transition.to);
    body = `${causePhrase(verb, attribution, clock, resource.kind)}. Confidence high: expected ${noun} type${onHost}, ${when}.`;
  } else if (attribution.confidence === 'medium') {
    const why = !attribution.expectedType
      ? `unexpected ${noun} type for ${transition.from} → ${transition.to}`
      : cause.statusClass === 'ok' || cause.statusClass === 'warning' || cause.statusClass === 'running'
        ? `expected ${noun} type, but outside the high-confidence window`
        : `${noun} of the expected type that did not succeed`;
    const by =
      attribution.systemContext && !requestsOf(attribution).credited ? actorPhrase(attribution) : actorPhrase(cause);
    const host = hostOf(resource.kind, cause);
    body = `Possibly related: ${host ? `on its host ${host}, ` : ''}${eventPhrase(cause, clock, by)}${requestPhrase(attribution, clock)}. Confidence medium: ${why}, ${when}; the cause is not established.`;
  } else {
    const by = `${actorPhrase(cause)}${cause.node ? ` on ${providerWord(cause.node)}` : ''}`;
    body = `Provider-level activity nearby: ${eventPhrase(cause, clock, by)}. Confidence low: nothing on this resource itself, ${when}; the cause is not established.`;
  }
  const authorized = authorizationSentence(transition, attribution);
  const tail = authorized ? ` ${authorized}` : '';
  return {
    ok: true,
    zone: clock.label,
    text: `${head}${attribution.confidence === 'medium' ? lead : ''} ${body}${tail}`,
  };
}

/**
 * The sentence that says the change was an action aitia authorized (the grant, who approved) or an
 * agent's with none (Unauthorized: …), or null when neither was decided. It follows the cause
 * sentence, in the narrative as stored and as rendered again in a zone (times stay ISO-8601 UTC).
 */
export function authorizationSentence(
  transition: Pick<Transition, 'from' | 'to'>,
  attribution: Attribution,
): string | null {
  const task = creditedEventOf(attribution);
  if (!task || (!attribution.authorization && !attribution.unauthorized)) return null;
  const cause = attribution.events.find((e) => e.role === 'cause');
  const verb = (
    cause?.type === 'vm_restarted_by_ha' ? 'Restarted' : verbFor(transition.from, transition.to)
  ).toLowerCase();
  if (attribution.unauthorized) return unauthorizedPhrase(verb, attribution.unauthorized, task.provider);
  const phrase = authorizedPhrase(verb, attribution.authorization!, {
    provider: task.provider,
    actor: attribution.actor ?? task.actor ?? attribution.authorization!.principal,
  });
  // Medium never claims the cause: the authorization is said of the task, if it was the cause.
  return attribution.confidence === 'high'
    ? `Authorized: ${phrase}.`
    : `Authorized, if that task caused it: ${phrase}.`;
}
