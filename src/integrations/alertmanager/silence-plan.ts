import type { Attributes } from '../../model/index.js';
import type { SilenceInput, SilenceMatcher } from './client.js';

/**
 * What aitia asks Alertmanager to silence for an expected condition. Pure.
 *
 * Ownership: alerts do not carry any label of aitia's, so a matcher of its own (an
 * `aitia_condition="…"` label) would match no alert and silence nothing. aitia's silences are
 * instead marked by `createdBy: "aitia"` and a marker at the end of the comment,
 * `[aitia condition=<condition id> resource=<resource id>]`: after a restart aitia lists the
 * silences made by `aitia` and finds its own by that marker, never duplicates one, and never
 * expires a silence whose creator or marker is not its own. A person editing an aitia silence
 * in the UI keeps its marker (Alertmanager keeps the comment), and the silence stays aitia's.
 *
 * One silence per resource (the condition's own and each dependent), with equality matchers for
 * every mapped label: a regex over several values would need escaping each value and mixes
 * resources whose labels differ; one silence each reads plainly in Alertmanager's UI and
 * expires on its own.
 */

export const CREATED_BY = 'aitia';

/** The resource as the label templates read it. */
export interface SilencedResource {
  id: string;
  name: string;
  slug: string;
  kind: string;
  attributes: Attributes;
}

/** The matchers for one resource, or why it cannot be silenced. */
export type LabelMatch = { ok: true; matchers: SilenceMatcher[] } | { ok: false; reason: string };

const FIELD = /\{([^{}]+)\}/g;

function fieldOf(resource: SilencedResource, field: string): string | null {
  if (field.startsWith('attr.')) {
    const v = resource.attributes[field.slice('attr.'.length)];
    if (v === undefined || v === null) return null;
    return Array.isArray(v) ? null : String(v);
  }
  if (field === 'name' || field === 'id' || field === 'slug' || field === 'kind') return resource[field] || null;
  return null;
}

/** The resource's alert labels by the mapping (`instance: "{name}"`), as equality matchers sorted by name. */
export function matchersFor(resource: SilencedResource, labels: Readonly<Record<string, string>>): LabelMatch {
  const matchers: SilenceMatcher[] = [];
  for (const [name, template] of Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    let missing: string | null = null;
    const value = template.replace(FIELD, (_, field: string) => {
      const v = fieldOf(resource, field.trim());
      if (v === null) missing ??= field.trim();
      return v ?? '';
    });
    if (missing !== null) return { ok: false, reason: `label ${name}: ${resource.id} has no ${missing}` };
    if (value === '') return { ok: false, reason: `label ${name}: empty for ${resource.id}` };
    matchers.push({ name, value, isRegex: false, isEqual: true });
  }
  return { ok: true, matchers };
}

/** The marker that makes a silence aitia's for one condition and resource. */
export function ownershipMarker(conditionId: string, resourceId: string): string {
  return `[aitia condition=${conditionId} resource=${resourceId}]`;
}

/** The condition a silence's marker names, or null for a silence that is not aitia's. */
export function ownedBy(silence: {
  createdBy: string;
  comment: string;
}): { conditionId: string; resourceId: string } | null {
  if (silence.createdBy !== CREATED_BY) return null;
  const m = /\[aitia condition=(\S+) resource=(\S+)\]$/.exec(silence.comment);
  return m ? { conditionId: m[1]!, resourceId: m[2]! } : null;
}

/** The expected condition a silence is for, as the silencer read it from the feed. */
export interface ExpectedCondition {
  id: string;
  resourceId: string;
  type: string;
  /** The cause's narrative ("Stopped by alice@pve — task qmstop UPID… at 02:08:31 UTC"). */
  narrative: string;
  confidence: string;
}

/** One silence to create (or, in shadow mode, that would be). */
export interface PlannedSilence {
  resourceId: string;
  silence: SilenceInput;
}

export interface SilencePlan {
  silences: PlannedSilence[];
  /** Resources left unsilenced, each with why (a label template without a value). */
  dropped: Array<{ resourceId: string; reason: string }>;
}

/**
 * The silences for an expected condition: its resource's, then each dependent's, from `startsAt`
 * for `respectIntentSeconds` (the policy's attribution.respect_intent_seconds: as long as aitia
 * itself respects the change), each comment the narrative, its confidence and the marker.
 */
export function planSilences(input: {
  condition: ExpectedCondition;
  resource: SilencedResource;
  dependents: readonly SilencedResource[];
  labels: Readonly<Record<string, string>>;
  startsAt: string;
  respectIntentSeconds: number;
}): SilencePlan {
  const { condition } = input;
  const endsAt = new Date(Date.parse(input.startsAt) + input.respectIntentSeconds * 1000).toISOString();
  const plan: SilencePlan = { silences: [], dropped: [] };
  const seen = new Set<string>();
  for (const r of [input.resource, ...input.dependents]) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    const m = matchersFor(r, input.labels);
    if (!m.ok) {
      plan.dropped.push({ resourceId: r.id, reason: m.reason });
      continue;
    }
    const via = r.id === condition.resourceId ? '' : ` (depends on ${condition.resourceId})`;
    const comment =
      `${condition.narrative.trim().replace(/\.$/, '')}, ${condition.confidence} confidence — ` +
      `${condition.type} on ${condition.resourceId} is expected${via} ${ownershipMarker(condition.id, r.id)}`;
    plan.silences.push({
      resourceId: r.id,
      silence: {
        matchers: m.matchers,
        startsAt: input.startsAt,
        endsAt,
        createdBy: CREATED_BY,
        comment,
      },
    });
  }
  return plan;
}
