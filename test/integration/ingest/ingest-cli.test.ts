import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../support/fixtures.js';
import { ingestCommand } from '../../../src/cli/ingest.js';
import type { CliContext } from '../../../src/cli/context.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { useGraph } from '../../support/graph.js';
import { labRoutes } from '../../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin } from '../../support/proxmox-standin.js';

const { driver, scope } = useGraph();
let standin: ProxmoxStandin;
beforeAll(async () => {
  standin = await startProxmoxStandin();
  standin.routes(labRoutes(`lab-${scope}`));
});
afterAll(async () => {
  await standin.close();
});

function context(env: Record<string, string> = {}): { ctx: CliContext; lines: string[] } {
  const lines: string[] = [];
  const ctx: CliContext = {
    config: loadConfig({ AITIA_PROXMOX_URL: standin.url, AITIA_PROXMOX_TOKEN: standin.token, ...env }),
    log: createLogger('silent'),
    openGraph: async () => ({ driver, uri: 'test', via: 'NEO4J_URI', close: async () => {} }),
    print: (line) => void lines.push(line),
  };
  return { ctx, lines };
}

describe('aitia ingest', () => {
  it('proxmox --once prints progress per stage and exits 0 on a complete pass', async () => {
    const { ctx, lines } = context();
    expect(await ingestCommand.run(['proxmox', '--once'], ctx)).toBe(0);
    // The state poll: tasks first, the inventory stages, then state changes and transitions.
    expect(lines.map((l) => l.split(' ')[1])).toEqual([
      'tasks:',
      'fetch:',
      'transform:',
      'load:',
      'staleness:',
      'done:',
      'state:',
      'transitions:',
    ]);
    expect(lines.at(-3)).toMatch(
      new RegExp(
        `^proxmox:lab-${scope} done: fetched=\\d+ resources=23 written=23 new=23 edges=33 written=33 new=33 .* complete`,
      ),
    );
  });

  it('proxmox --once exits 1 when the pass was incomplete, listing the errors', async () => {
    standin.nodeDown('pve2');
    const { ctx, lines } = context();
    expect(await ingestCommand.run(['proxmox', '--once'], ctx)).toBe(1);
    standin.clearFaults();
    expect(lines.some((l) => /INCOMPLETE/.test(l))).toBe(true);
    expect(lines.some((l) => /error +proxmox:lab-.*\/node\/pve2/.test(l))).toBe(true);
  });

  it('proxmox without a configured URL, and bad flags, exit 2', async () => {
    const { ctx, lines } = context();
    ctx.config.proxmox.url = undefined;
    expect(await ingestCommand.run(['proxmox', '--once'], ctx)).toBe(2);
    expect(lines[0]).toMatch(/AITIA_PROXMOX_URL and AITIA_PROXMOX_TOKEN must be set/);
    expect(await ingestCommand.run(['proxmox', '--once', '--batch-size', 'many'], context().ctx)).toBe(2);
    expect(await ingestCommand.run(['nonsense'], context().ctx)).toBe(2);
  });

  it('vcenter --file imports the document; a bad server name or file exits 2', async () => {
    const file = join(FIXTURES, 'vcenter/inventory-pascal.json');
    const { ctx, lines } = context();
    expect(await ingestCommand.run(['vcenter', '--file', file, '--server', `vc-${scope}`], ctx)).toBe(0);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^vcenter:vc-${scope} done: fetched=10 resources=8 written=8 new=8 edges=9`),
    );
    expect(await ingestCommand.run(['vcenter', '--file', file, '--server', 'a b'], context().ctx)).toBe(2);
    expect(await ingestCommand.run(['vcenter', '--file', '/nonexistent.json'], context().ctx)).toBe(2);
  });

  it('missing lists what complete syncs no longer saw', async () => {
    standin.routes(labRoutes(`lab-${scope}`, { without: ['qemu/9000'] }));
    expect(await ingestCommand.run(['proxmox', '--once'], context().ctx)).toBe(0);
    const { ctx, lines } = context();
    expect(await ingestCommand.run(['missing', '--scope', `proxmox:lab-${scope}`], ctx)).toBe(0);
    expect(lines[0]).toBe('1 resource(s) not seen by the last complete sync of their scope');
    expect(lines[1]).toContain(`vm      proxmox:lab-${scope}/qemu/9000  (tmpl-debian12, last stopped)`);
  });
});
