import { afterAll, expect, it } from 'vitest';
import { claimLease, fencedDriver } from '../../../../src/graph/db/leases.js';
import { observe } from '../../../../src/pipeline/observe.js';
import { proxmoxSource } from '../../../../src/ingest/proxmox/source.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, standinClient } from '../../../support/proxmox-lab.js';
import { startProxmoxStandin } from '../../../support/proxmox-standin.js';

const { driver, scope } = useGraph();

afterAll(async () => {
  await driver.executeQuery('MATCH (l:Lease) WHERE l.name CONTAINS $scope DETACH DELETE l', { scope });
});

it('a whole observation pass writes through the fenced driver', async () => {
  const standin = await startProxmoxStandin({ routes: labRoutes(scope) });
  const lease = `poll:${scope}`;
  const claim = await claimLease(driver, { name: lease, holder: 'a', seconds: 30 });
  const fenced = fencedDriver(driver, { lease, holder: 'a', token: claim.token });
  const o = await observe({ driver: fenced, suppression: 'shadow' }, proxmoxSource(standinClient(standin)));
  expect(o.report.complete).toBe(true);
  const { records } = await driver.executeQuery(
    'MATCH (r:Resource) WHERE r.id STARTS WITH $prefix RETURN count(r) AS n',
    { prefix: `proxmox:${scope}/` },
  );
  expect(Number(records[0]!.get('n'))).toBeGreaterThan(10);
  await standin.close();
}, 60_000);
