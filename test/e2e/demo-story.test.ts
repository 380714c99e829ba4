import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { useGraph } from '../support/graph.js';

const { driver } = useGraph();

describe('the demo homelab', () => {
  it('plays its story through the real ingest, correlator and gate', async () => {
    const lines: string[] = [];
    const r = await runDemo(driver, { suppression: 'shadow', print: (l) => lines.push(l) });
    console.log(lines.join('\n'));
    expect(r.transitions.map((t) => [t.transition.resourceId, t.transition.from, t.transition.to, t.transition.attribution.confidence])).toEqual([
      ['proxmox:homelab/qemu/101', 'running', 'stopped', 'high'],
      ['proxmox:homelab/qemu/110', 'running', 'stopped', 'high'],
      ['proxmox:homelab/qemu/102', 'running', 'stopped', 'none'],
      ['proxmox:homelab/qemu/113', 'running', 'paused_io_error', 'none'],
    ]);
  }, 120_000);
});
