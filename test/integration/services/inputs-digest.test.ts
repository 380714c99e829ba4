import { createHash, createHmac } from 'node:crypto';
import { inject, afterAll, describe, expect, it } from 'vitest';
import { createDriver } from '../../../src/graph/db/driver.js';
import { installationSecret } from '../../../src/graph/installation-secret.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { boundInputsOf, canonicalJson } from '../../../src/policy/index.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { approve, requestApproval } from '../../../src/services/approvals.js';
import { redeemGrant } from '../../../src/services/grants.js';
import { inputsDigestKey } from '../../../src/services/inputs-digest.js';
import { useGraph } from '../../support/graph.js';
import { principalOf, serviceDeps } from '../../support/services.js';

/*
 * Issue 30, finding 10: an Approval's inputsDigest (read by every agent) is an HMAC under the
 * installation's key, which lives in the graph so replicas with different data directories agree,
 * and is created once even when they start together.
 */
const { driver, scope } = useGraph();
const shipped = await loadStartupPolicy(undefined);
// A second replica: its own driver (its own key cache), the same Neo4j.
const replica = createDriver(inject('neo4j'));
const web = `proxmox:${scope}/qemu/101`;

afterAll(async () => {
  await driver.executeQuery('MATCH (s:InstallationSecret) WHERE s.name STARTS WITH $p DETACH DELETE s', {
    p: `test-${scope}`,
  });
  await driver.executeQuery('MATCH (n:Approval|ActionAuthorized) WHERE n.targetId CONTAINS $scope DETACH DELETE n', {
    scope,
  });
  await replica.close();
});

describe('the installation secret', () => {
  it('is created once, whoever asks first and however many ask at once', async () => {
    const name = `test-${scope}-race`;
    const values = await Promise.all(
      Array.from({ length: 12 }, (_, i) => installationSecret(i % 2 === 0 ? driver : replica, name)),
    );
    expect(new Set(values).size).toBe(1);
    expect(values[0]).toMatch(/^[0-9a-f]{64}$/);
    const { records } = await driver.executeQuery('MATCH (s:InstallationSecret {name: $name}) RETURN count(s) AS n', {
      name,
    });
    expect(records[0]!.get('n').toNumber()).toBe(1);
    expect(await installationSecret(replica, name)).toBe(values[0]);
  });

  it('two replicas take the same inputs-digest key', async () => {
    const [a, b] = await Promise.all([inputsDigestKey(serviceDeps(driver)), inputsDigestKey(serviceDeps(replica))]);
    expect(a).toBe(b);
  });
});

describe('an approval’s inputsDigest', () => {
  it('is the keyed HMAC of the bound inputs, not their plain SHA-256, and a grant still redeems on another replica', async () => {
    await upsertResources(driver, [
      { id: web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running' },
    ]);
    const deps = serviceDeps(driver, shipped);
    const params = { password: 'hunter2' };
    const agent = principalOf(scope, 'agent');
    const [asked] = await requestApproval(deps, agent, {
      target: web,
      action: 'restart',
      params,
      reason: 'wedged',
    } as never);
    const bound = boundInputsOf({ action: 'restart', params }, web);
    const key = await inputsDigestKey(deps);
    expect(asked!.inputsDigest).not.toBe(createHash('sha256').update(canonicalJson(bound)).digest('hex'));
    expect(asked!.inputsDigest).toBe(createHmac('sha256', key).update(canonicalJson(bound)).digest('hex'));
    expect(asked!.inputs).not.toContain('hunter2');
    const { grants } = await approve(deps, principalOf(scope, 'operator'), { id: asked!.id });
    const redeemed = await redeemGrant(serviceDeps(replica, shipped), agent, {
      token: grants[0]!.token,
      input: { target: web, action: 'restart', params },
    } as never);
    expect(redeemed).toMatchObject({ authorized: true });
  });
});
