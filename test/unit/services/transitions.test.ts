import { describe, expect, it } from 'vitest';
import { noneAttribution } from '../../../src/model/index.js';
import { explainTransition, narrativeInZone } from '../../../src/services/transitions.js';
import { agent, fakeDeps } from './fake-deps.js';

const resources = [{ id: 'proxmox:lab/qemu/101', kind: 'vm', provider: 'proxmox', name: 'web' }];

describe('explainTransition checks the change it is asked about', () => {
  it.each([
    [{ from: 'sleeping', to: 'stopped' }, 'from', /"sleeping" is not a vm state; one of: running/],
    [{ from: 'running', to: 'up' }, 'to', /"up" is not a vm state/],
    [{ from: 'running', to: 'running' }, 'to', /must differ from `from`/],
  ])('%j → BAD_USER_INPUT %s', async (change, field, message) => {
    const { deps } = fakeDeps(resources);
    const asked = { resourceId: 'vm:web', at: '2026-05-14T02:08:31Z', ...change };
    await expect(explainTransition(deps, agent, asked)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field,
      message: expect.stringMatching(message),
    });
  });
});

describe('the narrative in a zone', () => {
  const transition = {
    resourceId: 'proxmox:lab/qemu/101',
    kind: 'vm' as const,
    from: 'running',
    to: 'stopped',
    observedAt: '2026-05-14T02:08:31Z',
  };
  const input = {
    transition,
    attribution: noneAttribution({ lookbackSeconds: 300 }, 0, 'nothing'),
    stored: 'as stored',
  };

  it('is the stored one without a zone, read nowhere', async () => {
    const { deps } = fakeDeps([]);
    expect(await narrativeInZone(deps, agent, { ...input, zone: null })).toBe('as stored');
  });

  it('names the resource and the zone asked for, reading the resource through the given reader', async () => {
    const { deps } = fakeDeps([]);
    const read: string[] = [];
    const text = await narrativeInZone(deps, agent, {
      ...input,
      zone: 'Europe/Berlin',
      readResource: async (id) => {
        read.push(id);
        return null;
      },
    });
    expect(read).toEqual(['proxmox:lab/qemu/101']);
    expect(text).toMatch(/^vm proxmox:lab\/qemu\/101 went running → stopped at 2026-05-14 04:08:31 .*Europe\/Berlin/);
  });

  it('reads the resource from the graph by default', async () => {
    const { deps } = fakeDeps(resources);
    expect(await narrativeInZone(deps, agent, { ...input, zone: 'UTC' })).toMatch(/^vm web \(proxmox:lab\/qemu\/101\)/);
  });

  it('refuses an unknown zone, naming `zone`', async () => {
    const { deps } = fakeDeps(resources);
    await expect(narrativeInZone(deps, agent, { ...input, zone: 'Mars/Olympus' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'zone',
      message: expect.stringMatching(/use an IANA zone such as Europe\/Berlin, or UTC$/),
    });
  });
});
