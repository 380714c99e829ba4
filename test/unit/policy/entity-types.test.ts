import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../src/model/kinds.js';
import {
  ancestorsOf,
  ENTITY_TYPES,
  isA,
  isEntityType,
  KIND_ENTITY_TYPES,
  lineageOf,
  type EntityType,
} from '../../../src/policy/index.js';

describe('entity type hierarchy', () => {
  const cases: Array<[EntityType, EntityType[]]> = [
    ['entity', []],
    ['machine', ['entity']],
    ['vm', ['machine', 'entity']],
    ['lxc', ['machine', 'entity']],
    ['host', ['machine', 'entity']],
    ['service', ['entity']],
    ['docker-container', ['service', 'entity']],
    ['compose-stack', ['service', 'entity']],
    ['dns-record', ['network', 'entity']],
    ['ingress-route', ['network', 'entity']],
    ['config-repo', ['delivery', 'entity']],
    ['deploy-pipeline', ['delivery', 'entity']],
    ['storage-pool', ['storage', 'entity']],
    ['secret', ['credential', 'entity']],
    ['key', ['credential', 'entity']],
    ['cluster', ['entity']],
    ['storage', ['entity']],
    ['network', ['entity']],
  ];
  it.each(cases)('ancestorsOf(%s) = %j', (type, ancestors) => {
    expect(ancestorsOf(type)).toEqual(ancestors);
    expect(lineageOf(type)).toEqual([type, ...ancestors]);
  });

  it('lists every type once and roots every one at entity', () => {
    expect(new Set(ENTITY_TYPES).size).toBe(ENTITY_TYPES.length);
    for (const type of ENTITY_TYPES) expect(lineageOf(type).at(-1)).toBe('entity');
  });

  it('maps every aitia kind to a type of the hierarchy', () => {
    for (const kind of KINDS) expect(isEntityType(KIND_ENTITY_TYPES[kind])).toBe(true);
    expect(KIND_ENTITY_TYPES).toMatchObject({
      vm: 'vm',
      lxc: 'lxc',
      host: 'host',
      service: 'service',
      cluster: 'cluster',
    });
  });

  it('answers isA along the lineage only', () => {
    expect(isA('vm', 'machine')).toBe(true);
    expect(isA('vm', 'vm')).toBe(true);
    expect(isA('machine', 'vm')).toBe(false);
    expect(isA('docker-container', 'machine')).toBe(false);
    expect(isEntityType('toaster')).toBe(false);
    expect(isEntityType('toString')).toBe(false);
  });
});
