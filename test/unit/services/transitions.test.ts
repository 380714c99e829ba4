import neo4j from 'neo4j-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { noneAttribution } from '../../../src/model/index.js';
import { createFeedBus } from '../../../src/pipeline/bus.js';
import type { ServiceDeps } from '../../../src/services/deps.js';
import type { Principal } from '../../../src/services/permissions.js';
import { narrativeInZone } from '../../../src/services/transitions.js';

/*
 * The narrative without a graph read. There is no database here: the deps' driver points where
 * nothing listens and does not retry, so a read the service should not make fails the test.
 * Reading the resource from the graph is tested in test/integration/services/transitions.test.ts.
 */
const deps: ServiceDeps = {
  driver: neo4j.driver('bolt://127.0.0.1:9', undefined, { maxTransactionRetryTime: 0 }),
  log: createLogger('silent'),
  version: 'unit',
  policy: undefined,
  bus: createFeedBus(),
};
afterAll(() => deps.driver.close());
const agent: Principal = { name: 'unit-agent', role: 'agent' };

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
    expect(await narrativeInZone(deps, agent, { ...input, zone: null })).toBe('as stored');
  });

  it('names the resource and the zone asked for, reading the resource through the given reader', async () => {
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
});
