import { DateTime } from 'luxon';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../../src/demo/run-demo.js';
import { DEMO_SERVICES } from '../../../src/demo/story.js';
import { declareManualResource } from '../../../src/graph/resources/declared.js';
import { resetScope } from '../../../src/graph/resources/demo-scope.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { newUpdateTag } from '../../../src/ingest/report.js';
import { useGraph } from '../../support/graph.js';

/**
 * The demo shares a Neo4j with real sources: its reset deletes only what it wrote and nothing real
 * has observed since, never a real cluster named like its own (`proxmox:homelab/`).
 */
const { driver } = useGraph();
const PREFIX = 'proxmox:homelab/';
const SERVICE_IDS = DEMO_SERVICES.map((s) => `manual:service/${s.name}`);
const deps = { driver, suppression: 'shadow' as const };
const quiet = { print: () => {} };

async function ids(): Promise<string[]> {
  const { records } = await driver.executeQuery(
    'MATCH (r:Resource) WHERE r.id STARTS WITH $prefix OR r.id IN $ids RETURN r.id AS id ORDER BY id',
    { prefix: PREFIX, ids: SERVICE_IDS },
  );
  return records.map((r) => r.get('id') as string);
}

async function count(cypher: string, params: Record<string, unknown>): Promise<number> {
  const { records } = await driver.executeQuery(cypher, params);
  return Number(records[0]!.get('n'));
}

/** A real source's write of one resource: a provider pass's upsert with its own tag, now. */
async function realObservation(id: string, kind: 'host' | 'vm', name: string, state: string): Promise<void> {
  await upsertResources(driver, [{ id, kind, provider: 'proxmox', name, state, rawState: state }], {
    updateTag: newUpdateTag('proxmox'),
    observedAt: DateTime.utc().toISO(),
  });
}

afterAll(() => resetScope(driver, [PREFIX], SERVICE_IDS));

describe('the demo deletes only its own nodes', () => {
  it('keeps a real cluster named like its own, and what a real source has observed since, on a later run', async () => {
    await resetScope(driver, [PREFIX], SERVICE_IDS);
    await runDemo(deps, quiet);
    const demoIds = await ids();
    expect(demoIds.length).toBeGreaterThan(10);
    const web01 = demoIds.find((id) => /\/qemu\/101$/.test(id))!;
    expect(web01).toBeDefined();
    const dbGuest = demoIds.find((id) => /\/qemu\/113$/.test(id))!;
    expect(await count('MATCH (e:Event) WHERE e.resourceId = $id RETURN count(e) AS n', { id: web01 })).toBe(1);

    // A real cluster named homelab arrives: a node the demo never had, and a real poll that sees web01.
    const realHost = `${PREFIX}node/real-pve9`;
    await realObservation(realHost, 'host', 'real-pve9', 'online');
    await realObservation(web01, 'vm', 'web01', 'running');
    // An agent declares (refreshes) a service the demo also declared: someone real vouches for it now.
    await declareManualResource(driver, 'manual:service/dns', {
      kind: 'service',
      name: 'dns',
      runsOnId: null,
      attributes: {},
      declaredBy: 'agent-real',
      evidence: 'unbound on the real dns01',
      at: DateTime.utc().toISO(),
    });

    await expect(runDemo(deps, quiet)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: expect.stringMatching(/already holds 3 resource\(s\) the demo did not create .*will not delete them/),
    });
    const after = await ids();
    // The real ones survive, with what the real source wrote; the demo's own are gone.
    expect(after).toEqual([web01, 'manual:service/dns', realHost].sort());
    const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN r.state AS s', { id: web01 });
    expect(records[0]!.get('s')).toBe('running');
    expect(after).not.toContain(dbGuest);
    expect(await count('MATCH (e:Event) WHERE e.resourceId = $id RETURN count(e) AS n', { id: dbGuest })).toBe(0);
    expect(await count('MATCH (t:Transition) WHERE t.resourceId = $id RETURN count(t) AS n', { id: dbGuest })).toBe(0);
    // What hangs off an adopted resource stays with it.
    expect(await count('MATCH (e:Event) WHERE e.resourceId = $id RETURN count(e) AS n', { id: web01 })).toBe(1);

    // Once the real ones are gone, the demo replays from a clean slate again.
    await resetScope(driver, [PREFIX], SERVICE_IDS);
    const replay = await runDemo(deps, quiet);
    expect(replay.transitions.length).toBe(4);
    expect((await ids()).length).toBe(demoIds.length);
  }, 240_000);

  it('a scope marker of an earlier version licenses no deletion: unmarked resources under the prefix are kept', async () => {
    await resetScope(driver, [PREFIX], SERVICE_IDS);
    await driver.executeQuery("MERGE (m:DemoScope {prefix: 'proxmox:homelab/'}) SET m.claimedAt = datetime()");
    const real = `${PREFIX}node/real-pve1`;
    await realObservation(real, 'host', 'real-pve1', 'online');
    await expect(runDemo(deps, quiet)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(await ids()).toEqual([real]);
    // On its own embedded database everything is the demo's: the scope is reset and replayed.
    const replay = await runDemo(deps, { ...quiet, ownDatabase: true });
    expect(replay.transitions.length).toBe(4);
    expect(await ids()).not.toContain(real);
  }, 240_000);
});
