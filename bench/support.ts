import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Driver } from 'neo4j-driver';
import { createDriver, DEFAULT_DRIVER_BOUNDS, type DriverBounds } from '../src/graph/driver.js';
import { migrate } from '../src/graph/migrations.js';
import { startEmbeddedNeo4j } from '../src/graph/embedded/launcher.js';

/**
 * A Neo4j for a benchmark: NEO4J_URI when set, else a throwaway embedded one. `bounds`: a bulk
 * benchmark on a loaded 2-core machine may see `RETURN 1` wait out a long GC pause; it should not
 * count that as an outage.
 */
export async function benchNeo4j(
  bounds: DriverBounds = DEFAULT_DRIVER_BOUNDS,
): Promise<{ driver: Driver; via: string; stop(): Promise<void> }> {
  if (process.env.NEO4J_URI) {
    const driver = createDriver(
      {
        uri: process.env.NEO4J_URI,
        user: process.env.NEO4J_USER,
        password: process.env.NEO4J_PASSWORD,
      },
      bounds,
    );
    await migrate(driver);
    return { driver, via: process.env.NEO4J_URI, stop: () => driver.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'aitia-bench-'));
  const neo = await startEmbeddedNeo4j({ dataDir: dir, heap: '4g', pageCacheMb: 1024, log: (m) => console.log(m) });
  const driver = createDriver({ uri: neo.uri, user: neo.user, password: neo.password }, bounds);
  await migrate(driver);
  return {
    driver,
    via: `embedded ${neo.uri}`,
    async stop() {
      await driver.close();
      await neo.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Percentile of a sample (nearest rank). */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Times `fn` `n` times after `warmup` untimed runs; milliseconds per call. */
export async function timeEach(n: number, warmup: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

export const fmt = (n: number, digits = 2) => n.toFixed(digits);
