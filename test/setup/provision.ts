import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedNeo4j } from '../../src/graph/embedded/launcher.js';

/** The Neo4j the tests use and how it was obtained. */
export interface ProvisionedNeo4j {
  uri: string;
  user: string | undefined;
  password: string | undefined;
  via: 'NEO4J_URI' | 'testcontainers' | 'embedded';
  stop(): Promise<void>;
}

/** True when testcontainers finds a container runtime that answers within a few seconds. */
async function containerRuntimeAnswers(): Promise<boolean> {
  if (process.env.AITIA_TEST_SKIP_CONTAINERS === '1') return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await Promise.race([
      getContainerRuntimeClient(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 8000)),
    ]);
    return Boolean(client);
  } catch {
    return false;
  }
}

/**
 * In this order: `NEO4J_URI` (+ user and password) when set; else a `neo4j:5.26-community`
 * testcontainer when a container runtime answers; else the project's embedded launcher.
 */
export async function provisionNeo4j(log: (msg: string) => void): Promise<ProvisionedNeo4j> {
  if (process.env.NEO4J_URI) {
    return {
      uri: process.env.NEO4J_URI,
      user: process.env.NEO4J_USER,
      password: process.env.NEO4J_PASSWORD,
      via: 'NEO4J_URI',
      stop: async () => {},
    };
  }
  if (await containerRuntimeAnswers()) {
    const { Neo4jContainer } = await import('@testcontainers/neo4j');
    const started = await new Neo4jContainer('neo4j:5.26-community').withPassword('aitia-test-password').start();
    return {
      uri: started.getBoltUri(),
      user: started.getUsername(),
      password: started.getPassword(),
      via: 'testcontainers',
      stop: async () => {
        await started.stop();
      },
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'aitia-test-neo4j-'));
  const neo = await startEmbeddedNeo4j({ dataDir, log, readyTimeoutSeconds: 180 });
  return {
    uri: neo.uri,
    user: neo.user,
    password: neo.password,
    via: 'embedded',
    stop: async () => {
      await neo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
