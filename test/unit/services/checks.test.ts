import { describe, expect, it } from 'vitest';
import type { CheckRecord } from '../../../src/model/index.js';
import { createCheck, httpSpecOf, recentResults, tcpSpecOf } from '../../../src/services/checks.js';
import { agent, fakeDeps, operator } from './fake-deps.js';

const resources = [
  { id: 'proxmox:lab/qemu/101', kind: 'vm', provider: 'proxmox', name: 'web' },
  { id: 'proxmox:lab/lxc/200', kind: 'lxc', provider: 'proxmox', name: 'ct' },
  { id: 'vcenter:vc1/vm/vm-9', kind: 'vm', provider: 'vcenter', name: 'app' },
];

describe('createCheck', () => {
  it.each([
    ['vcenter:vc1/vm/vm-9', 'a vcenter vm'],
    ['lxc:ct', 'a proxmox lxc'],
  ])('refuses a proxmox_agent check on %s, naming input.kind', async (resourceId, what) => {
    const { deps, audit } = fakeDeps(resources);
    await expect(createCheck(deps, operator, { resourceId, kind: 'proxmox_agent' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.kind',
      message: expect.stringContaining(`is ${what}`),
    });
    expect(audit[0]).toMatchObject({ operation: 'createCheck', targetIds: [resourceId], outcome: 'refused' });
  });

  it('validates the spec before it reads the resource', async () => {
    const { deps } = fakeDeps([]);
    await expect(createCheck(deps, operator, { resourceId: 'vm:nope', kind: 'http' })).rejects.toMatchObject({
      field: 'input.http',
    });
    await expect(createCheck(deps, operator, { resourceId: 'vm:nope', kind: 'provider_state' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.resourceId',
      message: 'input.resourceId: no resource vm:nope',
    });
  });

  it('is for operators only', async () => {
    const { deps } = fakeDeps(resources);
    await expect(createCheck(deps, agent, { resourceId: 'vm:web', kind: 'provider_state' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { permission: 'check:manage' },
    });
  });
});

const check = (over: Partial<CheckRecord>): CheckRecord => ({
  id: 'c',
  resourceId: 'r',
  kind: 'provider_state',
  spec: {},
  intervalSeconds: 60,
  critical: false,
  createdBy: 'x',
  createdAt: '2026-01-01T00:00:00Z',
  nextDueAt: null,
  lastRunAt: null,
  results: [],
  failing: { active: false, failStreak: 0, passStreak: 0 },
  unreachable: { active: false, failStreak: 0, passStreak: 0 },
  ...over,
});

describe('a check as read', () => {
  it('types the spec of its own kind only', () => {
    const http = check({ kind: 'http', spec: { url: 'http://x/', expectedStatus: 200, timeoutMs: 5000 } });
    expect(httpSpecOf(http)).toEqual({ url: 'http://x/', expectedStatus: 200, timeoutMs: 5000 });
    expect(tcpSpecOf(http)).toBeNull();
    const tcp = check({ kind: 'tcp', spec: { host: 'h', port: 22, timeoutMs: 1000 } });
    expect(tcpSpecOf(tcp)).toEqual({ host: 'h', port: 22, timeoutMs: 1000 });
    expect(httpSpecOf(tcp)).toBeNull();
  });

  it('gives the newest `last` results; last must be a positive integer', () => {
    const results = [1, 2, 3].map((n) => ({
      status: 'pass' as const,
      at: `2026-01-01T00:00:0${n}Z`,
      durationMs: n,
      reason: null,
      unreachable: false,
    }));
    const c = check({ results });
    expect(recentResults(c, 2)).toEqual(results.slice(0, 2));
    expect(recentResults(c, null)).toEqual(results);
    expect(() => recentResults(c, 0)).toThrow('last: must be a positive integer');
  });
});
