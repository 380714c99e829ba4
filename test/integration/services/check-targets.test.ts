import { describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { createCheck } from '../../../src/services/checks.js';
import { useGraph } from '../../support/graph.js';
import { checkNetworkAllowing } from '../../support/probe-target.js';
import { principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const id = `manual:service/${scope}-api`;

describe('createCheck refuses targets on this host unless the allow-list names them', () => {
  it('refuses literal loopback and metadata targets and credentials in URLs, naming the field; allows with AITIA_CHECK_ALLOW', async () => {
    await upsertResources(driver, [{ id, kind: 'service', provider: 'manual', name: `${scope}-api`, state: 'up' }]);
    const operator = principalOf(scope, 'operator');
    const strict = serviceDeps(driver);
    for (const [input, field, reason] of [
      [{ kind: 'tcp', tcp: { host: '127.0.0.1', port: 7687 } }, 'input.tcp.host', /loopback/],
      [{ kind: 'tcp', tcp: { host: '2130706433', port: 22 } }, 'input.tcp.host', /loopback/],
      [{ kind: 'http', http: { url: 'http://169.254.169.254/latest/' } }, 'input.http.url', /metadata/],
      [{ kind: 'http', http: { url: 'http://localhost:8080/' } }, 'input.http.url', /loopback/],
      [{ kind: 'http', http: { url: 'http://u:pw@web01.lan/' } }, 'input.http.url', /credentials/],
    ] as const) {
      await expect(createCheck(strict, operator, { resourceId: id, ...input })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
        message: expect.stringMatching(reason),
      });
    }
    const { records } = await driver.executeQuery('MATCH (c:Check {resourceId: $id}) RETURN count(c) AS n', { id });
    expect(records[0]!.get('n').toNumber()).toBe(0);
    const allowing = { ...serviceDeps(driver), checkNetwork: checkNetworkAllowing('127.0.0.1') };
    const made = await createCheck(allowing, operator, {
      resourceId: id,
      kind: 'tcp',
      tcp: { host: '127.0.0.1', port: 9 },
    });
    expect(made.created).toBe(true);
    // An ordinary address needs no allow-list.
    expect(
      (await createCheck(strict, operator, { resourceId: id, kind: 'tcp', tcp: { host: '10.20.0.53', port: 53 } }))
        .created,
    ).toBe(true);
  });
});
