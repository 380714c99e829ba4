import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Driver } from 'neo4j-driver';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createDriver } from './driver.js';
import { portAnswers, startEmbeddedNeo4j } from './embedded/index.js';
import { migrate } from './migrations.js';

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

/**
 * Connects to `NEO4J_URI` when set; otherwise reuses the embedded Neo4j another aitia process
 * started under the same data dir, or starts one. Applies migrations before returning.
 */
export async function openGraph(config: Config, log: Logger): Promise<GraphHandle> {
  let handle: GraphHandle;
  if (config.neo4j.uri) {
    const driver = createDriver({ uri: config.neo4j.uri, user: config.neo4j.user, password: config.neo4j.password });
    handle = { driver, uri: config.neo4j.uri, via: 'NEO4J_URI', close: () => driver.close() };
  } else {
    const shared = existsSync(uriFile(config.dataDir)) ? readFileSync(uriFile(config.dataDir), 'utf8').trim() : '';
    const port = Number(/:(\d+)$/.exec(shared)?.[1] ?? 0);
    if (port > 0 && (await portAnswers(port))) {
      const driver = createDriver({ uri: shared });
      handle = { driver, uri: shared, via: 'embedded (shared)', close: () => driver.close() };
    } else {
      const neo = await startEmbeddedNeo4j({ dataDir: join(config.dataDir, 'neo4j'), log: (m) => log.info(m) });
      writeFileSync(uriFile(config.dataDir), neo.uri + '\n');
      const driver = createDriver({ uri: neo.uri });
      handle = {
        driver,
        uri: neo.uri,
        via: 'embedded',
        close: async () => {
          await driver.close();
          rmSync(uriFile(config.dataDir), { force: true });
          await neo.stop();
        },
      };
    }
  }
  const result = await migrate(handle.driver);
  log.info({ neo4j: handle.uri, via: handle.via, migrationsApplied: result.applied }, 'graph ready');
  return handle;
}
