import neo4j from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { identityResource, resourceFromProperties } from '../../../../src/graph/resources/read.js';
import { toPlain } from '../../../../src/graph/db/statements.js';

describe('resource records from what Neo4j sends', () => {
  it('identityResource is what resourceFromProperties makes of a node with only id, kind, name and provider', () => {
    for (const [id, kind, name, provider] of [
      ['proxmox:lab/qemu/101', 'vm', 'web01', 'proxmox'],
      ['vcenter:vc1/host-12', 'host', 'esx-a', 'vcenter'],
      ['manual:service/api', 'service', '', 'manual'],
    ] as const) {
      expect(identityResource(id, kind, name, provider)).toEqual(resourceFromProperties({ id, kind, name, provider }));
    }
  });

  it('reads attr.* properties as attributes and the rest as fields', () => {
    const r = resourceFromProperties({
      id: 'proxmox:lab/qemu/101',
      kind: 'vm',
      name: 'web01',
      provider: 'proxmox',
      state: 'running',
      'attr.owner': 'team-a',
      'attr.cores': neo4j.int(4),
      providerAttrKeys: ['cores'],
    });
    expect(r).toMatchObject({ slug: 'vm:web01', state: 'running', attributes: { owner: 'team-a', cores: 4 } });
    expect(r.providerAttributeKeys).toEqual(['cores']);
  });

  it('toPlain converts nested maps and lists, Integers and nodes', () => {
    const node = { labels: ['Resource'], properties: { id: 'x', n: neo4j.int(2) } };
    expect(toPlain({ a: [neo4j.int(1), { b: neo4j.int(3), c: null }], node })).toEqual({
      a: [1, { b: 3, c: null }],
      node: { id: 'x', n: 2 },
    });
  });
});
