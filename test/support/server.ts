import type { CheckNetworkPolicy } from '../../src/model/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Driver } from 'neo4j-driver';
import { createLogger, type Logger } from '../../src/log.js';
import { createFeedBus, startFeedTail, type FeedBus } from '../../src/pipeline/bus.js';
import { createHttpServer, type HttpOptions, listen } from '../../src/server/http.js';
import type { PushSource } from '../../src/server/cloudevents-http.js';
import { TokenStore, addToken } from '../../src/services/token-store.js';
import type { Role } from '../../src/model/index.js';
import { loadStartupPolicy, type LoadedPolicy } from '../../src/policy/index.js';

export interface TestServer {
  url: string;
  tokens: Record<Role, string>;
  /** The tokens file the server authenticates with (re-read when it changes; a spawned `aitia mcp` reads it too). */
  tokensFile: string;
  /** The digest of the gate policy it started with. */
  policyDigest: string;
  /** The server's feed bus, fed by its tail of the stored feed (as in `aitia serve`). */
  bus: FeedBus;
  /** POSTs a GraphQL operation as an agent would; returns HTTP status and the JSON body. */
  gql(token: string | null, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/**
 * Starts the real HTTP server on 127.0.0.1 (free port) with a fresh tokens file, one token per role,
 * and the gate policy the service would load at start (the shipped one unless `options.policy`).
 */
export async function startTestServer(
  driver: Driver,
  options: {
    policy?: LoadedPolicy;
    tokenPrefix?: string;
    log?: Logger;
    now?: () => string;
    pushSources?: ReadonlyMap<string, PushSource>;
    http?: HttpOptions;
    /** Where checks may connect (AITIA_CHECK_ALLOW, see probe-target.ts checkNetworkAllowing); default none local. */
    checkNetwork?: CheckNetworkPolicy;
  } = {},
): Promise<TestServer> {
  const policy = options.policy ?? (await loadStartupPolicy(undefined));
  const dir = mkdtempSync(join(tmpdir(), 'aitia-e2e-'));
  const file = join(dir, 'tokens.json');
  const roles: Role[] = ['agent', 'operator', 'scheduler', 'ingester'];
  const tokens = Object.fromEntries(
    roles.map((r) => [r, addToken(file, `${options.tokenPrefix ?? 'test'}-${r}`, r)]),
  ) as Record<Role, string>;
  const bus = createFeedBus();
  const tail = startFeedTail(driver, bus, { intervalMs: 100 });
  const log = options.log ?? createLogger(process.env.AITIA_TEST_LOG ?? 'silent');
  const server = createHttpServer(
    {
      driver,
      log,
      version: 'test',
      policy,
      bus,
      ...(options.now ? { now: options.now } : {}),
      ...(options.checkNetwork ? { checkNetwork: options.checkNetwork } : {}),
    },
    new TokenStore(file, { log }),
    // Every operation runs compiled from its first run, so the suite exercises the code agents'
    // repeated operations run on; executor.test.ts holds it equal to graphql-js's answers.
    { compileAfter: 0, ...options.http, pushSources: options.pushSources },
  );
  const { url } = await listen(server, '127.0.0.1', 0);
  return {
    url,
    tokens,
    tokensFile: file,
    policyDigest: policy.digest,
    bus,
    async gql(token, query, variables) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, body: await res.json() };
    },
    async close() {
      await tail.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
