/**
 * The `alert.received` notification's payload (pure), from a feed entry of topic `alert` as the
 * receiver stored it (src/services/alerts.ts AlertFeedPayload): the alert as Alertmanager sent it
 * (status, labels, annotations, times, fingerprint, generator URL), whether aitia holds what it
 * names (`matched`, the resource or null and why not), and aitia's narrative — the cause with its
 * actor and task, or "cause unknown", then the incident paragraph. Read defensively: an entry
 * written by another version passes what it has, the rest null.
 */

const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function alertPayload(stored: unknown): Record<string, unknown> {
  const p = obj(stored);
  const a = obj(p.alert);
  const labels = obj(a.labels);
  const r = obj(p.resource);
  const matched = p.matched === true && typeof r.id === 'string';
  return {
    status: str(a.status),
    alertname: str(labels.alertname),
    labels,
    annotations: obj(a.annotations),
    startsAt: str(a.startsAt),
    endsAt: str(a.endsAt),
    fingerprint: str(a.fingerprint),
    generatorURL: str(a.generatorURL),
    receiver: str(p.receiver),
    externalURL: str(p.externalURL),
    matched,
    resource: matched ? { id: r.id, name: str(r.name), kind: str(r.kind) } : null,
    matchedBy: Array.isArray(p.matchedBy) ? p.matchedBy : [],
    unmatchedReason: matched ? null : (str(p.unmatchedReason) ?? 'no resource aitia holds'),
    narrative: str(p.narrative),
    enrichmentError: str(p.enrichmentError),
  };
}
