import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsCommand } from '../../../../src/cli/events.js';
import type { CliContext } from '../../../../src/cli/context.js';
import { loadConfig } from '../../../../src/config.js';
import { getEventsByIds } from '../../../../src/graph/events.js';
import { upsertResources } from '../../../../src/graph/resources/upsert.js';
import { importVcenterEvents } from '../../../../src/ingest/vcenter/events-import.js';
import { createLogger } from '../../../../src/log.js';
import { useGraph } from '../../../support/graph.js';

const { driver, scope } = useGraph();
const server = `vc-${scope}`;
const dir = mkdtempSync(join(tmpdir(), 'aitia-vc-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ref = (type: string, value: string) => ({ _typeName: 'ManagedObjectReference', type, value });
const vmomi = [
  {
    _typeName: 'VmPoweredOffEvent',
    key: 9902,
    chainId: 9895,
    createdTime: '2026-05-14T02:08:30.5Z',
    userName: 'VSPHERE.LOCAL\\alice',
    vm: { name: 'web-01', vm: ref('VirtualMachine', 'vm-101') },
    host: { name: 'esx1', host: ref('HostSystem', 'host-21') },
  },
  {
    _typeName: 'HostConnectionLostEvent',
    key: 9903,
    createdTime: '2026-05-14T02:09:00Z',
    userName: '',
    host: { name: 'esx1', host: ref('HostSystem', 'host-21') },
  },
];
const pascal = {
  specversion: '1.0',
  type: 'com.vmware.vsphere.VmPoweredOnEvent.v0',
  data: {
    Key: 9910,
    CreatedTime: '2026-05-14T02:10:00Z',
    UserName: '',
    Vm: { Name: 'web-01', Vm: { Type: 'VirtualMachine', Value: 'vm-101' } },
  },
};

describe('importVcenterEvents', () => {
  it('imports VMOMI JSON and PascalCase CloudEvents, links known resources, and is idempotent', async () => {
    await upsertResources(driver, [
      { id: `vcenter:${server}/vm/vm-101`, kind: 'vm', provider: 'vcenter', name: `web-01-${scope}`, state: 'running' },
    ]);
    const report = await importVcenterEvents(driver, { events: [...vmomi, pascal, { key: 'x' }] }, { server });
    expect(report).toMatchObject({
      scope: `vcenter:${server}`,
      fetched: 4,
      complete: true,
      events: { transformed: 3, written: 3, created: 3, updated: 0 },
    });
    expect(report.skipped).toEqual([
      { what: 'row', id: 'events[3]', reason: expect.stringMatching(/event class unknown/) },
    ]);
    const [off, lost, on] = await getEventsByIds(driver, [
      `vcenter:${server}/event/9902`,
      `vcenter:${server}/event/9903`,
      `vcenter:${server}/event/9910`,
    ]);
    expect(off).toMatchObject({
      type: 'vm_stop',
      actor: 'VSPHERE.LOCAL\\alice',
      actorKind: 'human',
      resourceId: `vcenter:${server}/vm/vm-101`,
      startedAt: '2026-05-14T02:08:30.500Z',
      chainId: '9895',
    });
    expect(lost).toMatchObject({
      type: 'host_connection_lost',
      actorKind: 'system',
      resourceId: `vcenter:${server}/host/host-21`,
    });
    expect(on).toMatchObject({ type: 'vm_start', actor: null, actorKind: 'system' });
    const { records } = await driver.executeQuery(
      'MATCH (e:Event)-[:CONCERNS]->(r:Resource {id: $id}) RETURN e.id AS id ORDER BY id',
      { id: `vcenter:${server}/vm/vm-101` },
    );
    expect(records.map((r) => r.get('id'))).toEqual([`vcenter:${server}/event/9902`, `vcenter:${server}/event/9910`]);

    const again = await importVcenterEvents(driver, [...vmomi, pascal], { server });
    expect(again.events).toEqual({ transformed: 3, written: 3, created: 0, updated: 0 });
  });

  it('history is append-only: a stored key re-pushed with other content is a conflict and changes nothing', async () => {
    const key = 9920;
    const event = { ...vmomi[0]!, key, chainId: key };
    const first = await importVcenterEvents(driver, [event], { server });
    expect(first.events.created).toBe(1);
    const id = `vcenter:${server}/event/${key}`;
    const [stored] = await getEventsByIds(driver, [id]);

    const rewritten = { ...event, userName: 'VSPHERE.LOCAL\\mallory', createdTime: '2026-05-14T03:00:00Z' };
    const again = await importVcenterEvents(driver, [rewritten], { server });
    expect(again.events).toMatchObject({ written: 0, created: 0, updated: 0 });
    expect(again.conflicts).toEqual([
      {
        item: 'events[0]',
        reason: expect.stringMatching(/already recorded with other content \(actor, startedAt, endedAt\)/),
      },
    ]);
    expect(await getEventsByIds(driver, [id])).toEqual([stored]);
    // The same content again is no conflict (idempotent), in another zone notation too.
    const same = await importVcenterEvents(driver, [{ ...event, createdTime: '2026-05-14T04:08:30.5+02:00' }], {
      server,
    });
    expect(same.conflicts).toEqual([]);
  });

  it('a key twice in one document is imported once and reported; copies that differ are a conflict, none imported', async () => {
    const a = { ...vmomi[1]!, key: 9930 };
    const same = await importVcenterEvents(driver, [a, { ...a }], { server });
    expect(same.events).toMatchObject({ transformed: 2, written: 1, created: 1 });
    expect(same.duplicates.map((d) => d.item)).toEqual(['events[1]']);
    expect(same.conflicts).toEqual([]);

    const b = { ...vmomi[1]!, key: 9931 };
    const report = await importVcenterEvents(driver, [b, { ...b }, { ...b, createdTime: '2026-05-14T05:00:00Z' }], {
      server,
    });
    expect(report.events).toMatchObject({ transformed: 3, written: 0, created: 0 });
    expect(report.duplicates.map((d) => d.item)).toEqual(['events[1]', 'events[2]']);
    expect(report.conflicts).toEqual([
      {
        item: 'events[2]',
        reason: expect.stringMatching(
          /9931 differs from events\[0\] \(startedAt, endedAt\): one key, two contents; neither is imported/,
        ),
      },
    ]);
    expect(await getEventsByIds(driver, [`vcenter:${server}/event/9931`])).toEqual([]);
  });

  it('20 concurrent imports of one key with different content: one is stored, every other one is a conflict', async () => {
    const key = 9950;
    // Connections open first, so every import's first statement runs at once (the race needs that).
    await Promise.all(Array.from({ length: 20 }, () => driver.executeQuery('RETURN 1')));
    const copies = Array.from({ length: 20 }, (_, i) => ({
      ...vmomi[0]!,
      key,
      chainId: key,
      userName: `VSPHERE.LOCAL\\user${i}`,
    }));
    const reports = await Promise.all(copies.map((c) => importVcenterEvents(driver, [c], { server })));
    const created = reports.flatMap((r, i) => (r.events.created === 1 ? [i] : []));
    expect(created).toHaveLength(1);
    const refused = reports.filter((r) => r.events.written === 0);
    expect(refused).toHaveLength(copies.length - 1);
    for (const r of refused)
      expect(r.conflicts).toEqual([
        { item: 'events[0]', reason: expect.stringMatching(/already recorded with other content \(actor\)/) },
      ]);
    const [stored] = await getEventsByIds(driver, [`vcenter:${server}/event/${key}`]);
    expect(stored!.actor).toBe(`VSPHERE.LOCAL\\user${created[0]}`);
  });

  it('a createdTime without a time zone is refused, not taken as UTC', async () => {
    const report = await importVcenterEvents(
      driver,
      [{ ...vmomi[1]!, key: 9940, createdTime: '2026-05-14T02:09:00' }],
      {
        server,
      },
    );
    expect(report.events.written).toBe(0);
    expect(report.skipped).toEqual([
      { what: 'row', id: 'events[0]', reason: expect.stringMatching(/createdTime .* has no time zone/) },
    ]);
  });

  it('refuses a server name that cannot be part of an id, writing nothing', async () => {
    await expect(importVcenterEvents(driver, vmomi, { server: 'vc 1' })).rejects.toThrow(/^server: /);
  });
});

describe('aitia events import', () => {
  function context() {
    const lines: string[] = [];
    const ctx: CliContext = {
      config: loadConfig({}),
      log: createLogger('silent'),
      openGraph: async () => ({ driver, uri: 'test', via: 'NEO4J_URI', close: async () => {} }),
      print: (line) => void lines.push(line),
    };
    return { ctx, lines };
  }

  it('imports a govc-style JSON-lines file and prints the counts; exits 1 when something was left out', async () => {
    const file = join(dir, 'events.json');
    writeFileSync(
      file,
      [...vmomi, { key: 'x' }]
        .map((e) => JSON.stringify({ ...e, key: typeof e.key === 'number' ? e.key + 100 : e.key }))
        .join('\n'),
    );
    const { ctx, lines } = context();
    expect(await eventsCommand.run(['import', '--provider', 'vcenter', '--server', server, '--file', file], ctx)).toBe(
      1,
    );
    expect(lines[0]).toMatch(
      new RegExp(`^vcenter:${server} events: received=3 written=2 new=2 updated=0 skipped=1 conflicts=0 duplicates=0 `),
    );
    expect(lines[1]).toMatch(/^ {2}skipped events\[2\]: event class unknown/);
  });

  it('prints each conflict with recorded history and exits 1; the same file again exits 0', async () => {
    const file = join(dir, 'history.json');
    const event = { ...vmomi[0]!, key: 9960, chainId: 9960 };
    writeFileSync(file, JSON.stringify([event]));
    const first = context();
    const args = ['import', '--provider', 'vcenter', '--server', server, '--file', file];
    expect(await eventsCommand.run(args, first.ctx)).toBe(0);
    expect(await eventsCommand.run(args, context().ctx)).toBe(0);
    writeFileSync(file, JSON.stringify([{ ...event, userName: 'VSPHERE.LOCAL\\mallory' }]));
    const rewritten = context();
    expect(await eventsCommand.run(args, rewritten.ctx)).toBe(1);
    expect(rewritten.lines[0]).toMatch(/ written=0 new=0 updated=0 skipped=0 conflicts=1 duplicates=0 /);
    expect(rewritten.lines[1]).toMatch(
      /^ {2}conflict events\[0\]: .*9960 is already recorded with other content \(actor\)/,
    );
  });

  it('bad arguments exit 2 with the reason', async () => {
    const run = async (args: string[]) => {
      const { ctx, lines } = context();
      return [await eventsCommand.run(args, ctx), lines[0]] as const;
    };
    expect(await run(['import', '--provider', 'proxmox', '--server', 'x', '--file', 'y'])).toEqual([
      2,
      expect.stringMatching(/^--provider: only vcenter/),
    ]);
    expect(
      await run(['import', '--provider', 'vcenter', '--server', 'x', '--file', join(dir, 'missing.json')]),
    ).toEqual([2, expect.stringMatching(/^--file: cannot read/)]);
    expect(await run(['import', '--provider', 'vcenter'])).toEqual([
      2,
      expect.stringMatching(/^usage: aitia events import/),
    ]);
    const file = join(dir, 'ok.json');
    writeFileSync(file, '[]');
    expect(await run(['import', '--provider', 'vcenter', '--server', 'a/b', '--file', file])).toEqual([
      2,
      expect.stringMatching(/^--server: must be the vCenter server name/),
    ]);
  });
});
