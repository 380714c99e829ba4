import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { createRelationship } from '../graph/edges.js';
import { foreignInDemoScope, markDemoOwned, resetDemoScope } from '../graph/resources/demo-scope.js';
import { resolveResource } from '../graph/resources/read.js';
import { upsertResources } from '../graph/resources/upsert.js';
import { AitiaError, resourceId, type TransitionRecord } from '../model/index.js';
import { createProxmoxClient } from '../ingest/proxmox/client.js';
import type { CorrelationDeps } from '../pipeline/correlate.js';
import { observe } from '../pipeline/observe.js';
import { proxmoxSource } from '../ingest/proxmox/source.js';
import { newUpdateTag } from '../ingest/report.js';
import { HomelabRoutes } from './homelab-routes.js';
import { startProxmoxStandin } from './proxmox-standin.js';
import { BASELINE_AT, DEMO_CLUSTER, DEMO_SERVICES, STORY } from './story.js';

export interface DemoResult {
  resources: number;
  transitions: Array<{ step: string; transition: TransitionRecord }>;
}

/** Who declared the demo's services and their edges (an agent would have, after reading configs). */
export const DEMO_DECLARER = 'demo-setup';

const serviceId = (name: string) => resourceId('manual', 'service', name);

/**
 * Loads the demo homelab through the real ingest path and plays its story: a local Proxmox
 * stand-in on 127.0.0.1 serves the recorded answers; each step is one scheduler state poll (task
 * ingest → inventory → correlator → gate) at the step's recorded time. Replays from a clean slate.
 */
export async function runDemo(
  deps: CorrelationDeps,
  options: {
    print: (line: string) => void;
    /** The demo runs on its own embedded Neo4j: nothing in it can be anyone else's. */
    ownDatabase?: boolean;
  },
): Promise<DemoResult> {
  const { print } = options;
  const { driver } = deps;
  const prefix = `proxmox:${DEMO_CLUSTER}/`;
  const ids = DEMO_SERVICES.map((s) => serviceId(s.name));
  const ownDatabase = options.ownDatabase ?? false;
  // Only what the demo wrote and nothing real has observed since is the demo's (graph/resources/demo-scope.ts).
  const foreign = ownDatabase ? { count: 0, example: null } : await foreignInDemoScope(driver, prefix, ids);
  const removed = await resetDemoScope(driver, prefix, ids, { everything: ownDatabase });
  if (foreign.count > 0) {
    // Replaying would rewrite them and its complete passes would mark the real ones missing.
    throw new AitiaError(
      'BAD_USER_INPUT',
      `demo: this database already holds ${foreign.count} resource(s) the demo did not create or that a real source has observed since (e.g. ${foreign.example}), under ${prefix} or named like its services — a real cluster named ${DEMO_CLUSTER}? The demo removed only its own (${removed} node(s)), will not delete them and will not replay over them: run it on its own embedded Neo4j (unset NEO4J_URI) or on a database without them.`,
    );
  }
  const routes = new HomelabRoutes();
  const standin = await startProxmoxStandin({ routes: routes.table });
  const client = createProxmoxClient({
    baseUrl: standin.url,
    token: standin.token,
    timeoutMs: 5000,
    retries: 1,
    backoffMs: 50,
  });
  const result: DemoResult = { resources: 0, transitions: [] };
  // Each step is observed at its recorded time, through the same pipeline a live poll uses.
  const poll = (at: string) =>
    observe(
      deps,
      proxmoxSource(client, {
        inventory: { observedAt: at },
        tasks: { now: () => DateTime.fromISO(at, { zone: 'utc' }) },
      }),
    );
  try {
    print(`demo: a Proxmox stand-in at ${standin.url} serves the recorded homelab (3 nodes, 10 guests)`);
    const baseline = await poll(BASELINE_AT);
    await markDemoOwned(driver, baseline.report.updateTag);
    result.resources = baseline.report.resources.written;
    print(
      `demo: ${BASELINE_AT} first poll: ${baseline.report.resources.written} resources, ${baseline.report.edges.written} edges (a first sighting is not a transition)`,
    );
    await declareServices(driver);
    print(`demo: declared ${DEMO_SERVICES.length} services and what they run on and depend on`);
    for (const step of STORY) {
      routes.apply(step);
      standin.routes(routes.table);
      const r = await poll(step.observeAt);
      await markDemoOwned(driver, r.report.updateTag);
      for (const t of r.correlation.created) {
        result.transitions.push({ step: step.title, transition: t });
        print(`demo: ${step.observeAt} ${step.title}\n      ${t.narrative}`);
      }
      for (const e of r.correlation.errors)
        print(`demo: ${step.title}: could not explain ${e.resourceId}: ${e.message}`);
    }
  } finally {
    client.close();
    await standin.close();
  }
  return result;
}

async function declareServices(driver: Driver): Promise<void> {
  const updateTag = newUpdateTag('demo');
  await upsertResources(
    driver,
    DEMO_SERVICES.map((s) => ({
      id: serviceId(s.name),
      kind: 'service',
      provider: 'manual',
      name: s.name,
      state: 'unknown',
      rawState: null,
    })),
    { updateTag },
  );
  await markDemoOwned(driver, updateTag);
  for (const s of DEMO_SERVICES) {
    const host = await resolveResource(driver, { slug: s.runsOn });
    await createRelationship(driver, {
      type: 'RUNS_ON',
      fromId: serviceId(s.name),
      toId: host.id,
      provenance: 'declared',
      source: DEMO_DECLARER,
      evidence: s.evidence,
    });
    for (const dep of s.dependsOn) {
      const target = await resolveResource(driver, { slug: dep });
      await createRelationship(driver, {
        type: 'DEPENDS_ON',
        fromId: serviceId(s.name),
        toId: target.id,
        provenance: 'declared',
        source: DEMO_DECLARER,
        evidence: s.evidence,
      });
    }
  }
}
