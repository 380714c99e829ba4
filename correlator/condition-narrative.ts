import { DateTime } from 'luxon';
import type { ConditionRecord, TransitionRecord } from '../src/model/index.js';
import { narrate, type NarrativeResource, type NarrativeResult } from './narrative.js';
import { quoteProviderText } from '../src/model/provider-text.js';

/** How each condition type reads in a sentence. */
const CONDITION_WORDS: Record<string, string> = {
  check_failing: 'has a failing check',
  unreachable: 'unreachable',
  paused_io_error: 'paused on a disk I/O error',
  adapter_unreachable: 'cannot be read from its provider',
  unmonitored: 'unmonitored',
  unauthorized_action: 'changed by an agent with no grant or reported action',
};

/** A condition's cause as the narrative tells it: the transition and the resource it changed. */
export interface ConditionCause {
  transition: TransitionRecord;
  resource: NarrativeResource;
  /** The change was a principal's, at high confidence. */
  expected: boolean;
}

/**
 * One paragraph for a condition, in UTC or the zone asked for (always named): what is wrong since
 * when, and the change it followed as the logs hold it — "expected" when a person meant that
 * change, "cause unknown" when no change explains it. Never a guess.
 */
export function narrateCondition(
  resource: NarrativeResource,
  condition: Pick<ConditionRecord, 'type' | 'status' | 'openedAt' | 'resolvedAt' | 'suppressed'>,
  cause: ConditionCause | null,
  options: { zone?: string; causeWindowSeconds?: number } = {},
): NarrativeResult {
  const zone = options.zone ?? 'UTC';
  const opened = DateTime.fromISO(condition.openedAt, { setZone: true }).setZone(zone);
  if (!opened.isValid) return { ok: false, reason: `unknown time zone ${JSON.stringify(zone)}` };
  const label = zone.toUpperCase() === 'UTC' ? 'UTC' : `${opened.zoneName} (UTC${opened.toFormat('ZZ')})`;
  const who = resource.name
    ? `${resource.kind} ${quoteProviderText(resource.name)} (${resource.id})`
    : `${resource.kind} ${resource.id}`;
  const what = CONDITION_WORDS[condition.type] ?? condition.type;
  const since = `${opened.toFormat('yyyy-MM-dd HH:mm:ss')} ${label}`;
  const resolved = condition.resolvedAt
    ? `, resolved ${DateTime.fromISO(condition.resolvedAt, { setZone: true }).setZone(zone).toFormat('yyyy-MM-dd HH:mm:ss')} ${label}`
    : '';
  const head = `${who} ${what} since ${since}${resolved}${condition.suppressed ? ' (suppressed: nobody paged)' : ''}`;
  if (!cause) {
    const window = options.causeWindowSeconds ? ` in the ${options.causeWindowSeconds} s before it` : '';
    return {
      ok: true,
      zone: label,
      text: `${head} — cause unknown: no observed change of it or of what it runs on or depends on${window}.`,
    };
  }
  const told = narrate(cause.resource, cause.transition, cause.transition.attribution, { zone });
  if (!told.ok) return told;
  const via =
    cause.resource.id === resource.id
      ? ''
      : ` (it runs on or depends on ${cause.resource.kind} ${cause.resource.name == null ? cause.resource.id : quoteProviderText(cause.resource.name)})`;
  const lead = cause.expected ? 'expected' : 'follows';
  return { ok: true, zone: label, text: `${head} — ${lead}${via}: ${told.text}` };
}
