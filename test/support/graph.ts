import { randomBytes } from 'node:crypto';
import type { Driver } from 'neo4j-driver';
import { afterAll, inject } from 'vitest';
import { createDriver } from '../../src/graph/db/driver.js';

/**
 * A driver for one test file plus a unique scope string to build ids with. Everything whose id
 * contains the scope, and every audit entry of a principal whose name contains it (audit ids are
 * random), is deleted after the file, so files never see each other's data.
 */
export function useGraph(): { driver: Driver; scope: string } {
  const conn = inject('neo4j');
  const driver = createDriver(conn);
  const scope = `t${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    await driver.executeQuery(
      'MATCH (n) WHERE n.id CONTAINS $scope OR (n:AuditEntry AND n.principal CONTAINS $scope) DETACH DELETE n',
      { scope },
    );
    await driver.close();
  });
  return { driver, scope };
}
