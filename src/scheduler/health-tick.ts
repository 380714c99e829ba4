import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import {
  type CheckRunRow,
  checksOfResources,
  dueChecks,
  type HealthRow,
  recordCheckRuns,
  writeHealth,
} from '../graph/checks.js';
import { type CheckRecord, type CheckResult, checkTarget } from '../model/index.js';
import { mapLimit } from '../ingest/map-limit.js';
import { runCheck } from './check-runner.js';
import { writeConditions } from './condition-write.js';
import { type CheckView, type ConditionAction, planConditions, SCHEDULER_SOURCE } from './condition-plan.js';
import { failingSignal, stepFlap, unreachableSignal } from './flap-state.js';
import { deriveHealth, summariseHealth } from './health-rule.js';
import { runSweeps } from './health-sweeps.js';
import type { TickReport, TickSettings } from './tick-types.js';

function viewOf(c: CheckRecord, ran: boolean): CheckView {
  return {
    id: c.id,
    kind: c.kind,
    target: checkTarget(c),
    failing: c.failing.active,
    unreachable: c.unreachable.active,
    results: c.results,
    ran,
  };
}

/**
 * One pass: run the due checks (bounded concurrency, each with its own timeout), step their flap
 * machines, open/refresh/resolve check-driven conditions, store the runs and write the derived
 * health of every resource that had a check run — then the sweeps (health-sweeps.ts).
 * Conditions are written before the runs are stored: if the process dies in between, the next
 * tick sees the old counters and repeats the same (idempotent) condition writes.
 */
export async function runHealthTick(
  driver: Driver,
  settings: TickSettings,
  options: { all?: boolean; signal?: AbortSignal } = {},
): Promise<TickReport> {
  const t0 = performance.now();
  const report: TickReport = {
    checksRun: 0,
    pass: 0,
    fail: 0,
    unknown: 0,
    healthWritten: 0,
    opened: [],
    resolved: [],
    durationMs: 0,
  };
  const due = await dueChecks(driver, {
    now: DateTime.utc().toISO(),
    limit: settings.maxChecksPerTick,
    all: options.all ?? false,
  });
  const results = new Map<string, CheckResult>();
  await mapLimit(due, settings.concurrency, async (d) => {
    if (options.signal?.aborted) return;
    results.set(d.check.id, await runCheck(d, { signal: options.signal, network: settings.network }));
  });
  // Stopping aborts probes: what they report then is about the stop, not the target. Write nothing.
  if (options.signal?.aborted) return report;

  const runs: CheckRunRow[] = [];
  const ranAfter = new Map<string, CheckRecord>();
  for (const d of due) {
    const result = results.get(d.check.id);
    if (!result) continue;
    report[result.status]++;
    const failing = stepFlap(d.check.failing, failingSignal(result), settings.k).state;
    const unreachable = stepFlap(d.check.unreachable, unreachableSignal(result), settings.k).state;
    const nextDueAt = DateTime.fromISO(result.at, { zone: 'utc' }).plus({ seconds: d.check.intervalSeconds }).toISO()!;
    runs.push({ checkId: d.check.id, result, nextDueAt, failing, unreachable });
    ranAfter.set(d.check.id, {
      ...d.check,
      results: [result, ...d.check.results].slice(0, settings.historySize),
      failing,
      unreachable,
      lastRunAt: result.at,
      nextDueAt,
    });
  }
  report.checksRun = runs.length;

  const byResource = await checksOfResources(driver, [
    ...new Set(due.filter((d) => results.has(d.check.id)).map((d) => d.check.resourceId)),
  ]);
  const actions: ConditionAction[] = [];
  const health: HealthRow[] = [];
  const at = DateTime.utc().toISO();
  for (const [resourceId, stored] of byResource) {
    const after = stored.map((c) => ranAfter.get(c.id) ?? c);
    actions.push(
      ...planConditions(
        resourceId,
        stored.map((c) => viewOf(c, false)),
        after.map((c) => viewOf(c, ranAfter.has(c.id))),
        settings.k,
      ),
    );
    const verdict = deriveHealth(after.map((c) => ({ status: c.results[0]?.status ?? null, critical: c.critical })));
    const failed = after.find((c) => c.results[0]?.status === 'fail');
    const firstFailure = failed
      ? `${failed.kind} ${checkTarget(failed)}: ${failed.results[0]!.reason ?? 'failed'}`
      : null;
    health.push({ resourceId, health: verdict.health, lastCheck: summariseHealth(verdict, firstFailure), at });
  }

  // One write for every condition this tick opens, refreshes or resolves; each new one carries the
  // change it follows (if any) and the attribution gate's suppression decision. A resource deleted
  // meanwhile has nothing to hang a condition on and is skipped.
  const written = await writeConditions(
    driver,
    settings.conditions,
    { name: SCHEDULER_SOURCE, role: 'scheduler' },
    {
      open: actions
        .filter((a) => a.action !== 'resolve')
        .map((a) => ({ resourceId: a.resourceId, type: a.type, evidence: a.evidence, at })),
      resolve: actions
        .filter((a) => a.action === 'resolve')
        .map((a) => ({ resourceId: a.resourceId, type: a.type, evidence: a.evidence, at })),
    },
  );
  report.opened.push(...written.opened.filter((o) => o.opened).map((o) => o.condition.id));
  report.resolved.push(...written.resolved.map((c) => c.id));
  await recordCheckRuns(driver, runs, settings.historySize);
  report.healthWritten = await writeHealth(driver, health);

  const swept = await runSweeps(driver, settings);
  report.opened.push(...swept.opened);
  report.resolved.push(...swept.resolved);
  report.healthWritten += swept.healthWritten;
  report.durationMs = Math.round(performance.now() - t0);
  return report;
}
