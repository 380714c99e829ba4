import { beforeAll, describe, expect, it } from 'vitest';
import { createRelationship as declareEdge, relationsOf } from '../../../src/graph/edges.js';
import { upsertResources } from '../../../src/graph/resources.js';
import { createRelationship, removeRelationship } from '../../../src/services/relationships.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const deps = serviceDeps(driver);
/** A ref as the tests write it (`vm:old`, `manual:service/web`), made the file's own. */
const scoped = (ref: string) => `${ref}-${scope}`;
const ids = {
  web: scoped('manual:service/web'),
  db: `proxmox:${scope}/qemu/101`,
  old: `proxmox:${scope}/qemu/102`,
  gone: `proxmox:${scope}/qemu/103`,
};

/** Every edge among the file's resources, as `from -TYPE-> to`: a refusal must leave it as it was. */
async function edgesInScope(): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (a:Resource)-[e]->(b:Resource) WHERE a.id CONTAINS $scope OR b.id CONTAINS $scope
     RETURN a.id + ' -' + type(e) + '-> ' + b.id AS edge ORDER BY edge`,
    { scope },
  );
  return records.map((r) => r.get('edge') as string);
}

beforeAll(async () => {
  await upsertResources(driver, [
    { id: ids.web, kind: 'service', provider: 'manual', name: scoped('web'), state: 'up' },
    { id: ids.db, kind: 'vm', provider: 'proxmox', name: scoped('db'), state: 'running', lifecycle: 'active' },
    { id: ids.old, kind: 'vm', provider: 'proxmox', name: scoped('old'), state: 'running', lifecycle: 'deprecated' },
    { id: ids.gone, kind: 'vm', provider: 'proxmox', name: scoped('gone'), state: 'stopped', lifecycle: 'destroyed' },
  ]);
  // A declared dependency for removeRelationship to refuse to remove.
  await declareEdge(driver, {
    type: 'DEPENDS_ON',
    fromId: ids.web,
    toId: ids.db,
    provenance: 'declared',
    source: scoped('seed'),
  });
});

describe('createRelationship decides before it writes', () => {
  it.each([
    [
      'service:web',
      'manual:service/web',
      'input.target',
      `input.target: a DEPENDS_ON edge from ${ids.web} to itself is not allowed`,
    ],
    [
      'service:web',
      'vm:old',
      'input.target',
      `input.target: ${scoped('vm:old')} is deprecated: new dependencies on it are refused (existing ones stay)`,
    ],
    [
      'service:web',
      'vm:gone',
      'input.target',
      `input.target: ${scoped('vm:gone')} is destroyed: nothing may depend on it`,
    ],
    ['vm:nope', 'vm:db', 'input.source', `input.source: no resource ${scoped('vm:nope')}`],
  ])('%s DEPENDS_ON %s → BAD_USER_INPUT %s, audited as refused', async (from, to, field, message) => {
    const agent = principalOf(scope, 'agent');
    const source = scoped(from);
    const target = scoped(to);
    const before = await edgesInScope();
    await expect(createRelationship(deps, agent, { source, target, type: 'DEPENDS_ON' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field,
      message,
    });
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({
        principal: agent.name,
        operation: 'createRelationship',
        targetIds: [source, target],
        outcome: 'refused',
        detail: `BAD_USER_INPUT: ${message}`,
      }),
    ]);
    expect(await edgesInScope()).toEqual(before);
  });

  it('lets a deprecated resource take part in identity (MANIFESTS_AS is no dependency)', async () => {
    const agent = principalOf(scope, 'agent');
    const made = await createRelationship(deps, agent, {
      source: scoped('vm:db'),
      target: scoped('vm:old'),
      type: 'MANIFESTS_AS',
    });
    expect(made).toMatchObject({
      created: true,
      relationship: { type: 'MANIFESTS_AS', fromId: ids.db, toId: ids.old, provenance: 'declared', source: agent.name },
    });
    expect(await relationsOf(driver, ids.old, { types: ['MANIFESTS_AS'] })).toEqual([
      expect.objectContaining({ fromId: ids.db, toId: ids.old, source: agent.name }),
    ]);
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({
        operation: 'createRelationship',
        targetIds: [scoped('vm:db'), scoped('vm:old')],
        outcome: 'ok',
      }),
    ]);
  });

  it('asks for relationship:declare before reading anything', async () => {
    const scheduler = principalOf(scope, 'scheduler');
    const before = await edgesInScope();
    await expect(
      createRelationship(deps, scheduler, { source: scoped('vm:a'), target: scoped('vm:b'), type: 'DEPENDS_ON' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', details: { permission: 'relationship:declare' } });
    expect(await auditOf(driver, scheduler)).toEqual([
      expect.objectContaining({ outcome: 'refused', role: 'scheduler' }),
    ]);
    expect(await edgesInScope()).toEqual(before);
  });
});

describe('removeRelationship', () => {
  it('is for operators only', async () => {
    const agent = principalOf(scope, 'agent');
    await expect(
      removeRelationship(deps, agent, { source: scoped('service:web'), target: scoped('vm:db'), type: 'DEPENDS_ON' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', details: { permission: 'relationship:remove' } });
    expect(await relationsOf(driver, ids.web, { types: ['DEPENDS_ON'], direction: 'OUT' })).toEqual([
      expect.objectContaining({ fromId: ids.web, toId: ids.db, provenance: 'declared' }),
    ]);
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({ operation: 'removeRelationship', outcome: 'refused', role: 'agent' }),
    ]);
  });
});
