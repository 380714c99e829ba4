import type { Driver } from 'neo4j-driver';

/** One versioned schema step. Every statement is idempotent (`IF [NOT] EXISTS`), so reruns are safe. */
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

/** The schema, oldest first. Append only: never edit a released step, add a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'identity constraints and look-up indexes',
    statements: [
      'CREATE CONSTRAINT aitia_migration_version IF NOT EXISTS FOR (m:AitiaMigration) REQUIRE m.version IS UNIQUE',
      'CREATE CONSTRAINT resource_id IF NOT EXISTS FOR (r:Resource) REQUIRE r.id IS UNIQUE',
      'CREATE CONSTRAINT event_id IF NOT EXISTS FOR (e:Event) REQUIRE e.id IS UNIQUE',
      'CREATE CONSTRAINT transition_id IF NOT EXISTS FOR (t:Transition) REQUIRE t.id IS UNIQUE',
      'CREATE CONSTRAINT condition_id IF NOT EXISTS FOR (c:Condition) REQUIRE c.id IS UNIQUE',
      'CREATE INDEX resource_kind IF NOT EXISTS FOR (r:Resource) ON (r.kind)',
      'CREATE INDEX resource_name IF NOT EXISTS FOR (r:Resource) ON (r.name)',
      'CREATE INDEX resource_provider IF NOT EXISTS FOR (r:Resource) ON (r.provider)',
      'CREATE INDEX resource_update_tag IF NOT EXISTS FOR (r:Resource) ON (r.updateTag)',
      // The correlator's candidate look-up: events of one resource in a time window.
      'CREATE INDEX event_resource_time IF NOT EXISTS FOR (e:Event) ON (e.resourceId, e.startedAt)',
      'CREATE INDEX event_node_time IF NOT EXISTS FOR (e:Event) ON (e.node, e.startedAt)',
      'CREATE INDEX transition_resource_time IF NOT EXISTS FOR (t:Transition) ON (t.resourceId, t.observedAt)',
      'CREATE INDEX condition_resource_status IF NOT EXISTS FOR (c:Condition) ON (c.resourceId, c.status)',
      'CREATE INDEX condition_status_type IF NOT EXISTS FOR (c:Condition) ON (c.status, c.type)',
    ],
  },
  {
    version: 2,
    name: 'ingest staleness and condition look-ups',
    statements: [
      // Operators list what a complete sync no longer saw: `WHERE r.missingSince IS NOT NULL`.
      'CREATE INDEX resource_missing_since IF NOT EXISTS FOR (r:Resource) ON (r.missingSince)',
      // One open condition per (resource, type): the repository looks it up on every open/resolve.
      'CREATE INDEX condition_resource_type_status IF NOT EXISTS FOR (c:Condition) ON (c.resourceId, c.type, c.status)',
      'CREATE INDEX condition_opened_at IF NOT EXISTS FOR (c:Condition) ON (c.openedAt)',
    ],
  },
  {
    version: 3,
    name: 'health checks',
    statements: [
      'CREATE CONSTRAINT check_id IF NOT EXISTS FOR (c:Check) REQUIRE c.id IS UNIQUE',
      // The scheduler's due-check query: `WHERE c.nextDueAt <= datetime($now) ORDER BY c.nextDueAt`.
      'CREATE INDEX check_next_due IF NOT EXISTS FOR (c:Check) ON (c.nextDueAt)',
      'CREATE INDEX check_resource IF NOT EXISTS FOR (c:Check) ON (c.resourceId)',
    ],
  },
  {
    version: 4,
    name: 'event ingest cursors and transition look-ups',
    statements: [
      // Per-node task cursors of the Proxmox task sync: `(:IngestCursor {id})`.
      'CREATE CONSTRAINT ingest_cursor_id IF NOT EXISTS FOR (c:IngestCursor) REQUIRE c.id IS UNIQUE',
      // Running tasks are re-checked every poll and fetched as candidates whatever their start.
      'CREATE INDEX event_status IF NOT EXISTS FOR (e:Event) ON (e.statusClass)',
      // `transitions` without a resource: newest first across the graph.
      'CREATE INDEX transition_observed_at IF NOT EXISTS FOR (t:Transition) ON (t.observedAt)',
    ],
  },
  {
    version: 7,
    name: 'the feed: sequenced changes for subscribers',
    statements: [
      'CREATE CONSTRAINT feed_entry_seq IF NOT EXISTS FOR (f:FeedEntry) REQUIRE f.seq IS UNIQUE',
      'CREATE INDEX feed_entry_at IF NOT EXISTS FOR (f:FeedEntry) ON (f.at)',
      'CREATE CONSTRAINT feed_counter_id IF NOT EXISTS FOR (c:FeedCounter) REQUIRE c.id IS UNIQUE',
    ],
  },
  {
    version: 8,
    name: 'approvals, grants, authorizations, the kill switch, recorded decisions and the policy in force',
    statements: [
      'CREATE CONSTRAINT approval_id IF NOT EXISTS FOR (a:Approval) REQUIRE a.id IS UNIQUE',
      // A redeem finds its grant by the token's hash; two grants never share one.
      'CREATE CONSTRAINT approval_grant_hash IF NOT EXISTS FOR (a:Approval) REQUIRE a.grantHash IS UNIQUE',
      'CREATE INDEX approval_plan IF NOT EXISTS FOR (a:Approval) ON (a.planId)',
      'CREATE INDEX approval_status_requested IF NOT EXISTS FOR (a:Approval) ON (a.status, a.requestedAt)',
      'CREATE CONSTRAINT action_authorized_id IF NOT EXISTS FOR (x:ActionAuthorized) REQUIRE x.id IS UNIQUE',
      // Cooldowns and the breaker read recent authorizations by target and action, or estate-wide by time.
      'CREATE INDEX action_authorized_target IF NOT EXISTS FOR (x:ActionAuthorized) ON (x.targetId, x.action, x.at)',
      'CREATE INDEX action_authorized_at IF NOT EXISTS FOR (x:ActionAuthorized) ON (x.at)',
      'CREATE CONSTRAINT autonomy_switch_id IF NOT EXISTS FOR (k:AutonomySwitch) REQUIRE k.id IS UNIQUE',
      // replayDecision reads a recorded decision by its id; the policy in force is one record.
      'CREATE CONSTRAINT decision_id IF NOT EXISTS FOR (d:Decision) REQUIRE d.id IS UNIQUE',
      'CREATE CONSTRAINT policy_in_force_id IF NOT EXISTS FOR (p:PolicyInForce) REQUIRE p.id IS UNIQUE',
    ],
  },
  {
    version: 9,
    name: 'leases of the leader-only loops',
    statements: [
      // One lease per leader-only loop (`poll:<source>`, `health-scheduler`), claimed by name.
      'CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (l:Lease) REQUIRE l.name IS UNIQUE',
      // What fenced writes lock and check, apart from the lease so renewals never wait behind them.
      'CREATE CONSTRAINT lease_fence_name IF NOT EXISTS FOR (f:LeaseFence) REQUIRE f.name IS UNIQUE',
    ],
  },
  {
    version: 10,
    name: 'no property indexes a load pass must maintain for reads that do without them',
    statements: [
      // Every resource write paid for these (updateTag's on every row of every pass). Kind filters
      // match the kind's label (token lookup index); provider has 3 values, too few to seek on; the
      // first-sighting read finds a pass's resources by its scope's id prefix (bench/read-plans.ts).
      'DROP INDEX resource_kind IF EXISTS',
      'DROP INDEX resource_provider IF EXISTS',
      'DROP INDEX resource_update_tag IF EXISTS',
    ],
  },
  {
    version: 11,
    name: 'the history of grant redeems',
    statements: [
      // grantRedeems: newest first (`ORDER BY g.at DESC, g.id DESC`) over all, one approval's grant,
      // or one outcome; the keyset cursor compares at, then id.
      'CREATE INDEX grant_redeem_at IF NOT EXISTS FOR (g:GrantRedeem) ON (g.at, g.id)',
      'CREATE INDEX grant_redeem_approval_at IF NOT EXISTS FOR (g:GrantRedeem) ON (g.approvalId, g.at)',
      'CREATE INDEX grant_redeem_outcome_at IF NOT EXISTS FOR (g:GrantRedeem) ON (g.outcome, g.at)',
    ],
  },
  {
    version: 12,
    name: 'log coverage and typed unknowns',
    statements: [
      // One node per log stream (a node's task list, a vCenter's event log): what was read completely.
      'CREATE CONSTRAINT log_stream_id IF NOT EXISTS FOR (s:LogStream) REQUIRE s.id IS UNIQUE',
      'CREATE INDEX log_stream_source IF NOT EXISTS FOR (s:LogStream) ON (s.source)',
      'CREATE INDEX log_stream_api IF NOT EXISTS FOR (s:LogStream) ON (s.apiUrl)',
      // Transitions a later complete read may explain again: `WHERE t.unknownReason = 'log_not_read'`.
      'CREATE INDEX transition_unknown_reason IF NOT EXISTS FOR (t:Transition) ON (t.unknownReason)',
    ],
  },
  {
    version: 13,
    name: 'transitions credited to an authorization',
    statements: [
      // Which authorization already explains which event: the correlator reads it by the entry's id.
      'CREATE INDEX transition_authorization IF NOT EXISTS FOR (t:Transition) ON (t.authorizationId)',
    ],
  },
];

export interface MigrationResult {
  applied: number[];
  alreadyApplied: number[];
}

/** Two processes creating the same rule at once: one of them is told it already exists. */
function alreadyExists(code: string): boolean {
  return /EquivalentSchemaRuleAlreadyExists|ConstraintAlreadyExists|IndexAlreadyExists/.test(code);
}

async function runSchemaStatement(driver: Driver, statement: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await driver.executeQuery(statement);
      return;
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (alreadyExists(code)) return;
      if (code.startsWith('Neo.TransientError') && attempt < 5) {
        await new Promise((r) => setTimeout(r, 100 * attempt));
        continue;
      }
      throw err;
    }
  }
}

/**
 * Applies every migration not yet recorded, in order, and records each as an `AitiaMigration`
 * node. Safe to run twice, or from two processes at once: statements are idempotent and the
 * record is a MERGE on a unique version.
 */
export async function migrate(driver: Driver, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationResult> {
  const { records } = await driver.executeQuery('MATCH (m:AitiaMigration) RETURN m.version AS v');
  const done = new Set(records.map((r) => Number(r.get('v'))));
  const result: MigrationResult = { applied: [], alreadyApplied: [] };
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) {
      result.alreadyApplied.push(m.version);
      continue;
    }
    for (const s of m.statements) await runSchemaStatement(driver, s);
    await driver.executeQuery('CALL db.awaitIndexes(300)');
    await driver.executeQuery(
      'MERGE (m:AitiaMigration {version: $version}) ON CREATE SET m.name = $name, m.appliedAt = datetime()',
      { version: m.version, name: m.name },
    );
    result.applied.push(m.version);
  }
  return result;
}

/** The latest version recorded in the graph, or 0; `/readyz` compares it with the code's. */
export async function appliedVersion(driver: Driver): Promise<number> {
  const { records } = await driver.executeQuery('MATCH (m:AitiaMigration) RETURN max(m.version) AS v');
  const v = records[0]?.get('v');
  return v == null ? 0 : Number(v);
}

export const LATEST_MIGRATION = Math.max(...MIGRATIONS.map((m) => m.version));
