import { randomBytes } from 'node:crypto';
import type { Driver } from 'neo4j-driver';

/*
 * Per-installation secrets kept in the graph, so every replica sharing one Neo4j agrees on them
 * whatever its data directory. Created once (the first process to ask wins, under a uniqueness
 * constraint, so two replicas starting together cannot each make their own), never sent to a
 * client: only the service reads the graph.
 */

const CONSTRAINT =
  'CREATE CONSTRAINT installation_secret_name IF NOT EXISTS FOR (s:InstallationSecret) REQUIRE s.name IS UNIQUE';

/** 32 random bytes (hex) named `name`, created on first use and the same ever after. */
export async function installationSecret(driver: Driver, name: string): Promise<string> {
  await driver.executeQuery(CONSTRAINT);
  const { records } = await driver.executeQuery(
    `MERGE (s:InstallationSecret {name: $name})
       ON CREATE SET s.value = $candidate, s.createdAt = datetime()
     RETURN s.value AS value`,
    { name, candidate: randomBytes(32).toString('hex') },
  );
  const value = records[0]?.get('value');
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value))
    throw new Error(`installation secret ${name} is not 32 hex-encoded bytes`);
  return value;
}
