import { DateTime } from 'luxon';
import type { ConditionRecord, LogGap, TransitionRecord } from '../src/model/index.js';
import { narrateCondition, type ConditionCause } from './condition-narrative.js';
import { recordNoun } from './describe.js';
import { narrate, type NarrativeResource, type NarrativeResult } from './narrative.js';
import { providerWord, quoteProviderText } from '../src/model/provider-text.js';

/** Everything an incident paragraph is written from; the service gathers it, this only words it. */
export interface IncidentStory {
  subject: NarrativeResource;
  since: string;
  until: string;
  depth: number;
  /** What the subject needs (its dependencies) and what needs it (its dependents), nearest first. */
  dependencies: NarrativeResource[];
  dependents: NarrativeResource[];
  /** Oldest first; `expected`: a principal's change at high confidence (the gate's reading of intent). */
  transitions: Array<{ resource: NarrativeResource; transition: TransitionRecord; expected: boolean }>;
  conditions: Array<{ resource: NarrativeResource; condition: ConditionRecord; cause: ConditionCause | null }>;
  causeWindowSeconds?: number;
  /**
   * How much of the window each provider log of these resources was read completely (a Proxmox
   * node's task list, a vCenter's event log): the paragraph says it, so "cause unknown" is read
   * for what it is. Absent: not said.
   */
  coverage?: Array<{ source: string; node: string | null; share: number; gaps: readonly LogGap[] }>;
}

/** At most this many names in a list; the rest are counted. */
const LISTED = 8;

/** The name is the provider's text: quoted as data. */
const nameOf = (r: NarrativeResource) => `${r.kind} ${r.name == null ? r.id : quoteProviderText(r.name)}`;

function listed(resources: readonly NarrativeResource[]): string {
  const names = resources.slice(0, LISTED).map(nameOf);
  const more = resources.length - names.length;
  return more > 0 ? `${names.join(', ')} and ${more} more` : names.join(', ');
}

/** "by alice@pve (task qmstop UPID:…, high confidence) — an intentional change", or "cause unknown". */
function causeWords(t: TransitionRecord, expected: boolean): string {
  const a = t.attribution;
  const cause = a.events.find((e) => e.role === 'cause');
  if (!cause || a.confidence === 'none' || a.confidence === 'low') return 'cause unknown';
  const record = `${recordNoun(cause.provider)} ${providerWord(cause.rawType)} ${cause.id}`;
  if (a.confidence === 'medium') return `cause not established (possibly ${record}, medium confidence)`;
  const who = a.systemContext
    ? `the system (${a.systemContext.label})`
    : a.actor
      ? providerWord(a.actor)
      : 'the system';
  return `by ${who} (${record}, high confidence)${expected ? ' — expected: an intentional change' : ''}`;
}

/**
 * One paragraph for an incident ticket, in UTC or the zone asked for (always named): what the
 * resource needs and what needs it, every change in the window with its cause as the logs hold it,
 * the conditions and their causes, and a closing summary. Causes are named only where a record
 * holds one; everything else is "cause unknown".
 */
export function narrateIncident(story: IncidentStory, options: { zone?: string } = {}): NarrativeResult {
  const zone = options.zone ?? 'UTC';
  const at = (iso: string) => DateTime.fromISO(iso, { setZone: true }).setZone(zone);
  const until = at(story.until);
  if (!until.isValid) return { ok: false, reason: `unknown time zone ${JSON.stringify(zone)}` };
  const label = zone.toUpperCase() === 'UTC' ? 'UTC' : `${until.zoneName} (UTC${until.toFormat('ZZ')})`;
  const fmt = (iso: string) => at(iso).toFormat('yyyy-MM-dd HH:mm:ss');
  const s = story.subject;
  const parts: string[] = [
    `Incident context for ${nameOf(s)} (${s.id}), ${fmt(story.since)} to ${fmt(story.until)} ${label}, ${story.depth} hop(s) each way.`,
    `${story.dependencies.length ? `It depends on ${listed(story.dependencies)}` : 'It depends on nothing recorded'}; ${
      story.dependents.length ? `${listed(story.dependents)} depend(s) on it` : 'nothing recorded depends on it'
    }.`,
  ];
  for (const { resource, transition } of story.transitions) {
    const told = narrate(resource, transition, transition.attribution, { zone });
    if (!told.ok) return told;
    parts.push(told.text);
  }
  for (const { resource, condition, cause } of story.conditions) {
    const told = narrateCondition(resource, condition, cause, { zone, causeWindowSeconds: story.causeWindowSeconds });
    if (!told.ok) return told;
    parts.push(told.text.endsWith('.') ? told.text : `${told.text}.`);
  }
  const coverage = coverageSentence(story, (iso) => at(iso).toFormat('HH:mm:ss'), label);
  if (coverage) parts.push(coverage);
  parts.push(summary(story, (iso) => `${at(iso).toFormat('HH:mm:ss')} ${label}`));
  return { ok: true, zone: label, text: parts.join(' ') };
}

/**
 * "The task logs of pve1, pve3 were read completely for the window." or "Log coverage: pve1 read
 * completely; pve2 read 84% (not read 02:10:00–02:25:00 UTC: source_unreachable, …)."
 */
function coverageSentence(story: IncidentStory, time: (iso: string) => string, label: string): string | null {
  const streams = story.coverage;
  if (!streams) return null;
  if (streams.length === 0)
    return 'No complete read of a provider log is recorded for the window: a cause unknown here is not evidence that nobody acted.';
  const name = (x: { source: string; node: string | null }) => providerWord(x.node ?? x.source);
  if (streams.every((x) => x.share >= 0.999))
    return `The provider logs (${streams.map(name).join(', ')}) were read completely for the window.`;
  const each = streams.map((x) => {
    if (x.share >= 0.999) return `${name(x)} read completely`;
    const gap = x.gaps[0];
    const why = gap ? ` (not read ${time(gap.from)}–${time(gap.to)} ${label}: ${gap.reason.replace(/_/g, ' ')})` : '';
    return `${name(x)} read ${Math.floor(x.share * 100)}%${why}`;
  });
  return `Log coverage for the window: ${each.join('; ')} — where a log was not read, the cause may be there.`;
}

function summary(story: IncidentStory, time: (iso: string) => string): string {
  if (story.transitions.length === 0) {
    const open = story.conditions.filter((c) => c.condition.status === 'open');
    return open.length
      ? `In short: ${open.length} open condition(s) and no state change of it or of what it depends on in the window — cause unknown.`
      : 'In short: no state change and no open condition in the window.';
  }
  const changes = story.transitions.map(
    ({ resource, transition: t, expected }) =>
      `${nameOf(resource)} ${t.from} → ${t.to} at ${time(t.observedAt)}: ${causeWords(t, expected)}`,
  );
  return `In short: ${changes.join('; ')}.`;
}
