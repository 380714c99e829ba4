import { z } from 'zod';

/**
 * Alertmanager's webhook receiver payload (`webhook_configs`, version "4"), as
 * `POST /integrations/alertmanager` accepts it: what each alert carries (status, labels,
 * annotations, times, generator URL, fingerprint) and the group around it. Fields Alertmanager may
 * add later are kept (loose objects); the ones aitia reads are checked, and a bad one is named with
 * its path (`alerts[0].labels.instance: …`).
 */

/** Alerts in one request: Alertmanager sends one group per request; `max_alerts` bounds it further. */
export const MAX_ALERTS_PER_REQUEST = 1000;

const ISO_TIME = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'must be an RFC 3339 time');
const LABELS = z.record(z.string(), z.string(), 'must be an object of string values');

export const AlertSchema = z.looseObject({
  status: z.enum(['firing', 'resolved']),
  labels: LABELS,
  annotations: LABELS.default({}),
  startsAt: ISO_TIME,
  /** "0001-01-01T00:00:00Z" while firing (Go's zero time). */
  endsAt: ISO_TIME.optional(),
  generatorURL: z.string().default(''),
  fingerprint: z.string().default(''),
});
export type ReceivedAlert = z.infer<typeof AlertSchema>;

export const AlertmanagerWebhookSchema = z.looseObject({
  version: z.literal('4', 'must be "4" (the webhook payload version aitia reads)'),
  groupKey: z.string().default(''),
  truncatedAlerts: z.number().int().min(0).default(0),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string().default(''),
  groupLabels: LABELS.default({}),
  commonLabels: LABELS.default({}),
  commonAnnotations: LABELS.default({}),
  externalURL: z.string().default(''),
  alerts: z
    .array(AlertSchema)
    .min(1, 'must hold at least one alert')
    .max(MAX_ALERTS_PER_REQUEST, `at most ${MAX_ALERTS_PER_REQUEST} alerts per request`),
});
export type AlertmanagerWebhook = z.infer<typeof AlertmanagerWebhookSchema>;

/** `alerts[0].labels.instance`: a zod issue's path as the payload spells it. */
function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || 'body';
}

/** The payload, or the first problem as a field and its reason. */
export function parseAlertmanagerWebhook(
  body: unknown,
): { ok: true; value: AlertmanagerWebhook } | { ok: false; field: string; reason: string } {
  const parsed = AlertmanagerWebhookSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, field: pathOf(issue.path), reason: issue.message };
}
