import { DateTime } from 'luxon';
import { alertCandidates, storeAlerts } from '../graph/alerts.js';
import {
  type AlertmanagerWebhook,
  parseAlertmanagerWebhook,
  type ReceivedAlert,
} from '../model/alertmanager-webhook.js';
import { badInput, type ResourceRecord } from '../model/index.js';
import { alertLead, causeOfAlert } from './alert-narrative.js';
import { type LabelMatch, matchAlert, type Probe, probesOf } from './alert-labels.js';
import { audited } from './audit.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { gatherIncidentContext, INCIDENT_LIMITS } from './incident.js';
import { assertCan, type Principal } from './permissions.js';

/**
 * Alerts in from Alertmanager's webhook receiver (ingesters; audited): the payload checked (a bad
 * field is named, nothing stored), each alert mapped to the resource its labels name by the
 * integrations file's label mapping read backwards (alert-labels.ts), enriched with aitia's
 * incident context — a lead sentence with the cause as the records hold it, or "cause unknown",
 * then the incident paragraph (what it depends on, every change and condition) — and all of them
 * stored as feed entries (topic `alert`, change `received`) with the audit line in one write. The
 * notifier delivers them to the targets that want `alert.received`. An alert naming nothing aitia
 * holds is stored too, `matched: false` with the reason.
 *
 * Enrichment is a few bounded reads per resource named (the incident context's own limits), taken
 * within `enrichBudgetMs` for the whole request: a resource not read in time, or whose context is
 * refused by its limits, is stored matched with the reason in place of the paragraph, so the
 * answer never waits long and nothing accepted is dropped.
 */

/**
 * Long enough for the few bounded reads on a loaded Neo4j, and well inside the time Alertmanager
 * gives a webhook (its group_interval, at least 10 s) before it gives up and sends the group again.
 */
export const DEFAULT_ENRICH_BUDGET_MS = 5_000;

/** The feed's resource id for an alert that names nothing aitia holds. */
export const UNMATCHED_ALERT_RESOURCE = 'alertmanager:unmatched';

export interface AlertsReceived {
  received: number;
  matched: number;
  unmatched: number;
  /** The feed sequence of each alert, in the payload's order. */
  seqs: number[];
}

export interface AlertReceiverInput {
  body: unknown;
  /** alertmanager.labels of the integrations file: alert label → template over a resource. */
  labels: Readonly<Record<string, string>>;
  enrichBudgetMs?: number;
}

/** The feed payload of one received alert (what notification-events.ts reads). */
export interface AlertFeedPayload {
  alert: Pick<ReceivedAlert, 'status' | 'labels' | 'annotations' | 'startsAt' | 'generatorURL' | 'fingerprint'> & {
    endsAt: string | null;
  };
  receiver: string;
  groupKey: string;
  externalURL: string;
  matched: boolean;
  resource: { id: string; name: string; kind: string } | null;
  /** The labels that named the resource, or why none was. */
  matchedBy: string[];
  unmatchedReason: string | null;
  narrative: string | null;
  /** Why the incident paragraph is missing for a matched alert (its limits, the budget). */
  enrichmentError: string | null;
  receivedAt: string;
}

function readProbes(probes: readonly Probe[]) {
  const names: string[] = [];
  const ids: string[] = [];
  const attrs: Array<{ key: string; value: string }> = [];
  for (const p of probes) {
    if (p.field === 'name') names.push(p.value);
    else if (p.field === 'id') ids.push(p.value);
    else if (p.field === 'slug') names.push(p.value.slice(p.value.indexOf(':') + 1));
    else if (p.field === 'attr') attrs.push({ key: p.key, value: p.value });
  }
  return { names, ids, attrs };
}

/** The window an alert's context covers: back to an hour before it started (at least the default 6 h), at most 7 days. */
function windowFor(alert: ReceivedAlert, now: string): { since: string; until: string } {
  const until = DateTime.fromISO(now, { zone: 'utc' });
  const started = DateTime.fromISO(alert.startsAt, { zone: 'utc' });
  let since = until.minus({ hours: INCIDENT_LIMITS.defaultWindowHours });
  if (started.isValid && started.minus({ hours: 1 }) < since) since = started.minus({ hours: 1 });
  const floor = until.minus({ days: INCIDENT_LIMITS.maxWindowDays }).plus({ minutes: 1 });
  return { since: (since < floor ? floor : since).toISO()!, until: until.toISO()! };
}

const timeout = (ms: number) =>
  new Promise<never>((_, reject) => {
    const t = setTimeout(() => reject(new Error(`not read within the ${ms} ms enrichment budget`)), ms);
    t.unref();
  });

type Enriched = { ok: true; cause: string; paragraph: string } | { ok: false; reason: string };

/** Each matched resource's paragraph, one context read per resource (its earliest alert's window), within the budget. */
async function enrich(
  deps: ServiceDeps,
  matches: ReadonlyArray<{ alert: ReceivedAlert; match: LabelMatch<ResourceRecord> }>,
  now: string,
  budgetMs: number,
): Promise<Map<string, Enriched>> {
  const firstAlert = new Map<string, ReceivedAlert>();
  for (const { alert, match } of matches)
    if (match.matched) {
      const seen = firstAlert.get(match.resource.id);
      if (!seen || Date.parse(alert.startsAt) < Date.parse(seen.startsAt)) firstAlert.set(match.resource.id, alert);
    }
  const out = new Map<string, Enriched>();
  const deadline = Date.now() + budgetMs;
  for (const [resourceId, alert] of firstAlert) {
    const left = deadline - Date.now();
    if (left <= 0) {
      out.set(resourceId, { ok: false, reason: `not read within the ${budgetMs} ms enrichment budget` });
      continue;
    }
    try {
      const ctx = await Promise.race([
        gatherIncidentContext(deps, { resourceId, ...windowFor(alert, now) }),
        timeout(left),
      ]);
      out.set(resourceId, { ok: true, cause: causeOfAlert(resourceId, ctx.transitions), paragraph: ctx.narrative });
    } catch (err) {
      deps.log.warn({ err, resourceId }, 'alert receiver: no incident context; stored without it');
      out.set(resourceId, { ok: false, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

function payloadOf(
  hook: AlertmanagerWebhook,
  alert: ReceivedAlert,
  match: LabelMatch<ResourceRecord>,
  enriched: Enriched | undefined,
  receivedAt: string,
): AlertFeedPayload {
  const endsAt = alert.endsAt && !alert.endsAt.startsWith('0001-') ? alert.endsAt : null;
  const base = {
    alert: {
      status: alert.status,
      labels: alert.labels,
      annotations: alert.annotations,
      startsAt: alert.startsAt,
      endsAt,
      generatorURL: alert.generatorURL,
      fingerprint: alert.fingerprint,
    },
    receiver: hook.receiver,
    groupKey: hook.groupKey,
    externalURL: hook.externalURL,
    receivedAt,
  };
  if (!match.matched)
    return {
      ...base,
      matched: false,
      resource: null,
      matchedBy: [],
      unmatchedReason: match.reason,
      narrative: null,
      enrichmentError: null,
    };
  const r = match.resource;
  const lead = alertLead(
    alert,
    r,
    enriched?.ok ? enriched.cause : 'cause unknown: aitia could not read its incident context',
  );
  return {
    ...base,
    matched: true,
    resource: { id: r.id, name: r.name, kind: r.kind },
    matchedBy: match.labels,
    unmatchedReason: null,
    narrative: enriched?.ok ? `${lead} ${enriched.paragraph}` : lead,
    enrichmentError: enriched && !enriched.ok ? enriched.reason : null,
  };
}

export function receiveAlerts(
  deps: ServiceDeps,
  principal: Principal,
  input: AlertReceiverInput,
): Promise<AlertsReceived> {
  let targets: string[] = [UNMATCHED_ALERT_RESOURCE];
  return audited(
    deps,
    principal,
    'receiveAlerts',
    () => targets,
    async (ok) => {
      assertCan(principal, 'alert:receive');
      const parsed = parseAlertmanagerWebhook(input.body);
      if (!parsed.ok) throw badInput(parsed.field, parsed.reason);
      const hook = parsed.value;
      const receivedAt = nowOf(deps);
      const probes = hook.alerts.flatMap((a) => probesOf(a.labels, input.labels));
      const candidates = await alertCandidates(deps.driver, readProbes(probes));
      const matches = hook.alerts.map((alert) => ({
        alert,
        match: matchAlert(alert.labels, input.labels, candidates),
      }));
      const enriched = await enrich(deps, matches, receivedAt, input.enrichBudgetMs ?? DEFAULT_ENRICH_BUDGET_MS);
      const rows = matches.map(({ alert, match }) => ({
        resourceId: match.matched ? match.resource.id : UNMATCHED_ALERT_RESOURCE,
        at: receivedAt,
        payload: payloadOf(hook, alert, match, match.matched ? enriched.get(match.resource.id) : undefined, receivedAt),
      }));
      const matched = rows.filter((r) => r.resourceId !== UNMATCHED_ALERT_RESOURCE).length;
      targets = [...new Set(rows.map((r) => r.resourceId))];
      const detail = `${rows.length} alert(s) from receiver ${JSON.stringify(hook.receiver)} (${hook.status}): ${matched} matched, ${rows.length - matched} unmatched`;
      const entries = await storeAlerts(deps.driver, rows, () => ok.entry(detail));
      return { received: rows.length, matched, unmatched: rows.length - matched, seqs: entries.map((e) => e.seq) };
    },
  );
}
