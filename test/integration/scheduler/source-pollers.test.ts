import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relationsOf } from '../../../src/graph/edges.js';
import { listSources } from '../../../src/graph/sources.js';
import { createIdentityTracker } from '../../../src/ingest/identity/incremental.js';
import { refXml, textXml } from '../../../src/ingest/vcenter/client.js';
import { child } from '../../../src/ingest/vcenter/xml.js';
import { type SourcePollers, startSourcePollers } from '../../../src/scheduler/source-pollers.js';
import { loadSourcesFile } from '../../../src/sources-file.js';
import { useGraph } from '../../support/graph.js';
import { labRoutes, patchData } from '../../support/proxmox-lab.js';
import { type ProxmoxStandin, startProxmoxStandin } from '../../support/proxmox-standin.js';
import { startTestServer } from '../../support/server.js';
import { startVcsim, type Vcsim, vcsimOrSkip } from '../../support/vcsim.js';
import { until } from '../../support/until.js';

const bin = vcsimOrSkip();
const { driver, scope } = useGraph();
const names = { a: `pa-${scope}`, b: `pb-${scope}`, vc: `vc-${scope}` };
const clusters = { a: `lab-a-${scope}`, b: `lab-b-${scope}` };

/** The UUID vcsim gives its first host, read through the API (what a nested ESXi reports). */
async function firstHostUuid(sim: Vcsim): Promise<{ moref: string; uuid: string }> {
  const client = sim.client();
  const sc = await client.serviceContent();
  const view = child(
    await client.call(
      'CreateContainerView',
      sc.viewManager,
      refXml('container', sc.rootFolder) + textXml('type', 'HostSystem') + textXml('recursive', true),
    ),
    'returnval',
  )!;
  const spec =
    '<specSet><propSet><type>HostSystem</type><pathSet>hardware.systemInfo.uuid</pathSet></propSet><objectSet>' +
    `${refXml('obj', { type: 'ContainerView', value: view.text })}<skip>true</skip><selectSet xsi:type="TraversalSpec">` +
    '<name>v</name><type>ContainerView</type><path>view</path><skip>false</skip></selectSet></objectSet></specSet><options/>';
  const first = child(
    child(await client.call('RetrievePropertiesEx', sc.propertyCollector, spec), 'returnval')!,
    'objects',
  )!;
  return { moref: child(first, 'obj')!.text, uuid: child(child(first, 'propSet')!, 'val')!.text };
}

describe.skipIf(!bin)('many sources from a sources file, polled at once', () => {
  let sim: Vcsim;
  let pa: ProxmoxStandin;
  let pb: ProxmoxStandin;
  let running: SourcePollers | null = null;
  let dir: string;
  const lines: string[] = [];
  const passes: Record<string, Array<{ at: number; started: number; complete: boolean }>> = {};
  let esx: { moref: string; uuid: string };

  beforeAll(async () => {
    sim = await startVcsim(bin!);
    esx = await firstHostUuid(sim);
    [pa, pb] = await Promise.all([startProxmoxStandin(), startProxmoxStandin()]);
    pa.routes(labRoutes(clusters.a));
    const routesB = labRoutes(clusters.b);
    // In lab B, VM 130 is a nested ESXi: its SMBIOS UUID is the vcsim host's.
    patchData(routesB, 'GET /nodes/pve3/qemu/130/config', { smbios1: `uuid=${esx.uuid}` });
    pb.routes(routesB);
    dir = mkdtempSync(join(tmpdir(), 'aitia-sources-'));
    writeFileSync(join(dir, 'vc.secret'), 'pass\n');
    writeFileSync(
      join(dir, 'sources.yaml'),
      [
        'sources:',
        `  - { name: ${names.a}, kind: proxmox, url: "${pa.url}", token: "${pa.token}", poll_seconds: 5 }`,
        `  - { name: ${names.b}, kind: proxmox, url: "${pb.url}", token: "${pb.token}", poll_seconds: 5 }`,
        `  - name: ${names.vc}`,
        '    kind: vcenter',
        `    url: "${sim.url}"`,
        '    username: aitia-reader',
        `    password_file: ${join(dir, 'vc.secret')}`,
        '    poll_seconds: 5',
        `  - { name: vc-nocreds-${scope}, kind: vcenter, url: "https://vc02.invalid" }`,
      ].join('\n'),
      { mode: 0o600 },
    );
  });
  afterAll(async () => {
    await running?.stop();
    sim?.kill();
    await Promise.all([pa?.close(), pb?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('polls every source on its own timer, says which it does not poll, and links the nested ESXi within one poll', async () => {
    const specs = loadSourcesFile(join(dir, 'sources.yaml'));
    expect(specs.map((s) => `${s.kind} ${s.name} ${s.missing ?? 'ok'}`)).toEqual([
      `proxmox ${names.a} ok`,
      `proxmox ${names.b} ok`,
      `vcenter ${names.vc} ok`,
      `vcenter vc-nocreds-${scope} no credentials (username and password or password_file)`,
    ]);
    const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s).msg as string) });
    running = await startSourcePollers({
      deps: { driver, suppression: 'shadow' },
      specs,
      log,
      tuning: { configRefreshSeconds: 3600, agentSeconds: 86_400, maxConcurrentRequests: 4 },
      identity: createIdentityTracker({
        idPrefixes: [`proxmox:${clusters.a}/`, `proxmox:${clusters.b}/`, `vcenter:${specs[2]!.name}/`],
      }),
      onObservation: (name, o) =>
        (passes[name] ??= []).push({
          at: Date.now(),
          started: Date.parse(o.report.startedAt),
          complete: o.report.complete,
        }),
    });
    expect(lines).toContain(`proxmox ${names.a}: polling every 5 s`);
    expect(lines).toContain(`vcenter ${names.vc}: polling every 5 s`);
    expect(lines).toContain(
      `vcenter vc-nocreds-${scope}: no credentials (username and password or password_file) — not polled`,
    );
    // Generous: a first pass on a cold graph on a busy 2-core machine can take half a minute.
    await until('a first pass of each source', 240_000, () => Object.keys(passes).length === 3, { everyMs: 250 });
    for (const n of [names.a, names.b, names.vc]) expect(passes[n]![0]!.complete).toBe(true);
    // The first complete pass of both sides is enough: no manual resolver run.
    const host = `vcenter:${names.vc}/host/${esx.moref}`;
    await until(
      'the MANIFESTS_AS edge',
      60_000,
      async () => {
        const edges = await relationsOf(driver, host, { types: ['MANIFESTS_AS'], direction: 'OUT' });
        return edges.some((e) => e.toId === `proxmox:${clusters.b}/qemu/130` && e.rule === 'smbios_uuid');
      },
      { everyMs: 250 },
    );
    const sources = await listSources(driver);
    const mine = sources.filter((s) => s.name.includes(scope));
    expect(mine.map((s) => [s.name, s.kind, s.status])).toEqual(
      [
        [names.a, 'proxmox', 'polling'],
        [names.b, 'proxmox', 'polling'],
        [names.vc, 'vcenter', 'polling'],
        [`vc-nocreds-${scope}`, 'vcenter', 'disabled'],
      ].sort((x, y) => x[0]!.localeCompare(y[0]!)),
    );
    expect(mine.find((s) => s.name === names.vc)!.lastCompletePass).not.toBeNull();
  }, 400_000);

  it('a source that hangs delays no other: their passes stay on time', async () => {
    pa.fault(/.*/, { kind: 'hang' });
    const start = Date.now();
    // Two more passes of each other source, while the hung one (10 s timeout, 2 retries) finishes none.
    await until(
      'two passes of the other sources',
      120_000,
      () => [names.b, names.vc].every((n) => passes[n]!.filter((p) => p.at > start).length >= 2),
      { everyMs: 250 },
    );
    // On time: a poller waiting on the hung one would need its first call to fail 3 × 10 s first.
    expect(Date.now() - start).toBeLessThan(28_000);
    for (const n of [names.b, names.vc])
      expect(passes[n]!.filter((p) => p.at > start).every((p) => p.complete)).toBe(true);
    // A pass already past its reads when the fault came may still finish; none started later does.
    expect((passes[names.a] ?? []).filter((p) => p.started > start && p.complete)).toEqual([]);
    const sources = await listSources(driver);
    expect(sources.find((s) => s.name === names.b)!.lastError).toBeNull();
  }, 200_000);

  it('after a restart without one source: it is reported removed, and a withdrawn fact withdraws the edge', async () => {
    pa.clearFaults();
    // Lab B's VM 130 has its recorded UUID again: the shared identity fact is gone.
    pb.routes(labRoutes(clusters.b));
    const host = `vcenter:${names.vc}/host/${esx.moref}`;
    await running!.stop();
    running = await startSourcePollers({
      deps: { driver, suppression: 'shadow' },
      specs: loadSourcesFile(join(dir, 'sources.yaml')).filter((s) => s.name !== names.a),
      log: pino({ level: 'silent' }),
      tuning: { configRefreshSeconds: 3600, agentSeconds: 86_400, maxConcurrentRequests: 4 },
      identity: createIdentityTracker({
        idPrefixes: [`proxmox:${clusters.a}/`, `proxmox:${clusters.b}/`, `vcenter:${names.vc}/`],
      }),
    });
    await until(
      'the MANIFESTS_AS edge withdrawn',
      240_000,
      async () => {
        const edges = await relationsOf(driver, host, { types: ['MANIFESTS_AS'], direction: 'OUT' });
        return edges.length === 0;
      },
      { everyMs: 250 },
    );
    const removed = (await listSources(driver)).find((s) => s.name === names.a)!;
    expect(removed.status).toBe('removed');
    // The same through GraphQL, for an agent.
    const server = await startTestServer(driver, { tokenPrefix: scope });
    try {
      const { body } = await server.gql(
        server.tokens.agent,
        '{ sources { name kind status lastPassAt lastCompletePass lastError } }',
      );
      const mine = (body.data.sources as Array<Record<string, unknown>>).filter((x) => String(x.name).includes(scope));
      expect(mine.map((x) => `${String(x.name)} ${String(x.kind)} ${String(x.status)}`)).toEqual([
        `${names.a} proxmox removed`,
        `${names.b} proxmox polling`,
        `vc-nocreds-${scope} vcenter disabled`,
        `${names.vc} vcenter polling`,
      ]);
      expect(mine.find((x) => x.name === names.vc)).toMatchObject({
        lastCompletePass: expect.stringMatching(/Z$/),
        lastError: null,
      });
      expect(mine.find((x) => x.name === `vc-nocreds-${scope}`)!.lastError).toMatch(/no credentials/);
    } finally {
      await server.close();
    }
  }, 300_000);
});
