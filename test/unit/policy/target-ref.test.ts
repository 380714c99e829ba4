import { describe, expect, it } from 'vitest';
import {
  classifyAction,
  entityTargetFacts,
  NON_GRAPH_ENTITY_TYPES,
  parseTargetRef,
  resourceTargetFacts,
  type EntityType,
  type ResourceFactsSource,
} from '../../../src/policy/index.js';
import { DEFAULT, TRUSTING } from './helpers.js';

describe('target references', () => {
  it('lists exactly the entity types aitia holds no resource kind for', () => {
    expect([...NON_GRAPH_ENTITY_TYPES].sort()).toEqual(
      [
        'compose-stack',
        'config-repo',
        'deploy-pipeline',
        'dns-record',
        'docker-container',
        'ingress-route',
        'key',
        'secret',
        'storage-pool',
      ].sort(),
    );
  });

  it.each([
    ['proxmox:lab/qemu/101', { form: 'id', id: 'proxmox:lab/qemu/101' }],
    ['manual:service/web', { form: 'id', id: 'manual:service/web' }],
    ['vm:web-01', { form: 'slug', slug: 'vm:web-01' }],
    ['storage:tank', { form: 'slug', slug: 'storage:tank' }],
    ['service:a:b', { form: 'slug', slug: 'service:a:b' }],
    ['dns-record:example.com', { form: 'entity', entityType: 'dns-record', name: 'example.com' }],
    ['docker-container:nginx', { form: 'entity', entityType: 'docker-container', name: 'nginx' }],
    ['key:deploy', { form: 'entity', entityType: 'key', name: 'deploy' }],
    [' vm:web-01 ', { form: 'slug', slug: 'vm:web-01' }],
  ])('%s → %j', (ref, expected) => {
    expect(parseTargetRef(ref)).toEqual({ ok: true, ref: expected });
  });

  it.each([
    ['proxmox: spaced', /is not a valid resource id/],
    ['machine:pve1', /^machine groups other types and is never a thing's own type/],
    ['credential:x', /^credential groups other types/],
    [
      'toaster:x',
      /must be a resource id .* or <entity-type>:<name> for an entity outside the graph \(docker-container/,
    ],
    ['dns-record:', /must be/],
    ['web-01', /must be/],
    ['', /must be/],
  ])('%j is refused: %s', (ref, reason) => {
    const result = parseTargetRef(ref);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('facts for entities outside the graph', () => {
  // Each non-graph type with the default rule it meets, to show the facts reach the right rule.
  const cases: Array<[EntityType, string, string, string]> = [
    ['dns-record', 'change', 'config_mutation', 'escalate'],
    ['ingress-route', 'change', 'config_mutation', 'escalate'],
    ['config-repo', 'edit', 'config_mutation', 'escalate'],
    ['deploy-pipeline', 'trigger', 'config_mutation', 'escalate'],
    ['storage-pool', 'change', 'destructive', 'never'],
    ['secret', 'rotate', 'destructive', 'never'],
    ['key', 'revoke', 'destructive', 'never'],
    ['docker-container', 'restart', 'reversible_low', 'auto'],
    ['compose-stack', 'restart', 'reversible_low', 'auto'],
  ];
  it.each(cases)('%s %s → %s / %s (trusted)', (type, action, risk, autonomy) => {
    const facts = entityTargetFacts(type, 'x');
    expect(facts).toEqual({
      id: `${type}:x`,
      kind: null,
      slug: `${type}:x`,
      name: 'x',
      entityType: type,
      lifecycle: 'active',
      attributes: {},
    });
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, { target: facts, action });
    expect(d).toMatchObject({ riskClass: risk, autonomy, matchedRule: { entityType: type, matchedBy: 'type' } });
  });

  it('a target with neither kind nor type fails closed', () => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, {
      target: { ...entityTargetFacts('secret', 'x'), entityType: null },
      action: 'rotate',
    });
    expect(d).toMatchObject({ autonomy: 'escalate', matchedRule: null });
    expect(d.reasons[0]).toMatch(/^no rule: the target has neither a kind nor an entity type/);
  });
});

describe('facts for graph resources', () => {
  const resource = (
    kind: ResourceFactsSource['kind'],
    attributes: Record<string, unknown> = {},
  ): ResourceFactsSource => ({
    id: `manual:${kind}/x`,
    kind,
    name: 'x',
    slug: `${kind}:x`,
    lifecycle: 'deprecated',
    attributes,
    providerAttributeKeys: [],
  });

  it('carries id, slug, name, lifecycle and attributes from the graph', () => {
    const r = resource('vm', { qemu_guest_agent: 'running' });
    expect(resourceTargetFacts(r)).toEqual({
      facts: {
        id: r.id,
        kind: 'vm',
        slug: 'vm:x',
        name: 'x',
        entityType: null,
        lifecycle: 'deprecated',
        attributes: { qemu_guest_agent: 'running' },
        observations: {},
      },
      notes: [],
    });
  });

  it.each([
    ['the provider wrote it', ['qemu_guest_agent'], { qemu_guest_agent: 'running' }],
    ['an agent wrote it (not a provider key)', [], {}],
    ['the provider wrote another key', ['vmid'], {}],
  ] as const)('observations: only values the provider wrote (%s)', (_, keys, observations) => {
    const { facts } = resourceTargetFacts({
      ...resource('vm', { qemu_guest_agent: 'running' }),
      providerAttributeKeys: keys,
    });
    expect(facts.observations).toEqual(observations);
    expect(facts.attributes).toEqual({ qemu_guest_agent: 'running' });
  });

  it.each([
    ['service', 'docker-container', 'docker-container', false],
    ['service', 'compose-stack', 'compose-stack', false],
    ['service', 'service', null, false],
    ['storage', 'storage-pool', 'storage-pool', false],
    ['network', 'dns-record', 'dns-record', false],
    ['service', 'secret', null, true],
    ['vm', 'docker-container', null, true],
    ['vm', 'machine', null, true],
    ['service', 'toaster', null, true],
    ['service', 42, null, true],
  ] as const)('%s with entity_type %j (set by an operator) → %s (note: %s)', (kind, declared, entityType, noted) => {
    const { facts, notes } = resourceTargetFacts({
      ...resource(kind, { entity_type: declared }),
      entityTypeBy: 'operator:alice',
    });
    expect(facts.entityType).toBe(entityType);
    expect(notes.length).toBe(noted ? 1 : 0);
    if (noted)
      expect(notes[0]).toBe(
        `attribute entity_type=${JSON.stringify(declared)} ignored: not ${kind} or a type below it; the gate used ${kind}`,
      );
  });

  it('a vm cannot dodge "destroy: never" by declaring itself a docker-container', () => {
    const { facts } = resourceTargetFacts({
      ...resource('vm', { entity_type: 'docker-container' }),
      lifecycle: 'active',
    });
    expect(classifyAction(TRUSTING.policy, TRUSTING.digest, { target: facts, action: 'destroy' })).toMatchObject({
      autonomy: 'never',
      approval: 'not_approvable',
    });
  });
});
