import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResourceById } from '../../../../src/graph/resources/read.js';
import { vcenterServiceId } from '../../../../src/ingest/vcenter/adapter-condition.js';
import { observe } from '../../../../src/pipeline/observe.js';
import { vcenterSource } from '../../../../src/ingest/vcenter/source.js';
import { useGraph } from '../../../support/graph.js';
import { runTask, startVcsim, type Vcsim, vcsimOrSkip, vmRefs } from '../../../support/vcsim.js';

const bin = vcsimOrSkip();
const { driver, scope } = useGraph();
const server = `vc-${scope}`;
const deps = () => ({ driver, suppression: 'shadow' as const });
const id = (segment: string, moref: string) => `vcenter:${server}/${segment}/${moref}`;

async function edges(type: string): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (a:Resource)-[e]->(b:Resource) WHERE type(e) = $type AND a.id STARTS WITH $prefix AND e.missingSince IS NULL
     RETURN a.name + ' -> ' + b.name AS e ORDER BY e`,
    { type, prefix: `vcenter:${server}/` },
  );
  return records.map((r) => r.get('e') as string);
}

async function openAdapterConditions(): Promise<number> {
  const { records } = await driver.executeQuery(
    `MATCH (c:Condition {resourceId: $id, type: 'adapter_unreachable', status: 'open'}) RETURN count(c) AS n`,
    { id: vcenterServiceId(server) },
  );
  return Number(records[0]!.get('n'));
}

describe.skipIf(!bin)('vCenter polled through the vSphere API (vcsim)', () => {
  let sim: Vcsim;
  beforeAll(async () => {
    sim = await startVcsim(bin!);
  });
  afterAll(() => sim?.kill());
  const source = () => vcenterSource(sim.client(), { server });

  it('a first pass loads VMs, hosts, clusters and datastores with RUNS_ON, MEMBER_OF and STORED_ON', async () => {
    const o = await observe(deps(), source());
    expect(o.report.errors).toEqual([]);
    expect(o.report.complete).toBe(true);
    const { records } = await driver.executeQuery(
      'MATCH (r:Resource) WHERE r.id STARTS WITH $prefix RETURN r.kind AS kind, count(r) AS n ORDER BY kind',
      { prefix: `vcenter:${server}/` },
    );
    expect(Object.fromEntries(records.map((r) => [r.get('kind'), Number(r.get('n'))]))).toEqual({
      cluster: 1,
      host: 4,
      service: 1,
      storage: 1,
      vm: 4,
    });
    expect(await edges('RUNS_ON')).toHaveLength(4);
    expect(await edges('STORED_ON')).toEqual(
      ['DC0_C0_RP0_VM0', 'DC0_C0_RP0_VM1', 'DC0_H0_VM0', 'DC0_H0_VM1'].map((v) => `${v} -> LocalDS_0`),
    );
    expect(await edges('MEMBER_OF')).toEqual(['DC0_C0_H0', 'DC0_C0_H1', 'DC0_C0_H2'].map((h) => `${h} -> DC0_C0`));
    const vm = await getResourceById(driver, id('vm', (await vmRefs(sim.client())).get('DC0_H0_VM0')!.value));
    expect(vm).toMatchObject({ kind: 'vm', state: 'running', rawState: 'poweredOn/connected' });
    expect(vm!.attributes.smbios_uuid).toMatch(/^[0-9a-f-]{36}$/);
    const svc = await getResourceById(driver, vcenterServiceId(server));
    expect(svc).toMatchObject({ state: 'up', attributes: expect.objectContaining({ api_url: sim.url }) });
  });

  it('a power-off by a named user becomes a transition attributed to that user at high confidence', async () => {
    const alice = sim.client('alice');
    const vm = (await vmRefs(alice)).get('DC0_H0_VM1')!;
    await runTask(alice, 'PowerOffVM_Task', vm);
    const o = await observe(deps(), source());
    expect(o.report.complete).toBe(true);
    expect(o.correlation.created).toHaveLength(1);
    const t = o.correlation.created[0]!;
    expect(t).toMatchObject({ resourceId: id('vm', vm.value), from: 'running', to: 'stopped' });
    expect(t.attribution).toMatchObject({ confidence: 'high', actor: 'alice', actorKind: 'human' });
  });

  it('reads each event once, across a restart, and skips none', async () => {
    const again = await observe(deps(), source());
    expect(again.extra.created).toBe(0);
    // The window reaches back before the cursor: the events of the pass before are listed again.
    expect(again.extra.alreadySeen).toBeGreaterThan(1);
    expect(again.correlation.created).toEqual([]);
    const bob = sim.client('bob');
    const vm = (await vmRefs(bob)).get('DC0_H0_VM1')!;
    await runTask(bob, 'PowerOnVM_Task', vm);
    // A new source and client: what a restarted process has; the cursor is in the graph.
    const o = await observe(deps(), vcenterSource(sim.client(), { server }));
    expect(o.extra.created).toBeGreaterThan(0);
    expect(o.extra.alreadySeen).toBeGreaterThan(0);
    const { records } = await driver.executeQuery(
      `MATCH (e:Event) WHERE e.id STARTS WITH $prefix RETURN e.type AS type, e.actor AS actor, e.id AS id ORDER BY id`,
      { prefix: `vcenter:${server}/event/` },
    );
    const events = records.map((r) => `${r.get('type') as string} ${(r.get('actor') as string | null) ?? '-'}`);
    expect(events).toContain('vm_stop alice');
    expect(events).toContain('vm_start bob');
    expect(o.correlation.created[0]?.attribution).toMatchObject({ confidence: 'high', actor: 'bob' });
  });

  it('a session the server no longer knows is re-established once (NotAuthenticated → Login)', async () => {
    const logins: string[] = [];
    const client = sim.client('carol', { onAnswer: (m) => void (m === 'Login' && logins.push(m)) });
    const sc = await client.serviceContent();
    expect((await vmRefs(client)).size).toBe(4);
    // Ends the session behind the client's back: its cookie is now unknown to the server.
    await client.call('Logout', sc.sessionManager);
    expect((await vmRefs(client)).size).toBe(4);
    expect(logins).toEqual(['Login', 'Login']);
  });

  it('vcsim killed mid-pass: nothing is marked missing and adapter_unreachable opens', async () => {
    const killer = sim.client('aitia-reader', {
      onAnswer: (method) => {
        if (method === 'RetrievePropertiesEx') sim.kill();
      },
    });
    const o = await observe(deps(), vcenterSource(killer, { server, pageSize: 2 }));
    expect(o.report.complete).toBe(false);
    expect(o.report.errors[0]?.message).toMatch(/ContinueRetrievePropertiesEx|ECONNREFUSED|closed/);
    expect(o.report.markedMissing).toBe(0);
    const { records } = await driver.executeQuery(
      `MATCH (r:Resource) WHERE r.id STARTS WITH $prefix AND r.lifecycle = 'missing' RETURN count(r) AS n`,
      { prefix: `vcenter:${server}/` },
    );
    expect(Number(records[0]!.get('n'))).toBe(0);
    expect(await openAdapterConditions()).toBe(1);
    expect(o.report.conditions.opened).toHaveLength(1);
  });
});
