import neo4j, { type Driver } from 'neo4j-driver';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { ensurePrivateDir } from '../../model/private-files.js';
import { EMBEDDED_USER, ensureEmbeddedPassword } from '../embedded/password.js';
import { portAnswers } from '../embedded/ports.js';
import { startSupervisedNeo4j } from '../embedded/supervisor.js';
import { type AvailabilityListener, DEFAULT_DRIVER_BOUNDS, type DriverBounds, guardDriver } from './guarded-driver.js';
import { migrate } from './migrations.js';

export { DEFAULT_DRIVER_BOUNDS, type DriverBounds };

export interface Neo4jConnection {
  uri: string;
  user?: string | undefined;
  password?: string | undefined;
}

/**
 * One driver per process; without a password the connection is unauthenticated (an external Neo4j
 * with auth off). Every bound is finite, and calls are guarded (guarded-driver.ts): while Neo4j is
 * down, frozen or unreachable, a call answers `UNAVAILABLE` within about `stallMs + probeMs`.
 */
export function createDriver(
  conn: Neo4jConnection,
  bounds: DriverBounds = DEFAULT_DRIVER_BOUNDS,
  onAvailability?: AvailabilityListener,
): Driver {
  const auth = conn.password ? neo4j.auth.basic(conn.user ?? 'neo4j', conn.password) : undefined;
  const driver = neo4j.driver(conn.uri, auth, {
    maxConnectionPoolSize: 50,
    connectionTimeout: bounds.connectTimeoutMs,
    connectionAcquisitionTimeout: bounds.acquireTimeoutMs,
    maxTransactionRetryTime: bounds.retryMs,
    disableLosslessIntegers: false,
    // Nothing here reads Neo4j's notifications (an unknown relationship type in a walk, a hint),
    // and building them for every statement cost Neo4j ~9 % and this process ~5 % of a shared read.
    notificationFilter: { minimumSeverityLevel: 'OFF' },
  });
  // Its own two connections: the question "does Neo4j answer at all" must not queue behind the work.
  const probe = neo4j.driver(conn.uri, auth, {
    maxConnectionPoolSize: 2,
    connectionTimeout: bounds.probeMs,
    connectionAcquisitionTimeout: bounds.probeMs,
    maxTransactionRetryTime: 0,
  });
  return guardDriver(driver, probe, bounds, onAvailability);
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
  /** The embedded Neo4j this process runs and supervises (`via: 'embedded'` only). */
  embedded?: { readonly pid: number | undefined; readonly restarts: number };
  close(): Promise<void>;
}

/**
 * The embedded Neo4j under a data dir: its store, the file where the running one advertises its
 * Bolt URI (so CLI commands can share it), and the password of its `neo4j` user.
 */
export function embeddedFiles(dataDir: string): { home: string; uriFile: string; passwordFile: string } {
  return {
    home: join(dataDir, 'neo4j'),
    uriFile: join(dataDir, 'neo4j.uri'),
    passwordFile: join(dataDir, 'neo4j.password'),
  };
}

/** Where the graph is: an external Neo4j, or the embedded one under a data dir. */
export interface GraphLocation {
  /** `NEO4J_URI` with its credentials; unset means the embedded Neo4j. */
  external: Neo4jConnection | undefined;
  /** `AITIA_DATA_DIR`: the embedded Neo4j's store and the file advertising its Bolt URI. */
  dataDir: string;
  /** The driver's timeouts (AITIA_NEO4J_*); defaults when omitted. */
  bounds?: DriverBounds;
}

/**
 * Connects to `NEO4J_URI` when set; otherwise reuses the embedded Neo4j another aitia process
 * started under the same data dir, or starts one, with the password kept in the data dir (which
 * must be owner-only: it is created 0700, and an existing one that is not is refused). An embedded
 * Neo4j this process starts is supervised: restarted on the same store and port when it dies. Each
 * outage and recovery is logged once. Applies migrations before returning.
 */
export async function openGraph(
  where: GraphLocation,
  log: (msg: string, detail?: Record<string, unknown>, level?: 'info' | 'warn') => void,
): Promise<GraphHandle> {
  let handle: GraphHandle;
  const bounds = where.bounds ?? DEFAULT_DRIVER_BOUNDS;
  const availability: AvailabilityListener = (available, detail) =>
    available
      ? log('Neo4j answers again', detail)
      : log('Neo4j unavailable: calls answer UNAVAILABLE until it answers again', detail, 'warn');
  if (where.external) {
    const driver = createDriver(where.external, bounds, availability);
    handle = { driver, uri: where.external.uri, via: 'NEO4J_URI', close: () => driver.close() };
  } else {
    ensurePrivateDir(where.dataDir, 'the data dir (AITIA_DATA_DIR)');
    const { home, uriFile: file, passwordFile } = embeddedFiles(where.dataDir);
    const shared = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    const port = Number(/:(\d+)$/.exec(shared)?.[1] ?? 0);
    if (port > 0 && (await portAnswers(port))) {
      const password = ensureEmbeddedPassword(passwordFile);
      const driver = createDriver({ uri: shared, user: EMBEDDED_USER, password }, bounds, availability);
      handle = { driver, uri: shared, via: 'embedded (shared)', close: () => driver.close() };
    } else {
      const neo = await startSupervisedNeo4j({
        dataDir: home,
        passwordFile,
        log: (m) => log(m, {}, /exited|failed/.test(m) ? 'warn' : 'info'),
      });
      writeFileSync(file, neo.uri + '\n');
      const driver = createDriver({ uri: neo.uri, user: neo.user, password: neo.password }, bounds, availability);
      handle = {
        driver,
        uri: neo.uri,
        via: 'embedded',
        embedded: neo,
        close: async () => {
          await driver.close();
          rmSync(file, { force: true });
          await neo.stop();
        },
      };
    }
  }
  const result = await migrate(handle.driver).catch(async (err: unknown) => {
    await handle.close();
    throw refusedCredentials(err, where) ?? err;
  });
  log('graph ready', { neo4j: handle.uri, via: handle.via, migrationsApplied: result.applied });
  return handle;
}

/** A ConfigError saying which credentials Neo4j refused and what to do, or null for any other failure. */
function refusedCredentials(err: unknown, where: GraphLocation): ConfigError | null {
  if ((err as { code?: string }).code !== 'Neo.ClientError.Security.Unauthorized') return null;
  if (where.external) {
    return new ConfigError(
      `Neo4j at ${where.external.uri} refused the credentials: set NEO4J_USER and NEO4J_PASSWORD to a user it knows (${(err as Error).message})`,
    );
  }
  const { passwordFile } = embeddedFiles(where.dataDir);
  return new ConfigError(
    `the embedded Neo4j refused the password in ${passwordFile}: it was changed while Neo4j ran; stop every aitia process using ${where.dataDir} and start again (the launcher applies the file at start)`,
  );
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
