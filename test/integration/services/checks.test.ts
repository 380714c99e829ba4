import { beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { createCheck } from '../../../src/services/checks.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const deps = serviceDeps(driver);
const ids = {
  web: `proxmox:${scope}/qemu/101`,
  ct: `proxmox:${scope}/lxc/200`,
  app: `vcenter:${scope}/vm/vm-9`,
};

/** How many checks the file's resources have: a refusal must leave it at 0. */
async function checkCount(): Promise<number> {
  const { records } = await driver.executeQuery(
    'MATCH (c:Check)-[:CHECKS]->(r:Resource) WHERE r.id CONTAINS $scope RETURN count(c) AS n',
    { scope },
  );
  return records[0]!.get('n').toNumber();
}

beforeAll(async () => {
  await upsertResources(driver, [
    { id: ids.web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running' },
    { id: ids.ct, kind: 'lxc', provider: 'proxmox', name: `ct-${scope}`, state: 'running' },
    { id: ids.app, kind: 'vm', provider: 'vcenter', name: `app-${scope}`, state: 'running' },
  ]);
});

describe('createCheck', () => {
  it.each([
    ['a vcenter vm', ids.app, ids.app],
    ['a proxmox lxc', `lxc:ct-${scope}`, ids.ct],
  ])('refuses a proxmox_agent check on %s, naming input.kind', async (what, resourceId, id) => {
    const operator = principalOf(scope, 'operator');
    await expect(createCheck(deps, operator, { resourceId, kind: 'proxmox_agent' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.kind',
      message: `input.kind: proxmox_agent checks the QEMU guest agent of a Proxmox VM; ${id} is ${what}`,
    });
    expect(await auditOf(driver, operator)).toEqual([
      expect.objectContaining({ operation: 'createCheck', targetIds: [resourceId], outcome: 'refused' }),
    ]);
    expect(await checkCount()).toBe(0);
  });

  it('validates the spec before it reads the resource', async () => {
    const operator = principalOf(scope, 'operator');
    const nope = `vm:nope-${scope}`;
    await expect(createCheck(deps, operator, { resourceId: nope, kind: 'http' })).rejects.toMatchObject({
      field: 'input.http',
    });
    await expect(createCheck(deps, operator, { resourceId: nope, kind: 'provider_state' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.resourceId',
      message: `input.resourceId: no resource ${nope}`,
    });
    expect(await checkCount()).toBe(0);
  });

  it('is for operators only', async () => {
    const agent = principalOf(scope, 'agent');
    await expect(
      createCheck(deps, agent, { resourceId: `vm:web-${scope}`, kind: 'provider_state' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { permission: 'check:manage' },
    });
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({ operation: 'createCheck', outcome: 'refused', role: 'agent' }),
    ]);
    expect(await checkCount()).toBe(0);
  });
});
