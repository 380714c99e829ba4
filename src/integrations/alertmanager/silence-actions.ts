import type { Driver } from 'neo4j-driver';
import { writeAudit } from '../../graph/audit.js';
import {
  conditionsOpenedAfter,
  conditionStatusNow,
  markSilenceExpired,
  recordSilence,
  silencesOf,
} from '../../graph/alertmanager-silences.js';
import { getResourceById } from '../../graph/resources/read.js';
import { traverseFrom } from '../../graph/traversal.js';
import type { Logger } from '../../log.js';
import type { AlertmanagerClient, Silence } from './client.js';
import type { AlertmanagerSpec } from '../integrations-file.js';
import { CREATED_BY, type ExpectedCondition, ownedBy, planSilences, type SilencePlan } from './silence-plan.js';

/**
 * What the silencer does for one feed entry, against Alertmanager and the graph. Alertmanager is
 * asked first each time (its silences made by `aitia`, found by their marker), so a silence made
 * before a crash, by another replica or before a restart is found and never made twice; the
 * graph's mapping is written after, and read to find a resource's silences when it comes back.
 * Any Alertmanager failure is thrown: the caller does not move its cursor, and retries.
 */

export interface ActionDeps {
  driver: Driver;
  log: Logger;
  client: AlertmanagerClient;
  config: Pick<AlertmanagerSpec, 'labels' | 'silenceDependents'>;
  respectIntentSeconds: () => number;
  now: () => string;
  /** The principal of its audit lines. */
  principal: string;
}

/** How far dependents are followed from the changed resource. */
export const DEPENDENTS_DEPTH = 3;

const live = (s: Silence) => s.status.state !== 'expired';

async function aitiaSilences(deps: ActionDeps): Promise<Silence[]> {
  return (await deps.client.listSilences({ createdBy: CREATED_BY })).filter((s) => live(s) && ownedBy(s) !== null);
}

/** The silences an expected condition gets: its resource's and its dependents', or null when it has gone. */
export async function planFor(deps: ActionDeps, condition: ExpectedCondition): Promise<SilencePlan | null> {
  const resource = await getResourceById(deps.driver, condition.resourceId);
  if (!resource) return null;
  const dependents = deps.config.silenceDependents
    ? (await traverseFrom(deps.driver, resource.id, 'dependents', DEPENDENTS_DEPTH)).reached.map((r) => r.resource)
    : [];
  return planSilences({
    condition,
    resource,
    dependents,
    labels: deps.config.labels,
    startsAt: deps.now(),
    respectIntentSeconds: deps.respectIntentSeconds(),
  });
}

/** Creates the silences of a condition that do not exist yet; returns how many it made. */
export async function silenceCondition(deps: ActionDeps, condition: ExpectedCondition): Promise<number> {
  // Replaying the feed (a first start, a long outage): a condition resolved since needs no silence.
  if ((await conditionStatusNow(deps.driver, condition.id)) !== 'open') return 0;
  const plan = await planFor(deps, condition);
  if (!plan) return 0;
  for (const d of plan.dropped)
    deps.log.warn({ condition: condition.id, resource: d.resourceId, reason: d.reason }, 'alertmanager: not silenced');
  const existing = await aitiaSilences(deps);
  let made = 0;
  for (const p of plan.silences) {
    const found = existing.find((s) => {
      const o = ownedBy(s);
      return o?.conditionId === condition.id && o.resourceId === p.resourceId;
    });
    const silenceId = found?.id ?? (await deps.client.createSilence(p.silence));
    await recordSilence(deps.driver, {
      conditionId: condition.id,
      resourceId: p.resourceId,
      silenceId,
      at: deps.now(),
    });
    if (found) continue;
    made++;
    deps.log.info({ condition: condition.id, resource: p.resourceId, silenceId }, 'alertmanager: silence created');
    await writeAudit(deps.driver, {
      principal: deps.principal,
      role: 'scheduler',
      operation: 'alertmanagerSilenceCreated',
      targetIds: [p.resourceId, condition.id],
      outcome: 'ok',
      detail: `silence ${silenceId} until ${p.silence.endsAt}: ${matcherText(p)} — ${p.silence.comment}`,
    });
  }
  return made;
}

/** Shadow mode: logs and audits the silences `on` would create, creates none. */
export async function shadowCondition(deps: ActionDeps, condition: ExpectedCondition): Promise<void> {
  const plan = await planFor(deps, condition);
  if (!plan) return;
  for (const p of plan.silences) {
    deps.log.info(
      { condition: condition.id, resource: p.resourceId, matchers: p.silence.matchers },
      'alertmanager: would create a silence (attribution.suppression is shadow)',
    );
    await writeAudit(deps.driver, {
      principal: deps.principal,
      role: 'scheduler',
      operation: 'alertmanagerSilenceWouldCreate',
      targetIds: [p.resourceId, condition.id],
      outcome: 'ok',
      detail: `would silence until ${p.silence.endsAt} (attribution.suppression is shadow): ${matcherText(p)} — ${p.silence.comment}`,
    });
  }
}

/**
 * Expires aitia's live silences of one condition, or of every condition of a resource (it came
 * back): only silences made by `aitia` whose marker names such a condition are touched.
 */
export async function expireSilences(
  deps: ActionDeps,
  which: { conditionId: string } | { resourceId: string; at: string },
): Promise<number> {
  const recorded =
    'conditionId' in which
      ? new Set([which.conditionId])
      : new Set((await silencesOf(deps.driver, { conditionResourceId: which.resourceId })).map((s) => s.conditionId));
  const mine = (conditionId: string) =>
    recorded.has(conditionId) || ('resourceId' in which && conditionId.startsWith(`${which.resourceId}#`));
  const candidates = (await aitiaSilences(deps)).filter((s) => mine(ownedBy(s)!.conditionId));
  // The resource came back at `at`: a condition opened after that (a feed replayed from an older
  // cursor reaches this change after a newer stop's silence was made) is not ended by it.
  const later =
    'at' in which
      ? await conditionsOpenedAfter(
          deps.driver,
          candidates.map((s) => ownedBy(s)!.conditionId),
          which.at,
        )
      : new Set<string>();
  let expired = 0;
  for (const s of candidates) {
    const o = ownedBy(s)!;
    if (later.has(o.conditionId)) continue;
    await deps.client.expireSilence(s.id);
    await markSilenceExpired(deps.driver, { conditionId: o.conditionId, resourceId: o.resourceId, at: deps.now() });
    expired++;
    deps.log.info(
      { condition: o.conditionId, resource: o.resourceId, silenceId: s.id },
      'alertmanager: silence expired',
    );
    await writeAudit(deps.driver, {
      principal: deps.principal,
      role: 'scheduler',
      operation: 'alertmanagerSilenceExpired',
      targetIds: [o.resourceId, o.conditionId],
      outcome: 'ok',
      detail: `silence ${s.id} expired: ${'conditionId' in which ? 'the condition resolved' : `${which.resourceId} is back`}`,
    });
  }
  return expired;
}

function matcherText(p: { silence: { matchers: Array<{ name: string; value: string }> } }): string {
  return `{${p.silence.matchers.map((m) => `${m.name}="${m.value}"`).join(', ')}}`;
}
