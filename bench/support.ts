import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Driver } from 'neo4j-driver';
import { createDriver, DEFAULT_DRIVER_BOUNDS, type DriverBounds } from '../src/graph/db/driver.js';
import { migrate } from '../src/graph/db/migrations.js';
import { startEmbeddedNeo4j } from '../src/graph/embedded/launcher.js';

/**
 * A Neo4j for a benchmark: NEO4J_URI when set, else a throwaway embedded one. `bounds`: a bulk
 * benchmark on a loaded 2-core machine may see `RETURN 1` wait out a long GC pause; it should not
 * count that as an outage.
 */
export async function benchNeo4j(bounds: DriverBounds = DEFAULT_DRIVER_BOUNDS): Promise<{
  driver: Driver;
  via: string;
  /** How another process reaches the same Neo4j (for a child measured on its own). */
  env: Record<string, string>;
  /** CPU milliseconds the Neo4j process has used so far (embedded only; null for NEO4J_URI). */
  cpuMs(): number | null;
  stop(): Promise<void>;
}> {
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
    const env = Object.fromEntries(
      ['NEO4J_URI', 'NEO4J_USER', 'NEO4J_PASSWORD'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
    );
    return { driver, via: process.env.NEO4J_URI, env, cpuMs: () => null, stop: () => driver.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'aitia-bench-'));
  const neo = await startEmbeddedNeo4j({ dataDir: dir, heap: '4g', pageCacheMb: 1024, log: (m) => console.log(m) });
  const driver = createDriver({ uri: neo.uri, user: neo.user, password: neo.password }, bounds);
  await migrate(driver);
  return {
    driver,
    via: `embedded ${neo.uri}`,
    env: { NEO4J_URI: neo.uri, NEO4J_USER: neo.user, NEO4J_PASSWORD: neo.password },
    cpuMs: () => processCpuMs(neo.pid),
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

/** A process's user + system CPU from /proc (Linux), in ms; null where that cannot be read. */
function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}
