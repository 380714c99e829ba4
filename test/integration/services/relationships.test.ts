import { beforeAll, describe, expect, it } from 'vitest';
import { createRelationship as declareEdge, relationsOf } from '../../../src/graph/edges.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
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
  host: `proxmox:${scope}/node/pve1`,
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
    { id: ids.host, kind: 'host', provider: 'proxmox', name: scoped('pve1'), state: 'online' },
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
    ['service:web', 'vm:nope', 'input.target', `input.target: no resource ${scoped('vm:nope')}`],
    // Both ends unknown (looked up together): the source's refusal is the one reported.
    ['vm:nope', 'vm:nada', 'input.source', `input.source: no resource ${scoped('vm:nope')}`],
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

  it.each([
    ['RUNS_ON', 'vm:db', 'vm:old', 'input.type', /RUNS_ON is not allowed from vm to vm/],
    [
      'RUNS_ON',
      'vm:db',
      'host:pve1',
      'input.type',
      new RegExp(`^input\\.type: RUNS_ON from ${ids.db} is observed by its proxmox provider, never declared`),
    ],
    [
      'MANIFESTS_AS',
      'vm:db',
      'vm:old',
      'input.type',
      /^input\.type: MANIFESTS_AS is observed by a provider or inferred by the identity resolver .*only an operator may declare one/,
    ],
    [
      'RUNS_ON',
      'service:web',
      'vm:db',
      'input.source',
      new RegExp(`^input\\.source: ${ids.web} was not declared by a principal: only its declarer or an operator`),
    ],
  ] as const)('an agent %s %s → %s: refused (%s), nothing written', async (type, from, to, field, message) => {
    const agent = principalOf(scope, 'agent');
    const before = await edgesInScope();
    await expect(
      createRelationship(deps, agent, { source: scoped(from), target: scoped(to), type }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field, message: expect.stringMatching(message) });
    expect(await edgesInScope()).toEqual(before);
  });

  it('lets a deprecated resource take part in identity (MANIFESTS_AS is no dependency; an operator declares it)', async () => {
    const agent = principalOf(scope, 'operator');
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
