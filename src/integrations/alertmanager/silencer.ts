import type { Driver } from 'neo4j-driver';
import { writeAudit } from '../../graph/audit.js';
import { readFeed } from '../../graph/feed.js';
import {
  recordSilencerPass,
  saveSilencerCursor,
  SILENCER_CURSOR,
  silencerCursor,
} from '../../graph/alertmanager-silences.js';
import type { Logger } from '../../log.js';
import {
  type ConditionRecord,
  type FeedEntry,
  type Kind,
  PROVIDER_STATE_VERDICTS,
  type TransitionRecord,
} from '../../model/index.js';
import type { LeaseSettings } from '../../scheduler/lease-keeper.js';
import { runUnderLease } from '../../scheduler/lease-keeper.js';
import { isExpected, type TransitionAttribution } from '../../policy/transition-gate.js';
import { type AlertmanagerClient, AlertmanagerError } from './client.js';
import type { AlertmanagerSpec } from '../integrations-file.js';
import { type ActionDeps, expireSilences, shadowCondition, silenceCondition } from './silence-actions.js';
import type { ExpectedCondition } from './silence-plan.js';

/**
 * The Alertmanager silencer: reads condition and transition changes from the STORED feed after
 * its own cursor, and for each in order: an expected condition (a principal's change at high
 * confidence) that opened suppressed (`attribution.suppression: on` when it opened) gets its
 * silences; one that opened under `shadow` gets an audit line saying what would be silenced; under
 * `off` nothing — also when a condition's cause explained again makes it so (`reattributed`). A condition resolving, or its resource entering a serving state again, expires
 * them. The decision is the one stored on the condition, so each keeps the mode it opened under.
 *
 * The cursor moves past an entry only once it is handled: Alertmanager away stops the pass there,
 * records the error beside the sources (`sources`, name `alertmanager`), and the next pass, after
 * a backoff that doubles to a minute, takes the same entry again. Only the leader replica runs it
 * (startLeaderSilencer, under the lease `alertmanager-silencer`).
 */

export interface SilencerOptions {
  driver: Driver;
  log: Logger;
  client: AlertmanagerClient;
  config: Pick<AlertmanagerSpec, 'labels' | 'silenceDependents'>;
  /** attribution.respect_intent_seconds of the policy in force: a silence lasts that long. */
  respectIntentSeconds: () => number;
  /** Its cursor's id (tests give each silencer its own). */
  cursorId?: string;
  /** Where a silencer with no cursor yet starts (a feed sequence); default 0, the whole stored feed. */
  startAfter?: number;
  /** Between passes; default 5 s. */
  tickMs?: number;
  /** The first retry after a failure; doubles up to maxBackoffMs (default 1 s and 60 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** false: no timer, tests call runOnce. Default true. */
  autoTick?: boolean;
  principal?: string;
  now?: () => string;
}

export interface SilencerPass {
  handled: number;
  created: number;
  expired: number;
  error: string | null;
}

export interface Silencer {
  runOnce(): Promise<SilencerPass>;
  stop(): Promise<void>;
}

const BATCH = 100;

function expectedOf(c: ConditionRecord): ExpectedCondition | null {
  const a = c.attribution as (TransitionAttribution & { narrative?: unknown }) | null;
  if (!a || !isExpected(a)) return null;
  const narrative =
    typeof a.narrative === 'string' && a.narrative.trim() !== '' ? a.narrative : `changed by ${a.actor}`;
  return { id: c.id, resourceId: c.resourceId, type: c.type, narrative, confidence: a.confidence };
}

function isServing(t: TransitionRecord): boolean {
  const verdicts = PROVIDER_STATE_VERDICTS[t.kind as Kind] as Record<string, { status: string }> | undefined;
  return verdicts?.[t.to]?.status === 'pass';
}

export function startSilencer(options: SilencerOptions): Silencer {
  const cursorId = options.cursorId ?? SILENCER_CURSOR;
  const now = options.now ?? (() => new Date().toISOString());
  const deps: ActionDeps = {
    driver: options.driver,
    log: options.log,
    client: options.client,
    config: options.config,
    respectIntentSeconds: options.respectIntentSeconds,
    now,
    principal: options.principal ?? 'alertmanager-silencer',
  };

  async function handle(entry: FeedEntry, pass: SilencerPass): Promise<void> {
    if (entry.topic === 'transition') {
      // A transition explained again is an old change: its state says nothing about now.
      if (entry.change === 'reexplained') return;
      const t = entry.payload as TransitionRecord | null;
      if (t && isServing(t)) pass.expired += await expireSilences(deps, { resourceId: t.resourceId, at: t.observedAt });
      return;
    }
    const c = entry.payload as ConditionRecord | null;
    if (!c) return;
    if (entry.change === 'resolved') {
      pass.expired += await expireSilences(deps, { conditionId: c.id });
      return;
    }
    const expected = expectedOf(c);
    if (!expected) return;
    if (c.suppressed) pass.created += await silenceCondition(deps, expected);
    else if (c.wouldSuppress) await shadowCondition(deps, expected);
  }

  // A request Alertmanager refused (a 4xx: it will refuse it again) is audited and passed over,
  // so one bad entry cannot hold back every later one; anything else stops the pass, to be retried.
  async function refused(entry: FeedEntry, err: unknown): Promise<void> {
    if (!(err instanceof AlertmanagerError) || err.retryable) throw err;
    options.log.error({ err, seq: entry.seq, resource: entry.resourceId }, 'alertmanager: refused; entry passed over');
    await writeAudit(options.driver, {
      principal: deps.principal,
      role: 'scheduler',
      operation: 'alertmanagerSilenceRefused',
      targetIds: [entry.resourceId],
      outcome: 'error',
      detail: `feed entry ${entry.seq} (${entry.topic} ${entry.change}): ${err.message}`,
    });
  }

  let running: Promise<SilencerPass> | null = null;
  async function pass(): Promise<SilencerPass> {
    const result: SilencerPass = { handled: 0, created: 0, expired: 0, error: null };
    try {
      let after = (await silencerCursor(options.driver, cursorId)) ?? options.startAfter ?? 0;
      for (;;) {
        const entries = await readFeed(options.driver, {
          afterSeq: after,
          limit: BATCH,
          topics: ['condition', 'transition'],
        });
        for (const e of entries) {
          await handle(e, result).catch((err: unknown) => refused(e, err));
          await saveSilencerCursor(options.driver, e.seq, now(), cursorId);
          after = e.seq;
          result.handled++;
        }
        if (entries.length < BATCH) break;
      }
    } catch (err) {
      result.error = err instanceof Error ? err.message : String(err);
      options.log.warn({ err, cursor: cursorId }, 'alertmanager silencer: pass failed; retried from the same entry');
    }
    await recordSilencerPass(options.driver, { url: options.client.url, at: now(), error: result.error }).catch(
      (err: unknown) => options.log.warn({ err }, 'alertmanager silencer: could not record its pass'),
    );
    return result;
  }
  const runOnce = () => (running ??= pass().finally(() => (running = null)));

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  const tickMs = options.tickMs ?? 5_000;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void runOnce().then((r) => {
        failures = r.error ? failures + 1 : 0;
        const backoff = Math.min(options.maxBackoffMs ?? 60_000, (options.backoffMs ?? 1_000) * 2 ** (failures - 1));
        schedule(failures > 0 ? backoff * (0.5 + Math.random() / 2) : tickMs);
      });
    }, ms);
  };
  if (options.autoTick !== false) schedule(0);

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}

/** The silencer on the leader replica only: under the lease `alertmanager-silencer`, its writes fenced. */
export function startLeaderSilencer(
  options: Omit<SilencerOptions, 'driver'> & { driver: Driver; lease: LeaseSettings },
) {
  return runUnderLease({
    driver: options.driver,
    name: SILENCER_CURSOR,
    lease: options.lease,
    log: options.log,
    start: (driver) => startSilencer({ ...options, driver }),
  });
}
