import neo4j, { type Driver } from 'neo4j-driver';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { portAnswers } from './embedded/ports.js';
import { startEmbeddedNeo4j } from './embedded/launcher.js';
import { migrate } from './migrations.js';

export interface Neo4jConnection {
  uri: string;
  user?: string | undefined;
  password?: string | undefined;
}

/** One driver per process; without a password the connection is unauthenticated (embedded Neo4j). */
export function createDriver(conn: Neo4jConnection): Driver {
  const auth = conn.password ? neo4j.auth.basic(conn.user ?? 'neo4j', conn.password) : undefined;
  return neo4j.driver(conn.uri, auth, {
    maxConnectionPoolSize: 50,
    connectionAcquisitionTimeout: 30_000,
    disableLosslessIntegers: false,
  });
}

/** True when Neo4j answers a trivial query. */
export async function ping(driver: Driver): Promise<boolean> {
  try {
    await driver.executeQuery('RETURN 1');
    return true;
  } catch {
    return false;
  }
}

/** An open graph: the driver, where it points, and how to let go of it. */
export interface GraphHandle {
  driver: Driver;
  uri: string;
  via: 'NEO4J_URI' | 'embedded' | 'embedded (shared)';
  close(): Promise<void>;
}

/** The running embedded Neo4j advertises its Bolt URI here so CLI commands can share it. */
function uriFile(dataDir: string): string {
  return join(dataDir, 'neo4j.uri');
}

/** Where the graph is: an external Neo4j, or the embedded one under a data dir. */
export interface GraphLocation {
  /** `NEO4J_URI` with its credentials; unset means the embedded Neo4j. */
  external: Neo4jConnection | undefined;
  /** `AITIA_DATA_DIR`: the embedded Neo4j's store and the file advertising its Bolt URI. */
  dataDir: string;
}

/**
 * Connects to `NEO4J_URI` when set; otherwise reuses the embedded Neo4j another aitia process
 * started under the same data dir, or starts one. Applies migrations before returning.
 */
export async function openGraph(
  where: GraphLocation,
  log: (msg: string, detail?: Record<string, unknown>) => void,
): Promise<GraphHandle> {
  let handle: GraphHandle;
  if (where.external) {
    const driver = createDriver(where.external);
    handle = { driver, uri: where.external.uri, via: 'NEO4J_URI', close: () => driver.close() };
  } else {
    const file = uriFile(where.dataDir);
    const shared = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    const port = Number(/:(\d+)$/.exec(shared)?.[1] ?? 0);
    if (port > 0 && (await portAnswers(port))) {
      const driver = createDriver({ uri: shared });
      handle = { driver, uri: shared, via: 'embedded (shared)', close: () => driver.close() };
    } else {
      const neo = await startEmbeddedNeo4j({ dataDir: join(where.dataDir, 'neo4j'), log: (m) => log(m) });
      writeFileSync(file, neo.uri + '\n');
      const driver = createDriver({ uri: neo.uri });
      handle = {
        driver,
        uri: neo.uri,
        via: 'embedded',
        close: async () => {
          await driver.close();
          rmSync(file, { force: true });
          await neo.stop();
        },
      };
    }
  }
  const result = await migrate(handle.driver);
  log('graph ready', { neo4j: handle.uri, via: handle.via, migrationsApplied: result.applied });
  return handle;
}

/**
 * Wraps a driver so every Cypher statement sent through it is counted (executeQuery, session.run and
 * tx.run). Used by the N+1 test and `bench:api` to show that DataLoaders keep query counts constant.
 */
export function countingDriver(driver: Driver): { driver: Driver; count(): number; reset(): void } {
  /* eslint-disable @typescript-eslint/no-explicit-any -- a transparent Proxy over the driver's own types */
  let n = 0;
  const wrapTx = (tx: any) =>
    new Proxy(tx, { get: (t, p) => (p === 'run' ? (...a: unknown[]) => (n++, t.run(...a)) : Reflect.get(t, p)) });
  const wrapSession = (s: any) =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === 'run') return (...a: unknown[]) => (n++, target.run(...a));
        if (prop === 'executeRead' || prop === 'executeWrite')
          return (work: (tx: unknown) => unknown, cfg?: unknown) =>
            target[prop]((tx: unknown) => work(wrapTx(tx)), cfg);
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  const proxy = new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery') return (...a: unknown[]) => (n++, (target.executeQuery as any)(...a));
      if (prop === 'session') return (...a: unknown[]) => wrapSession((target.session as any)(...a));
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  /* eslint-enable @typescript-eslint/no-explicit-any */
  return { driver: proxy, count: () => n, reset: () => (n = 0) };
}
