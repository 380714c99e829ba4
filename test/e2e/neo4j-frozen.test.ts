import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boltAnswers } from '../../src/graph/embedded/ports.js';
import { type SupervisedNeo4j, startSupervisedNeo4j } from '../../src/graph/embedded/supervisor.js';

/**
 * Issue 17 item 2, a frozen Neo4j: the supervisor restarts a JVM that still exists but no longer
 * answers (SIGSTOP) as it restarts a dead one, and leaves a live one alone.
 */
const UNRESPONSIVE_MS = 5000;
const home = mkdtempSync(join(tmpdir(), 'aitia-frozen-'));
const logs: string[] = [];
let neo: SupervisedNeo4j;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  neo = await startSupervisedNeo4j({
    dataDir: join(home, 'neo4j'),
    passwordFile: join(home, 'neo4j.password'),
    unresponsiveMs: UNRESPONSIVE_MS,
    livenessEveryMs: 1000,
    log: (m) => logs.push(m),
  });
}, 180_000);

afterAll(async () => {
  await neo?.stop();
  rmSync(home, { recursive: true, force: true });
}, 60_000);

describe('the supervisor restarts a frozen embedded Neo4j', () => {
  it('a live Neo4j is left alone past the unresponsive bound', async () => {
    await new Promise((r) => setTimeout(r, UNRESPONSIVE_MS + 2000));
    expect(neo.restarts).toBe(0);
    expect(await boltAnswers(neo.port)).toBe(true);
  }, 30_000);

  it('SIGSTOP: killed after the bound, restarted with the backoff, answering again on the same port', async () => {
    const pid = neo.pid!;
    process.kill(pid, 'SIGSTOP');
    const stoppedAt = Date.now();
    try {
      // A stop reaches every JVM thread at its next return to user mode; on a loaded machine the
      // first handshake can still be answered, so the silence is polled for, not sampled once.
      await expect.poll(() => boltAnswers(neo.port, 500), { timeout: 4000, interval: 200 }).toBe(false);
      await expect.poll(() => neo.restarts, { timeout: 170_000, interval: 1000 }).toBe(1);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGCONT');
    }
    const killed = logs.find((l) => /unresponsive for \d+ s \(pid \d+ still there\): killing it/.test(l));
    expect(killed, logs.join('\n')).toBeDefined();
    expect(logs.some((l) => /exited unexpectedly \(signal SIGKILL/.test(l))).toBe(true);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(UNRESPONSIVE_MS);
    expect(alive(pid)).toBe(false);
    expect(neo.pid).not.toBe(pid);
    expect(await boltAnswers(neo.port)).toBe(true);
  }, 200_000);
});
