import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { DEMO_SERVICES } from '../../src/demo/story.js';
import { resetScope } from '../../src/graph/resources/demo-scope.js';
import { consoleDir } from '../../src/server/console.js';
import { readWarmUpDocuments, WARM_UP_PRINCIPAL } from '../../src/server/console-warm-up.js';
import { ensureConsoleBuilt } from '../support/console-browser.js';
import { useGraph } from '../support/graph.js';
import { waitForLog } from '../support/log-capture.js';
import { startTestServer, type TestServer } from '../support/server.js';

/*
 * The console warm-up `aitia serve` runs once it listens (console-warm-up.ts): on the demo it runs
 * every document the console's build listed (console/src/queries.ts WARM_UP) without a failure, through the server's own yoga, and leaves the graph exactly
 * as it was: no node, relationship or property changed and no audit line written.
 */
const { driver } = useGraph();
const servers: TestServer[] = [];

/** Every node's labels and properties and every relationship, hashed in a stable order. */
async function graphDigest(): Promise<{ digest: string; nodes: number; audit: number }> {
  const { records } = await driver.executeQuery(
    `MATCH (n) OPTIONAL MATCH (n)-[r]->(m)
     WITH n, collect([type(r), properties(r), elementId(m)]) AS out
     RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props, out ORDER BY id`,
  );
  const hash = createHash('sha256');
  let audit = 0;
  for (const r of records) {
    hash.update(JSON.stringify([r.get('id'), r.get('labels'), r.get('props'), r.get('out')]));
    if ((r.get('labels') as string[]).includes('AuditEntry')) audit += 1;
  }
  return { digest: hash.digest('hex'), nodes: records.length, audit };
}

beforeAll(async () => {
  ensureConsoleBuilt();
  await runDemo({ driver, suppression: 'shadow' }, { print: () => {} });
}, 180_000);
afterAll(async () => {
  for (const s of servers) await s.close();
  await resetScope(
    driver,
    ['proxmox:homelab/'],
    DEMO_SERVICES.map((s) => `manual:service/${s.name}`),
  );
});

describe('the console warm-up', () => {
  // compileAfter 0 runs each query once (compiled); 1 runs it twice (interpreted, then compiled), as serve does.
  it.each([0, 1])(
    'runs every console query and writes nothing (compileAfter %i)',
    async (compileAfter) => {
      const before = await graphDigest();
      expect(before.nodes).toBeGreaterThan(10);
      const warm = waitForLog('console queries warmed');
      servers.push(await startTestServer(driver, { log: warm.log, http: { warmUp: true, compileAfter } }));
      const report = await warm.seen;
      expect(report.failed).toEqual([]);
      // Every document the console's build wrote (console/src/queries.ts), and the pick of a
      // resource for the resource page's (the demo has a host).
      const documents = readWarmUpDocuments(consoleDir());
      expect(documents.map((d) => d.name)).toEqual(
        expect.arrayContaining(['timeline', 'conditions', 'resource', 'resource by slug', 'graph', 'incident']),
      );
      expect(report.documents).toBe(documents.length + 1);
      const after = await graphDigest();
      expect(after).toEqual(before);
      const { records } = await driver.executeQuery('MATCH (a:AuditEntry {principal: $name}) RETURN count(a) AS n', {
        name: WARM_UP_PRINCIPAL.name,
      });
      expect(records[0]!.get('n').toNumber()).toBe(0);
    },
    120_000,
  );
});
