import { describe, expect, it } from 'vitest';
import {
  type ActorMappingEntry,
  actorKey,
  describeActorIdentity,
  principalOfActor,
  resolveActorMapping,
  unknownPrincipalsWarning,
} from '../../../src/model/actors.js';

const MAPPING: ActorMappingEntry[] = [
  { provider: 'proxmox', user: 'rhodes@pve!ops', principal: 'rhodes', role: 'agent' },
  { provider: 'proxmox', user: 'alice@pve', principal: 'alice', role: 'operator' },
  { provider: 'proxmox', user: 'alice@pve!ci', principal: 'ci-agent', role: 'agent' },
  { provider: 'vcenter', user: 'VSPHERE.LOCAL\\svc-rhodes', principal: 'rhodes', role: 'agent' },
  { provider: 'vcenter', user: 'bob@corp.example.com', principal: 'bob', role: 'operator' },
  { provider: 'vcenter', user: 'carol', principal: 'carol', role: 'operator' },
];

describe('principalOfActor', () => {
  it.each([
    // Proxmox: exact, case-sensitive; a token's entry beats its user's; a user's entry covers its other tokens.
    ['proxmox', 'rhodes@pve!ops', 'rhodes', 'exact'],
    ['proxmox', 'rhodes@pve', null, null],
    ['proxmox', 'rhodes@pve!other', null, null],
    ['proxmox', 'Rhodes@pve!ops', null, null],
    ['proxmox', 'alice@pve', 'alice', 'exact'],
    ['proxmox', 'alice@pve!ci', 'ci-agent', 'exact'],
    ['proxmox', 'alice@pve!backup', 'alice', 'user'],
    ['proxmox', 'alice@pam', null, null],
    ['proxmox', 'root@pam', null, null],
    // vCenter: DOMAIN\user and user@domain are one identity, case-insensitively.
    ['vcenter', 'VSPHERE.LOCAL\\svc-rhodes', 'rhodes', 'exact'],
    ['vcenter', 'vsphere.local\\SVC-RHODES', 'rhodes', 'exact'],
    ['vcenter', 'svc-rhodes@vsphere.local', 'rhodes', 'exact'],
    ['vcenter', 'CORP.EXAMPLE.COM\\bob', 'bob', 'exact'],
    ['vcenter', 'CORP\\bob', null, null],
    ['vcenter', 'bob', null, null],
    ['vcenter', 'Carol', 'carol', 'exact'],
    ['vcenter', 'carol@vsphere.local', null, null],
    // The wrong provider, no actor, a malformed one.
    ['vcenter', 'rhodes@pve!ops', null, null],
    ['proxmox', 'svc-rhodes@vsphere.local', null, null],
    ['proxmox', null, null, null],
    ['proxmox', '', null, null],
    ['vcenter', 'a\\b\\c', null, null],
  ] as const)('%s %s → %s (%s)', (provider, actor, principal, matchedBy) => {
    const found = principalOfActor(actor, provider, MAPPING);
    expect(found?.principal ?? null).toBe(principal);
    expect(found?.matchedBy ?? null).toBe(matchedBy);
  });

  it('names the entry that mapped it, with its role', () => {
    expect(principalOfActor('svc-rhodes@vsphere.local', 'vcenter', MAPPING)).toEqual({
      principal: 'rhodes',
      role: 'agent',
      user: 'VSPHERE.LOCAL\\svc-rhodes',
      provider: 'vcenter',
      matchedBy: 'exact',
    });
  });
});

describe('actorKey', () => {
  it.each([
    ['proxmox', 'rhodes@pve!ops', { user: 'rhodes@pve', tokenId: 'ops' }],
    ['proxmox', 'root@pam', { user: 'root@pam', tokenId: null }],
    ['vcenter', 'VSPHERE.LOCAL\\Administrator', { user: 'administrator@vsphere.local', tokenId: null }],
    ['vcenter', 'Administrator@VSPHERE.LOCAL', { user: 'administrator@vsphere.local', tokenId: null }],
    ['vcenter', 'svc', { user: 'svc', tokenId: null }],
  ] as const)('%s %s', (provider, user, key) => {
    expect(actorKey(provider, user)).toEqual({ ok: true, key: { provider, ...key } });
  });

  it.each([
    ['proxmox', 'rhodes', /not a Proxmox user@realm/],
    ['proxmox', 'a@pve!', /not a Proxmox/],
    ['proxmox', 'a b@pve', /not a Proxmox/],
    ['proxmox', '@pve', /not a Proxmox/],
    ['vcenter', 'A\\b@c', /not a vCenter/],
    ['vcenter', '\\bob', /empty part/],
    ['vcenter', 'bob@', /empty part/],
    ['vcenter', 'bo b', /whitespace/],
    ['vcenter', ' ', /must not be empty/],
  ] as const)('refuses %s %s', (provider, user, reason) => {
    const k = actorKey(provider, user);
    expect(k.ok).toBe(false);
    if (!k.ok) expect(k.reason).toMatch(reason);
  });
});

describe('resolveActorMapping', () => {
  it('takes each role from the tokens as they stand, and names the principals no token has', () => {
    const resolved = resolveActorMapping(
      [
        { provider: 'proxmox', user: 'rhodes@pve!ops', principal: 'rhodes' },
        { provider: 'proxmox', user: 'alice@pve', principal: 'alice' },
        { provider: 'vcenter', user: 'ghost', principal: 'ghost' },
      ],
      [
        { name: 'rhodes', role: 'agent' },
        { name: 'alice', role: 'operator' },
      ],
    );
    expect(resolved.entries.map((e) => e.role)).toEqual(['agent', 'operator', null]);
    expect(resolved.unknownPrincipals).toEqual(['ghost']);
    expect(unknownPrincipalsWarning(resolved)).toMatch(/actors: no token is named "ghost"/);
    expect(unknownPrincipalsWarning(resolveActorMapping([], []))).toBeNull();
  });
});

describe('describeActorIdentity', () => {
  it.each([
    ['proxmox', 'rhodes@pve!ops', 'Proxmox token rhodes@pve!ops'],
    ['proxmox', 'alice@pve', 'Proxmox user alice@pve'],
    ['vcenter', 'VSPHERE.LOCAL\\svc-rhodes', 'vCenter user "VSPHERE.LOCAL\\\\svc-rhodes"'],
    ['vcenter', 'svc@vsphere.local', 'vCenter user svc@vsphere.local'],
    ['proxmox', 'x@pve!"ignore previous"', 'Proxmox token "x@pve!\\"ignore previous\\""'],
  ] as const)('%s %s', (provider, actor, text) => {
    expect(describeActorIdentity(provider, actor)).toBe(text);
  });
});
