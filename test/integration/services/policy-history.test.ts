import { afterAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../../src/graph/audit.js';
import { parsePolicy, type LoadedPolicy } from '../../../src/policy/index.js';
import { recordPolicyInForce } from '../../../src/services/policy-history.js';
import { DEFAULT_YAML } from '../../unit/policy/helpers.js';
import { useGraph } from '../../support/graph.js';
import { serviceDeps } from '../../support/services.js';

const { driver } = useGraph();

function loaded(extra: string, path: string): LoadedPolicy {
  const parsed = parsePolicy(`${DEFAULT_YAML}\n${extra}`);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return { policy: parsed.policy, digest: parsed.digest, path };
}

const first = loaded('cooldowns: {restart: 60}\n', '/etc/aitia/policy.yaml');
const second = loaded('cooldowns: {restart: 120}\napprovals: {grant_ttl_seconds: 60}\n', '/etc/aitia/policy.yaml');

afterAll(async () => {
  await driver.executeQuery(
    "MATCH (a:AuditEntry {operation: 'policyChanged'}) WHERE a.detail CONTAINS $d OR a.detail CONTAINS $e DETACH DELETE a",
    { d: first.digest, e: second.digest },
  );
  await driver.executeQuery("MATCH (p:PolicyInForce {id: 'current'}) DETACH DELETE p");
});

async function changes() {
  const page = await listAudit(driver, { operation: 'policyChanged' }, { first: 500 });
  return page.nodes.filter((e) => e.detail?.includes(second.digest) || e.detail?.includes(first.digest));
}

describe('the policy in force across starts', () => {
  it('audits a changed digest at start with both digests and what changed; an unchanged start adds nothing', async () => {
    await driver.executeQuery("MATCH (p:PolicyInForce {id: 'current'}) DETACH DELETE p");
    expect(await recordPolicyInForce(serviceDeps(driver, first))).toBeNull();
    expect((await recordPolicyInForce(serviceDeps(driver, first)))?.digest).toBe(first.digest);
    expect(await changes()).toEqual([]);
    expect((await recordPolicyInForce(serviceDeps(driver, second)))?.digest).toBe(first.digest);
    const [entry, ...rest] = await changes();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ principal: 'aitia', outcome: 'ok' });
    expect(entry!.detail).toContain(`policy digest ${first.digest}`);
    expect(entry!.detail).toContain(`→ ${second.digest}`);
    expect(entry!.detail).toMatch(/changed: approvals changed, cooldowns changed$/);
  });
});
