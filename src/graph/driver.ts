import neo4j, { type Driver } from 'neo4j-driver';

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
