import { beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { noneAttribution } from '../../../src/model/index.js';
import { explainTransition, narrativeInZone, transitions } from '../../../src/services/transitions.js';
import { useGraph } from '../../support/graph.js';
import { principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const deps = serviceDeps(driver);
const agent = principalOf(scope, 'agent');
const web = `proxmox:${scope}/qemu/101`;

beforeAll(async () => {
  await upsertResources(driver, [
    { id: web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running' },
    // Two providers' VMs under one name: their slug is ambiguous.
    { id: `proxmox:${scope}/qemu/102`, kind: 'vm', provider: 'proxmox', name: `twin-${scope}`, state: 'running' },
    { id: `vcenter:${scope}/vm/vm-7`, kind: 'vm', provider: 'vcenter', name: `twin-${scope}`, state: 'running' },
  ]);
});

describe('transitions of one resource: the ref is resolved in the same statement, and refused as everywhere', () => {
  it('answers a page for an id or a slug that names one resource', async () => {
    for (const resourceId of [web, `vm:web-${scope}`]) {
      expect(await transitions(deps, agent, { resourceId, first: 5 })).toMatchObject({ nodes: [], hasNextPage: false });
    }
  });
  it.each([
    [`proxmox:${scope}/qemu/999`, { code: 'NOT_FOUND', field: 'resourceId' }],
    [`vm:nobody-${scope}`, { code: 'NOT_FOUND', field: 'slug' }],
    [
      `vm:twin-${scope}`,
      {
        code: 'BAD_USER_INPUT',
        field: 'slug',
        message: `slug: vm:twin-${scope} is ambiguous: 2 resources match (proxmox:${scope}/qemu/102, vcenter:${scope}/vm/vm-7); use one of these ids`,
      },
    ],
    ['vm:', { code: 'BAD_USER_INPUT', field: 'slug' }],
  ])('%s → %j', async (resourceId, refusal) => {
    await expect(transitions(deps, agent, { resourceId })).rejects.toMatchObject(refusal);
  });
});

describe('explainTransition checks the change it is asked about', () => {
  it.each([
    [{ from: 'sleeping', to: 'stopped' }, 'from', /"sleeping" is not a vm state; one of: running/],
    [{ from: 'running', to: 'up' }, 'to', /"up" is not a vm state/],
    [{ from: 'running', to: 'running' }, 'to', /must differ from `from`/],
  ])('%j → BAD_USER_INPUT %s', async (change, field, message) => {
    const asked = { resourceId: `vm:web-${scope}`, at: '2026-05-14T02:08:31Z', ...change };
    await expect(explainTransition(deps, agent, asked)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field,
      message: expect.stringMatching(message),
    });
  });
});

describe('the narrative in a zone', () => {
  const input = {
    transition: {
      resourceId: web,
      kind: 'vm' as const,
      from: 'running',
      to: 'stopped',
      observedAt: '2026-05-14T02:08:31Z',
    },
    attribution: noneAttribution({ lookbackSeconds: 300 }, 0, 'nothing'),
    stored: 'as stored',
  };

  it('reads the resource from the graph by default', async () => {
    expect(await narrativeInZone(deps, agent, { ...input, zone: 'UTC' })).toMatch(
      new RegExp(`^vm "web-${scope}" \\(proxmox:${scope}/qemu/101\\)`),
    );
  });

  it('refuses an unknown zone, naming `zone`', async () => {
    await expect(narrativeInZone(deps, agent, { ...input, zone: 'Mars/Olympus' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'zone',
      message: expect.stringMatching(/use an IANA zone such as Europe\/Berlin, or UTC$/),
    });
  });
});
