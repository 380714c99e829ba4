import { describe, expect, it } from 'vitest';
import { canonicalAttributeKey, HEALTH_MESSAGE, planAttributeUpdate } from '../../../src/model/index.js';

const proxmoxVm = { kind: 'vm', provider: 'proxmox', providerAttributeKeys: ['qemu_guest_agent'] } as const;
const manualService = { kind: 'service', provider: 'manual', providerAttributeKeys: [] } as const;

describe('owned attribute keys are owned whatever their spelling', () => {
  it.each([
    ['health', 'health'],
    ['Health', 'health'],
    ['HEALTH', 'health'],
    [' health ', 'health'],
    ['heal\u0074h', 'health'],
    ['ｈｅａｌｔｈ', 'health'],
    ['he\u200balth', 'health'],
    ['last_check_at', 'lastcheckat'],
    ['lastCheckAt', 'lastcheckat'],
    ['Last-Check.At', 'lastcheckat'],
    ['Entity_Type', 'entitytype'],
    ['entity-type', 'entitytype'],
  ])('%j folds to %j', (key, canonical) => {
    expect(canonicalAttributeKey(key)).toBe(canonical);
  });

  it.each(['Health', 'HEALTH', 'hEaLtH', 'He-alth', 'health_', '_health'])(
    'an agent writing %j is told health is the scheduler’s, and nothing is written',
    (key) => {
      const planned = planAttributeUpdate({ [key]: 'healthy', owner: 'team-x' }, manualService);
      expect(planned).toMatchObject({
        ok: true,
        plan: { set: { owner: 'team-x' }, ignored: [{ key, reason: HEALTH_MESSAGE }] },
      });
      if (planned.ok) expect(planned.plan.message.startsWith(HEALTH_MESSAGE)).toBe(true);
    },
  );

  it.each([' health', 'health ', 'ｈｅａｌｔｈ', 'heal th'])('%j is not written either', (key) => {
    const planned = planAttributeUpdate({ [key]: 'healthy' }, manualService);
    expect(planned.ok && Object.keys(planned.plan.set)).toEqual([]);
  });

  it.each([
    ['Last_Check', 'last_check'],
    ['LASTCHECKAT', 'last_check_at'],
    ['State', 'state'],
    ['RAWSTATE', 'rawState'],
    ['Lifecycle', 'lifecycle'],
    ['provider-attr-keys', 'providerAttrKeys'],
    ['EntityTypeBy', 'entityTypeBy'],
  ])('%j is ignored as %s', (key, owned) => {
    const planned = planAttributeUpdate({ [key]: 'x' }, manualService);
    expect(planned).toMatchObject({ ok: true, plan: { set: {}, ignored: [{ key }] } });
    if (planned.ok) expect(planned.plan.ignored[0]!.reason).toContain(`the same key as ${owned}`);
  });

  it.each(['QEMU_Guest_Agent', 'qemu-guest-agent', 'Serial_Number', 'HASTATE', 'Lock'])(
    'a provider observation spelled %j stays the provider’s',
    (key) => {
      const planned = planAttributeUpdate({ [key]: 'running' }, proxmoxVm);
      expect(planned).toMatchObject({ ok: true, plan: { set: {}, ignored: [{ key }] } });
    },
  );

  it('a key the provider reported is compared in its canonical spelling too', () => {
    const planned = planAttributeUpdate(
      { Custom_Fact: 'forged' },
      { kind: 'service', provider: 'vcenter', providerAttributeKeys: ['custom_fact'] },
    );
    expect(planned).toMatchObject({ ok: true, plan: { set: {}, ignored: [{ key: 'Custom_Fact' }] } });
  });

  it('two spellings of one key in one write are refused, naming both', () => {
    expect(planAttributeUpdate({ owner: 'a', Owner: 'b' }, manualService)).toEqual({
      ok: false,
      field: 'attributes.Owner',
      reason: 'names the same attribute as owner; send one of them',
    });
  });

  it('descriptive keys keep their spelling', () => {
    const planned = planAttributeUpdate({ Owner: 'team-x', 'rack.position': 4 }, manualService);
    expect(planned).toMatchObject({ ok: true, plan: { set: { Owner: 'team-x', 'rack.position': 4 }, ignored: [] } });
  });
});

describe('entity_type is operator-owned', () => {
  it.each(['entity_type', 'Entity_Type', 'ENTITY-TYPE', 'entityType', 'entity.type'])(
    'an agent writing %j is FORBIDDEN, naming the key and who owns it; nothing is written',
    (key) => {
      const planned = planAttributeUpdate({ owner: 'x', [key]: 'docker-container' }, manualService);
      expect(planned).toMatchObject({ ok: false, code: 'FORBIDDEN', field: `attributes.${key}` });
      expect(!planned.ok && planned.reason).toMatch(
        /operator-owned .*only an operator or the resource's provider writes it; role agent may not$/,
      );
    },
  );

  it.each(['agent', 'scheduler', 'ingester'] as const)('so is a %s, and removing it (null)', (role) => {
    expect(planAttributeUpdate({ entity_type: null }, manualService, { role })).toMatchObject({
      ok: false,
      code: 'FORBIDDEN',
    });
  });

  it('an operator writes it, spelled as the gate reads it', () => {
    expect(planAttributeUpdate({ entity_type: 'docker-container' }, manualService, { role: 'operator' })).toMatchObject(
      { ok: true, plan: { set: { entity_type: 'docker-container' } } },
    );
    expect(planAttributeUpdate({ Entity_Type: 'docker-container' }, manualService, { role: 'operator' })).toMatchObject(
      { ok: false, field: 'attributes.Entity_Type', reason: 'write it as entity_type, the key the gate reads' },
    );
  });
});
