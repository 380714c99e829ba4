import { describe, expect, it } from 'vitest';
import {
  classifyAction,
  entityTypeTrusted,
  resourceTargetFacts,
  type ResourceFactsSource,
} from '../../../src/policy/index.js';
import { TRUSTING, variant } from './helpers.js';

/**
 * entity_type picks the rule a resource is judged by. One no operator or provider vouches for
 * (written before it was owned, or imported directly) must not meet a looser rule than the kind's.
 */
const resource = (
  kind: ResourceFactsSource['kind'],
  entityType: string,
  more: Partial<ResourceFactsSource> = {},
): ResourceFactsSource => ({
  id: `manual:${kind}/x`,
  kind,
  name: 'x',
  slug: `${kind}:x`,
  lifecycle: 'active',
  attributes: { entity_type: entityType },
  providerAttributeKeys: [],
  ...more,
});

// A docker-container rule looser than the service one: the refinement an attacker would want.
const LOOSE = variant((doc) => {
  doc.autonomy_settings.global.auto_act = 'reversible_low';
  doc.approval_rules.push(
    { entity_type: 'service', action: 'purge', risk_class: 'destructive', autonomy_level: 'never' },
    { entity_type: 'docker-container', action: 'purge', risk_class: 'reversible_low', autonomy_level: 'auto' },
    { entity_type: 'docker-container', action: 'recreate', risk_class: 'reversible_low', autonomy_level: 'auto' },
  );
});

describe('who vouches for entity_type', () => {
  it.each([
    [{}, false],
    [{ entityTypeBy: null }, false],
    [{ entityTypeBy: 'agent:bot' }, false],
    [{ entityTypeBy: 'operator-ish' }, false],
    [{ entityTypeBy: 'operator:alice' }, true],
    [{ entityTypeBy: 'provider:manual' }, true],
    [{ providerAttributeKeys: ['entity_type'] }, true],
  ] as const)('%j → %s', (more, trusted) => {
    expect(entityTypeTrusted({ providerAttributeKeys: [], ...more })).toBe(trusted);
  });
});

describe('an entity_type nobody vouches for is judged by the stricter rule', () => {
  it('a service that calls itself a docker-container does not meet the looser purge rule', () => {
    const { facts, notes } = resourceTargetFacts(resource('service', 'docker-container'));
    expect(notes).toEqual([
      'attribute entity_type="docker-container" was not written by an operator or the provider: the stricter of the docker-container and service rules applies',
    ]);
    const d = classifyAction(LOOSE.policy, LOOSE.digest, { target: facts, action: 'purge' });
    expect(d).toMatchObject({ riskClass: 'destructive', autonomy: 'never', approval: 'not_approvable' });
    expect(d.matchedRule).toMatchObject({ entityType: 'service', action: 'purge' });
    expect(d.reasons[0]).toBe(
      'entity_type docker-container on service:x is not vouched for by an operator or its provider: the service rule, stricter than the docker-container one, applies',
    );
  });

  it('an action only the finer type has a rule for fails closed (the kind has none)', () => {
    const { facts } = resourceTargetFacts(resource('service', 'docker-container'));
    const d = classifyAction(LOOSE.policy, LOOSE.digest, { target: facts, action: 'recreate' });
    expect(d).toMatchObject({ riskClass: 'config_mutation', autonomy: 'escalate', matchedRule: null });
    expect(d.reasons[1]).toMatch(/^no rule: nothing covers "recreate" on service:x \(searched service → entity\)/);
  });

  it('the same rule on both keeps the finer one (nothing to tighten)', () => {
    const { facts } = resourceTargetFacts(resource('service', 'docker-container'));
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, { target: facts, action: 'restart' });
    expect(d.matchedRule).toMatchObject({ entityType: 'docker-container', matchedBy: 'type' });
    expect(d.reasons.join('\n')).not.toContain('not vouched for');
  });

  it.each([
    ['an operator', { entityTypeBy: 'operator:alice' }],
    ['its provider', { entityTypeBy: 'provider:manual' }],
    ['its provider (a reported key)', { providerAttributeKeys: ['entity_type'] }],
  ] as const)('set by %s, the finer type’s own rule applies', (_, more) => {
    const { facts, notes } = resourceTargetFacts(resource('service', 'docker-container', more));
    expect(notes).toEqual([]);
    const d = classifyAction(LOOSE.policy, LOOSE.digest, { target: facts, action: 'purge' });
    expect(d).toMatchObject({ riskClass: 'reversible_low', matchedRule: { entityType: 'docker-container' } });
  });

  it('a stricter finer rule always applies, vouched for or not', () => {
    const strict = variant((doc) => {
      doc.autonomy_settings.global.auto_act = 'reversible_low';
      doc.approval_rules.push({
        entity_type: 'docker-container',
        action: 'cache-clear',
        risk_class: 'config_mutation',
        autonomy_level: 'escalate',
      });
    });
    const { facts } = resourceTargetFacts(resource('service', 'docker-container'));
    const d = classifyAction(strict.policy, strict.digest, { target: facts, action: 'cache-clear' });
    expect(d).toMatchObject({ riskClass: 'config_mutation', matchedRule: { entityType: 'docker-container' } });
  });
});
