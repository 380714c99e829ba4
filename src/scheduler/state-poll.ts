import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { correlateChanges, type CorrelationReport, type CorrelatorSettings } from '../../correlator/runner.js';
import type { TransitionRecord } from '../model/index.js';
import { linkEventsToResources } from '../graph/events.js';
import type { Logger } from '../log.js';
import type { IngestReport, ProgressSink } from '../ingest/report.js';
import type { ProxmoxClient } from '../ingest/proxmox/client.js';
import { syncProxmox, type SyncProxmoxOptions } from '../ingest/proxmox/sync.js';
import { syncProxmoxTasks, type SyncProxmoxTasksOptions, type TaskSyncReport } from '../ingest/proxmox/tasks-sync.js';
import { DEFAULT_POLICY_PATH, loadPolicyFile } from '../policy/load.js';
import type { SuppressionMode } from '../policy/policy-document.js';

export interface StatePollOptions {
  /** The policy's `attribution.suppression`; read from `policyFile` when not given. */
  suppression?: SuppressionMode;
  /** Policy YAML (AITIA_POLICY_FILE); default the shipped policy. */
  policyFile?: string;
  /** Correlator tuning, e.g. the node clock-skew tolerance. */
  correlator?: Partial<CorrelatorSettings>;
  tasks?: SyncProxmoxTasksOptions;
  inventory?: SyncProxmoxOptions;
  /** Where new transitions go: the process's bus (the `transitionObserved` subscription); none without subscribers. */
  publish?: (transition: TransitionRecord) => void;
  onProgress?: ProgressSink;
  /** Called with the task stage's summary line as soon as that stage is done (before the inventory). */
  onTasks?: (line: string, report: TaskSyncReport) => void;
}

/** What one state poll did, stage by stage. */
export interface StatePollResult {
  tasks: TaskSyncReport;
  inventory: IngestReport;
  /** Events linked to resources that appeared in this poll's inventory. */
  linkedEvents: number;
  correlation: CorrelationReport;
}

/** The suppression mode of a policy file (default the shipped one); an invalid file is an error naming it. */
export async function suppressionFromPolicy(path?: string): Promise<SuppressionMode> {
  const file = path ?? DEFAULT_POLICY_PATH;
  const loaded = await loadPolicyFile(file);
  if (!loaded.ok)
    throw new Error(`policy ${file} is invalid: ${loaded.errors.map((e) => `${e.path}: ${e.reason}`).join('; ')}`);
  return loaded.policy.attribution.suppression;
}

/**
 * One Proxmox state poll, in the order attribution needs: (1) task ingest, so the tasks that explain
 * a change are in the graph before it is explained; (2) the inventory/state sync, which reports the
 * state changes; (3) correlation: each change becomes a stored, attributed, gated Transition.
 * Used by the poller and by `aitia ingest proxmox --once`.
 */
export async function runProxmoxStatePoll(
  driver: Driver,
  client: ProxmoxClient,
  options: StatePollOptions = {},
): Promise<StatePollResult> {
  const suppression = options.suppression ?? (await suppressionFromPolicy(options.policyFile));
  const tasks = await syncProxmoxTasks(driver, client, options.tasks);
  options.onTasks?.(formatTaskSync(tasks), tasks);
  const inventory = await syncProxmox(driver, client, {
    ...options.inventory,
    onProgress: options.inventory?.onProgress ?? options.onProgress,
  });
  const linkedEvents = await linkEventsToResources(driver, tasks.unlinkedResourceIds);
  const correlation = await correlateChanges(driver, inventory.stateChanges, {
    observedAt: inventory.startedAt,
    observer: `scheduler:${inventory.scope}`,
    suppression,
    settings: options.correlator,
    publish: options.publish ?? (() => {}),
  });
  return { tasks, inventory, linkedEvents, correlation };
}

/**
 * The task stage in one line, with the window it read (the earliest `since` of any node), so an
 * empty read says where it looked: `proxmox:lab tasks: nodes=3 since=2026-05-13T02:00:00Z
 * listed=12 events=12 new=4 updated=1 skipped=0 errors=0`.
 */
export function formatTaskSync(t: TaskSyncReport): string {
  const since =
    t.nodes.length > 0
      ? DateTime.fromSeconds(Math.min(...t.nodes.map((n) => n.since)), { zone: 'utc' }).toISO({
          suppressMilliseconds: true,
        })
      : 'none';
  const listed = t.nodes.reduce((n, x) => n + x.listed, 0);
  const line = `${t.scope} tasks: nodes=${t.nodes.length} since=${since} listed=${listed} events=${t.events.written} new=${t.events.created} updated=${t.events.updated} skipped=${t.skipped.length} errors=${t.errors.length}`;
  return listed === 0 && t.nodes.length > 0
    ? `${line} (no task started in the window; the first read of a node goes back AITIA_PROXMOX_BACKFILL_HOURS)`
    : line;
}

/** One line per stage (tasks, state, transitions) for logs and the CLI. */
export function formatStatePoll(r: StatePollResult): string[] {
  const c = r.correlation;
  const byConfidence = (level: string) => c.created.filter((x) => x.attribution.confidence === level).length;
  return [
    formatTaskSync(r.tasks),
    `${r.inventory.scope} state: changes=${r.inventory.stateChanges.length} linked-events=${r.linkedEvents}`,
    `${r.inventory.scope} transitions: new=${c.created.length} (high=${byConfidence('high')} medium=${byConfidence('medium')} low=${byConfidence('low')} none=${byConfidence('none')}) existing=${c.existing.length} conditions opened=${c.conditions.opened.length} resolved=${c.conditions.resolved.length} errors=${c.errors.length}`,
  ];
}

/**
 * A state poll as the Proxmox poller's `run` (src/scheduler/proxmox-poller.ts): each pass runs
 * tasks → inventory → correlation, logs the task and transition stages, and hands the poller the
 * inventory report it logs itself. The policy's suppression mode is read once, at the first pass.
 */
export function statePollPass(
  options: StatePollOptions & { log: Logger; onResult?: (result: StatePollResult) => void },
) {
  let suppression: Promise<SuppressionMode> | null = options.suppression ? Promise.resolve(options.suppression) : null;
  return async (driver: Driver, client: ProxmoxClient, sync: SyncProxmoxOptions): Promise<IngestReport> => {
    suppression ??= suppressionFromPolicy(options.policyFile);
    const result = await runProxmoxStatePoll(driver, client, {
      ...options,
      suppression: await suppression,
      inventory: { ...options.inventory, ...sync },
    });
    const [tasks, , transitions] = formatStatePoll(result);
    options.log.info(
      {
        scope: result.tasks.scope,
        complete: result.tasks.complete,
        events: result.tasks.events,
        skipped: result.tasks.skipped.length,
        errors: result.tasks.errors.slice(0, 3),
      },
      tasks!,
    );
    options.log.info(
      {
        created: result.correlation.created.map((t) => ({
          id: t.id,
          confidence: t.attribution.confidence,
          decision: t.decision.decision,
        })),
      },
      transitions!,
    );
    for (const e of result.correlation.errors) options.log.error(e, 'transition not stored');
    options.onResult?.(result);
    return result.inventory;
  };
}
