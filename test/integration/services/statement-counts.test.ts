import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { countingDriver } from '../../../src/graph/db/driver.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { DEFAULT_POLICY_PATH, parsePolicy } from '../../../src/policy/index.js';
import { classifyAction } from '../../../src/services/gate.js';
import { createRelationship } from '../../../src/services/relationships.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

/*
 * What a lone gate question and a lone declared edge cost in Neo4j statements (issue 35): counted,
 * not timed, so a change that adds a round trip fails here instead of only showing in bench:load.
 */

const { driver, scope } = useGraph();
const counting = countingDriver(driver);
const doc = parse(readFileSync(DEFAULT_POLICY_PATH, 'utf8'));
// Cooldowns and the breaker configured: a decision reads both histories (the most it ever reads).
doc.cooldowns = { restart: 120 };
doc.breaker = { max_auto_actions: 1000, window_seconds: 600 };
const parsed = parsePolicy(stringify(doc));
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const deps = serviceDeps(counting.driver, { policy: parsed.policy, digest: parsed.digest, path: '/test/limits.yaml' });
const vm = (n: number) => `proxmox:${scope}/qemu/${100 + n}`;
const svc = (n: number) => `manual:service/s${n}-${scope}`;

beforeAll(async () => {
  await upsertResources(driver, [
    ...[1, 2, 3].map((n) => ({
      id: vm(n),
      kind: 'vm' as const,
      provider: 'proxmox' as const,
      name: `vm${n}-${scope}`,
      state: 'running',
    })),
    ...[1, 2, 3].map((n) => ({
      id: svc(n),
      kind: 'service' as const,
      provider: 'manual' as const,
      name: `s${n}-${scope}`,
      state: 'up',
    })),
  ]);
});

/** Statements `work` sends, once the texts it uses have run once (columns learnt, as in a warm service). */
async function statementsOf(work: (n: number) => Promise<unknown>): Promise<number> {
  await work(1);
  counting.reset();
  await work(2);
  return counting.count();
}

describe('statements per operation, alone', () => {
  it('classifyAction: one read of everything the decision needs, one write of decision and audit line', async () => {
    const agent = principalOf(scope, 'agent');
    expect(await statementsOf((n) => classifyAction(deps, agent, { target: vm(n), action: 'restart' }))).toBe(2);
    expect(
      await statementsOf((n) => classifyAction(deps, agent, { target: `vm:vm${n + 1}-${scope}`, action: 'restart' })),
    ).toBe(2);
    expect(
      await statementsOf((n) => classifyAction(deps, agent, { target: `dns-record:${n}.${scope}`, action: 'delete' })),
    ).toBe(2);
    const lines = await auditOf(driver, agent);
    expect(lines).toHaveLength(6);
    expect(lines.every((l) => l.operation === 'classifyAction' && l.outcome === 'ok')).toBe(true);
  });

  it('createRelationship: one read of both ends, one write of edge and audit line', async () => {
    const agent = principalOf(scope, 'agent');
    expect(
      await statementsOf((n) => createRelationship(deps, agent, { source: svc(n), target: vm(n), type: 'DEPENDS_ON' })),
    ).toBe(2);
    // A repeat (idempotent, created: false) costs the same.
    counting.reset();
    const again = await createRelationship(deps, agent, { source: svc(2), target: vm(2), type: 'DEPENDS_ON' });
    expect(again.created).toBe(false);
    expect(counting.count()).toBe(2);
    expect((await auditOf(driver, agent)).map((l) => l.outcome)).toEqual(['ok', 'ok', 'ok']);
  });
});
