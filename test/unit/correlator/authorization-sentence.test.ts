import { describe, expect, it } from 'vitest';
import { attribute, narrate, TRANSITION_TABLE } from '../../../correlator/index.js';
import { authorizationSentence } from '../../../correlator/narrative.js';
import type { Attribution, AttributionAuthorization } from '../../../src/model/index.js';
import { task, VM, vmTransition } from './builders.js';

/*
 * The narrative's last sentence for an agent's change: the grant and who approved it, the auto
 * action, or "Unauthorized: …" — the same whether the narrative is written at the pass or
 * rendered again in a zone, and absent when nothing was decided.
 */
const on = vmTransition('stopped', 'running');
const start = task({ type: 'qmstart', start: '02:08:29', user: 'rhodes@pve!ops' });
const base = attribute(on, [start], TRANSITION_TABLE, { hostCauses: true });
const grant: AttributionAuthorization = {
  grantId: 'auth-7',
  source: 'grant',
  approvalId: 'apr-3',
  action: 'start',
  principal: 'rhodes',
  requestedBy: 'rhodes',
  approvedBy: 'bob',
  approvedAt: '2026-05-14T02:01:00Z',
  at: '2026-05-14T02:08:00Z',
  matchedBy: 'window',
  eventId: start.id,
};
const unauthorized = { principal: 'rhodes', actor: 'rhodes@pve!ops', eventId: start.id, reason: 'nothing on it' };

describe('authorizationSentence', () => {
  it.each<[string, Attribution, string | null]>([
    ['nothing decided', base, null],
    ['decided neither (both null)', { ...base, authorization: null, unauthorized: null }, null],
    [
      'a grant, high',
      { ...base, authorization: grant },
      'Authorized: started by agent rhodes (Proxmox token rhodes@pve!ops) under grant auth-7 for start (approval apr-3, requested by rhodes) approved by bob at 2026-05-14T02:01:00Z, redeemed at 2026-05-14T02:08:00Z.',
    ],
    [
      'a grant, medium: said of the task, not claimed as the cause',
      { ...base, confidence: 'medium', authorization: grant },
      'Authorized, if that task caused it: started by agent rhodes (Proxmox token rhodes@pve!ops) under grant auth-7 for start (approval apr-3, requested by rhodes) approved by bob at 2026-05-14T02:01:00Z, redeemed at 2026-05-14T02:08:00Z.',
    ],
    [
      'an auto action',
      { ...base, authorization: { ...grant, source: 'auto', approvalId: null, approvedBy: null, approvedAt: null } },
      'Authorized: started by agent rhodes (Proxmox token rhodes@pve!ops) as an automatic start the gate allowed (auth-7, reported at 2026-05-14T02:08:00Z).',
    ],
    [
      'unauthorized',
      { ...base, unauthorized },
      'Unauthorized: started by agent rhodes (Proxmox token rhodes@pve!ops) with no grant redeemed or automatic action reported that explains it — nothing on it.',
    ],
  ])('%s', (_name, attribution, want) => {
    expect(authorizationSentence(on, attribution)).toBe(want);
  });

  it('ends the narrative, in UTC and in a zone alike', () => {
    const a = { ...base, authorization: grant };
    const sentence = authorizationSentence(on, a)!;
    for (const zone of ['UTC', 'Europe/Berlin']) {
      const told = narrate({ id: VM, kind: 'vm', name: 'web01' }, on, a, { zone });
      expect(told.ok && told.text.endsWith(` ${sentence}`)).toBe(true);
    }
    const plain = narrate({ id: VM, kind: 'vm', name: 'web01' }, on, base);
    expect(plain.ok && plain.text.includes('Authorized')).toBe(false);
  });
});
