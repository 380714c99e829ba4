import { describe, expect, it } from 'vitest';
import { createReport } from '../../../src/ingest/report.js';
import { createLogger } from '../../../src/log.js';
import { startPoller } from '../../../src/scheduler/poller.js';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startPoller', () => {
  it('runs at once, never overlaps a slow pass, survives a failing pass, and stops cleanly', async () => {
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const reports: string[] = [];
    const poller = startPoller({
      name: 'proxmox test',
      intervalSeconds: 0.05,
      log: createLogger('silent'),
      onResult: (r) => void reports.push(r.updateTag),
      pass: async () => {
        calls++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        await sleep(120); // longer than the interval
        running--;
        if (calls === 2) throw new Error('neo4j went away');
        return { ...createReport('proxmox', 'proxmox:lab', `pass-${calls}`), complete: true };
      },
    });
    await sleep(450);
    await poller.stop();
    const after = calls;
    await sleep(200);
    expect(maxRunning).toBe(1);
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(calls).toBe(after);
    expect(reports).toContain('pass-1');
    expect(reports).not.toContain('pass-2');
    expect(poller.passes).toBe(calls);
  });
});
