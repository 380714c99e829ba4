import type { TestProject } from 'vitest/node';
import { createDriver } from '../../src/graph/db/driver.js';
import { migrate } from '../../src/graph/db/migrations.js';
import { provisionNeo4j } from './provision.js';

declare module 'vitest' {
  export interface ProvidedContext {
    neo4j: { uri: string; user: string | undefined; password: string | undefined; via: string };
  }
}

/** Provisions one real Neo4j for the graph tests, applies migrations, and says which path it used. */
export default async function setup(project: TestProject) {
  const started = Date.now();
  const neo = await provisionNeo4j((m) => console.log(`[aitia test setup] ${m}`));
  console.log(
    `[aitia test setup] Neo4j provisioned via ${neo.via} at ${neo.uri} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  const driver = createDriver(neo);
  try {
    await migrate(driver);
  } finally {
    await driver.close();
  }
  project.provide('neo4j', { uri: neo.uri, user: neo.user, password: neo.password, via: neo.via });
  return async () => {
    await neo.stop();
  };
}
