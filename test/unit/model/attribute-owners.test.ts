import { describe, expect, it } from 'vitest';
import {
  type AttributeOwnerEntry,
  type AttributeOwnerFacts,
  attributeOwners,
  ownerOfAttribute,
  parseWriterRecord,
  writerRecord,
} from '../../../src/model/index.js';

const at = '2026-12-03T09:00:00.000Z';
const proxmoxVm: AttributeOwnerFacts = {
  provider: 'proxmox',
  attributes: { qemu_guest_agent: true, owner_team: 'web', entity_type: 'vm', note: 'x' },
  providerAttributeKeys: ['qemu_guest_agent', 'entity_type'],
};
const declared: AttributeOwnerFacts = {
  provider: 'manual',
  attributes: { port: 5432 },
  providerAttributeKeys: [],
  declaration: { by: 'rhodes', evidence: 'listening on :5432', at },
};

describe('who owns an attribute key (read side)', () => {
  it.each<[string, string, AttributeOwnerFacts, Omit<AttributeOwnerEntry, 'key'>]>([
    [
      'a key the provider reported',
      'qemu_guest_agent',
      proxmoxVm,
      { owner: 'provider', principal: 'proxmox', at: null },
    ],
    [
      'an agent’s key',
      'owner_team',
      { ...proxmoxVm, attributeWriters: { owner_team: { by: 'agent', name: 'rhodes', at } } },
      { owner: 'agent', principal: 'rhodes', at },
    ],
    [
      'an operator’s entity_type, over a provider key',
      'entity_type',
      { ...proxmoxVm, attributeWriters: { entity_type: { by: 'operator', name: 'alice', at } } },
      { owner: 'operator', principal: 'alice', at },
    ],
    [
      'entity_type recorded only in entityTypeBy (before per-key writers)',
      'entity_type',
      { ...proxmoxVm, providerAttributeKeys: [], entityTypeBy: 'operator:alice' },
      { owner: 'operator', principal: 'alice', at: null },
    ],
    [
      'entity_type the provider wrote last',
      'entity_type',
      { ...proxmoxVm, entityTypeBy: 'provider:proxmox' },
      { owner: 'provider', principal: 'proxmox', at: null },
    ],
    [
      'a key nobody recorded, on a provider resource',
      'note',
      proxmoxVm,
      { owner: 'declared', principal: null, at: null },
    ],
    [
      'a declaration’s key, recorded',
      'port',
      { ...declared, attributeWriters: { port: { by: 'declarer', name: 'rhodes', at } } },
      { owner: 'declared', principal: 'rhodes', at },
    ],
    [
      'a declared resource’s key from before writers were recorded: its declarer',
      'port',
      declared,
      { owner: 'declared', principal: 'rhodes', at: null },
    ],
    [
      'an agent’s later write on a declared resource',
      'port',
      { ...declared, attributeWriters: { port: { by: 'agent', name: 'bot', at } } },
      { owner: 'agent', principal: 'bot', at },
    ],
    [
      'a manual resource never trusts providerAttributeKeys',
      'port',
      { ...declared, declaration: null, providerAttributeKeys: ['port'] },
      { owner: 'declared', principal: null, at: null },
    ],
  ])('%s', (_what, key, facts, expected) => {
    expect(ownerOfAttribute(key, facts)).toEqual({ key, ...expected });
  });

  it('lists one entry per current key, by key', () => {
    expect(attributeOwners(proxmoxVm).map((o) => o.key)).toEqual([
      'entity_type',
      'note',
      'owner_team',
      'qemu_guest_agent',
    ]);
    expect(attributeOwners({ ...proxmoxVm, attributes: {} })).toEqual([]);
  });

  it.each<[unknown, ReturnType<typeof parseWriterRecord>]>([
    [writerRecord({ by: 'operator', name: 'alice', at }), { by: 'operator', name: 'alice', at }],
    [['declarer', 'rhodes', at], { by: 'declarer', name: 'rhodes', at }],
    [['nobody', 'x', at], null],
    [['agent', 'x'], null],
    ['agent:x', null],
    [null, null],
  ])('a stored writer record %j reads as %j', (raw, expected) => {
    expect(parseWriterRecord(raw)).toEqual(expected);
  });
});
