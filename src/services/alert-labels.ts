import type { Attributes } from '../model/index.js';

/**
 * The label mapping read backwards (pure): the integrations file's `alertmanager.labels` say how a
 * resource appears in alert labels (`instance: "{name}"`, `vmid: "{attr.vmid}"`, `{id}`, `{kind}`),
 * the silencer renders them forwards (src/integrations/alertmanager/silence-plan.ts, the same
 * fields), and an alert received is mapped back to the resource it names:
 *
 * 1. each mapped label the alert carries is inverted into what it says about a resource
 *    (`instance=web01` under `"{name}"` → name web01; `"{name}:9100"` and `web01:9100` → name web01);
 *    those are the probes the candidates are read by;
 * 2. each candidate is rendered through every mapped label the alert carries: a label it renders to
 *    another value rules it out, one it renders equal counts for it, one it has no value for
 *    (`{attr.vmid}` on a host) neither;
 * 3. the candidate with the most agreeing labels is the alert's resource (the most specific match);
 *    a tie is ambiguous, and the alert stays unmatched with the reason.
 */

export type Probe =
  { field: 'name' | 'id' | 'kind' | 'slug'; value: string } | { field: 'attr'; key: string; value: string };

/** A resource as the templates read it. */
export interface LabelledResource {
  id: string;
  name: string;
  slug: string;
  kind: string;
  attributes: Attributes;
}

const FIELD = /\{([^{}]+)\}/g;

function fieldOf(r: LabelledResource, field: string): string | null {
  if (field.startsWith('attr.')) {
    const v = r.attributes[field.slice('attr.'.length)];
    return v === undefined || v === null || Array.isArray(v) ? null : String(v);
  }
  if (field === 'name' || field === 'id' || field === 'slug' || field === 'kind') return r[field] || null;
  return null;
}

/** The label's value for a resource, or null when a field it names has none (as the silencer renders it). */
export function renderLabel(template: string, r: LabelledResource): string | null {
  let missing = false;
  const value = template.replace(FIELD, (_, f: string) => fieldOf(r, f.trim()) ?? ((missing = true), ''));
  return missing || value === '' ? null : value;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What a label's value says about a resource under its template: one probe per placeholder, or
 * null when the value does not have the template's shape (`web01` under `"{name}:9100"`). A
 * template of literal text alone names no resource: no probes, but it must match.
 */
export function invertLabel(template: string, value: string): Probe[] | null {
  const fields: string[] = [];
  const pattern = template
    .split(FIELD)
    .map((part, i) => (i % 2 === 1 ? (fields.push(part.trim()), '(.+?)') : escapeRegex(part)))
    .join('');
  const m = new RegExp(`^${pattern}$`, 's').exec(value);
  if (!m) return null;
  const probes: Probe[] = [];
  fields.forEach((f, i) => {
    const v = m[i + 1]!;
    if (f.startsWith('attr.')) probes.push({ field: 'attr', key: f.slice('attr.'.length), value: v });
    else if (f === 'name' || f === 'id' || f === 'kind' || f === 'slug') probes.push({ field: f, value: v });
  });
  return probes;
}

/** The probes of every mapped label an alert carries (the candidates are read by those naming a resource). */
export function probesOf(labels: Readonly<Record<string, string>>, mapping: Readonly<Record<string, string>>): Probe[] {
  return Object.entries(mapping).flatMap(([name, template]) =>
    labels[name] === undefined ? [] : (invertLabel(template, labels[name]) ?? []),
  );
}

export type LabelMatch<R extends LabelledResource> =
  { matched: true; resource: R; labels: string[] } | { matched: false; reason: string };

const shown = (labels: Readonly<Record<string, string>>, names: readonly string[]) =>
  names.map((n) => `${n}=${JSON.stringify(labels[n])}`).join(', ');

/** The resource an alert names among the candidates read for its probes, or why none. */
export function matchAlert<R extends LabelledResource>(
  labels: Readonly<Record<string, string>>,
  mapping: Readonly<Record<string, string>>,
  candidates: readonly R[],
): LabelMatch<R> {
  const mapped = Object.keys(mapping).sort();
  if (mapped.length === 0)
    return { matched: false, reason: 'no label mapping: set alertmanager.labels in the integrations file' };
  const carried = mapped.filter((n) => labels[n] !== undefined);
  if (carried.length === 0)
    return { matched: false, reason: `the alert carries none of the mapped labels (${mapped.join(', ')})` };
  const scored: Array<{ r: R; agree: string[] }> = [];
  for (const r of new Map(candidates.map((c) => [c.id, c])).values()) {
    const agree: string[] = [];
    let against = false;
    for (const n of carried) {
      const v = renderLabel(mapping[n]!, r);
      if (v === null) continue;
      if (v === labels[n]) agree.push(n);
      else against = true;
    }
    // A resource only its kind or a literal agrees with is not named by the alert.
    const names = agree.some((n) => /\{\s*(?!kind\s*\})[^{}]+\}/.test(mapping[n]!));
    if (!against && names) scored.push({ r, agree });
  }
  if (scored.length === 0)
    return { matched: false, reason: `no resource aitia holds has ${shown(labels, carried)} (by the label mapping)` };
  const best = Math.max(...scored.map((s) => s.agree.length));
  const top = scored.filter((s) => s.agree.length === best).sort((a, b) => (a.r.id < b.r.id ? -1 : 1));
  if (top.length > 1)
    return {
      matched: false,
      reason: `ambiguous: ${shown(labels, top[0]!.agree)} fits ${top.map((s) => s.r.id).join(' and ')} alike; map a label that tells them apart (e.g. vmid: "{attr.vmid}")`,
    };
  return { matched: true, resource: top[0]!.r, labels: top[0]!.agree };
}
