import { describe, expect, it } from 'vitest';
import {
  matchersFor,
  ownedBy,
  ownershipMarker,
  planSilences,
  type SilencedResource,
} from '../../../../src/integrations/alertmanager/silence-plan.js';

const web01: SilencedResource = {
  id: 'proxmox:homelab/qemu/101',
  name: 'web01',
  slug: 'vm:web01',
  kind: 'vm',
  attributes: { vmid: 101, node: 'pve1', tags: ['a', 'b'] },
};
const pg: SilencedResource = {
  id: 'manual:service/pg',
  name: 'pg',
  slug: 'service:pg',
  kind: 'service',
  attributes: {},
};
const eq = (name: string, value: string) => ({ name, value, isRegex: false, isEqual: true });

describe('matchersFor: the label mapping over a resource', () => {
  it.each([
    ['a name', { instance: '{name}' }, { ok: true, matchers: [eq('instance', 'web01')] }],
    ['an attribute', { vmid: '{attr.vmid}' }, { ok: true, matchers: [eq('vmid', '101')] }],
    [
      'literal text around fields, sorted by label',
      { job: 'pve', instance: '{name}.lan:9100' },
      { ok: true, matchers: [eq('instance', 'web01.lan:9100'), eq('job', 'pve')] },
    ],
    [
      'id, slug and kind',
      { a: '{id}', b: '{slug}', c: '{kind}' },
      {
        ok: true,
        matchers: [eq('a', 'proxmox:homelab/qemu/101'), eq('b', 'vm:web01'), eq('c', 'vm')],
      },
    ],
    [
      'a missing attribute',
      { vmid: '{attr.nope}' },
      { ok: false, reason: 'label vmid: proxmox:homelab/qemu/101 has no attr.nope' },
    ],
    [
      'a list attribute',
      { t: '{attr.tags}' },
      { ok: false, reason: 'label t: proxmox:homelab/qemu/101 has no attr.tags' },
    ],
    ['an unknown field', { x: '{owner}' }, { ok: false, reason: 'label x: proxmox:homelab/qemu/101 has no owner' }],
  ])('%s', (_, labels, expected) => {
    expect(matchersFor(web01, labels)).toEqual(expected);
  });
});

describe('ownership: createdBy aitia and the comment marker', () => {
  it.each([
    [
      { createdBy: 'aitia', comment: `stopped by alice ${ownershipMarker('c#1', 'r/1')}` },
      { conditionId: 'c#1', resourceId: 'r/1' },
    ],
    [{ createdBy: 'alice', comment: `copied ${ownershipMarker('c#1', 'r/1')}` }, null],
    [{ createdBy: 'aitia', comment: 'made by hand, no marker' }, null],
    [{ createdBy: 'aitia', comment: `${ownershipMarker('c#1', 'r/1')} then more text` }, null],
  ])('%j → %j', (silence, expected) => {
    expect(ownedBy(silence)).toEqual(expected);
  });
});

describe('planSilences', () => {
  const condition = {
    id: 'proxmox:homelab/qemu/101#check_failing#1778724511000',
    resourceId: web01.id,
    type: 'check_failing',
    narrative: 'Stopped by alice@pve — task qmstop UPID:pve1:001A2B01 at 02:08:31 UTC.',
    confidence: 'high',
  };
  const plan = (dependents: SilencedResource[], labels: Record<string, string>) =>
    planSilences({
      condition,
      resource: web01,
      dependents,
      labels,
      startsAt: '2026-05-14T02:08:40.000Z',
      respectIntentSeconds: 3600,
    });

  it('one silence for the resource, ending respect_intent_seconds on, the narrative and marker as comment', () => {
    const p = plan([], { instance: '{name}' });
    expect(p.dropped).toEqual([]);
    expect(p.silences).toEqual([
      {
        resourceId: web01.id,
        silence: {
          matchers: [eq('instance', 'web01')],
          startsAt: '2026-05-14T02:08:40.000Z',
          endsAt: '2026-05-14T03:08:40.000Z',
          createdBy: 'aitia',
          comment:
            'Stopped by alice@pve — task qmstop UPID:pve1:001A2B01 at 02:08:31 UTC, high confidence — check_failing on ' +
            `${web01.id} is expected ${ownershipMarker(condition.id, web01.id)}`,
        },
      },
    ]);
    expect(ownedBy(p.silences[0]!.silence)).toEqual({ conditionId: condition.id, resourceId: web01.id });
  });

  it('one more per dependent, each its own marker; a dependent whose template has no value is dropped with why', () => {
    const p = plan([pg, web01, { ...pg, id: 'manual:service/x', name: 'x' }], { instance: '{name}' });
    expect(p.silences.map((s) => [s.resourceId, s.silence.matchers[0]!.value])).toEqual([
      [web01.id, 'web01'],
      [pg.id, 'pg'],
      ['manual:service/x', 'x'],
    ]);
    expect(p.silences[1]!.silence.comment).toContain(
      `(depends on ${web01.id}) ${ownershipMarker(condition.id, pg.id)}`,
    );
    const vmidOnly = plan([pg], { vmid: '{attr.vmid}' });
    expect(vmidOnly.silences.map((s) => s.resourceId)).toEqual([web01.id]);
    expect(vmidOnly.dropped).toEqual([{ resourceId: pg.id, reason: `label vmid: ${pg.id} has no attr.vmid` }]);
  });
});
