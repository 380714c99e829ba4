import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { AitiaError } from '../../../src/model/index.js';
import { DEFAULT_POLICY_PATH, parsePolicy } from '../../../src/policy/index.js';
import { reportActionTaken } from '../../../src/services/actions.js';
import { autonomy, setAutonomy } from '../../../src/services/grants.js';
import { useGraph } from '../../support/graph.js';
import { principalOf, serviceDeps } from '../../support/services.js';

/*
 * Issue 30 finding 8: cooldowns and the breaker decide and record in one transaction under a lock.
 * Reports fired at once (no await between them) record exactly what the limits allow; the rest are
 * refused naming the limit and when it frees.
 */

const { driver, scope } = useGraph();
const MAX = 5;
const doc = parse(readFileSync(DEFAULT_POLICY_PATH, 'utf8'));
doc.autonomy_settings.global.auto_act = 'reversible_low';
doc.cooldowns = { restart: 120 };
doc.breaker = { max_auto_actions: MAX, window_seconds: 600 };
const parsed = parsePolicy(stringify(doc));
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const deps = serviceDeps(driver, { policy: parsed.policy, digest: parsed.digest, path: '/test/limited.yaml' });
const agent = principalOf(scope, 'agent');
const operator = principalOf(scope, 'operator');
const svc = (n: number) => `manual:service/${scope}-s${n}`;
const N = 50;

beforeAll(async () => {
  await upsertResources(
    driver,
    Array.from({ length: N }, (_, n) => ({
      id: svc(n),
      kind: 'service' as const,
      provider: 'manual' as const,
      name: `${scope}-s${n}`,
      state: 'up',
    })),
  );
});

// Files run one at a time: other files' automatic actions must not count towards this breaker.
beforeEach(async () => {
  await driver.executeQuery('MATCH (k:AutonomySwitch) DETACH DELETE k');
  await driver.executeQuery("MATCH (x:ActionAuthorized {source: 'auto'}) DETACH DELETE x");
});

afterAll(async () => {
  await driver.executeQuery('MATCH (k:AutonomySwitch) DETACH DELETE k');
  await driver.executeQuery('MATCH (x:ActionAuthorized) WHERE x.targetId CONTAINS $scope DETACH DELETE x', { scope });
});

/** Every report fired at once; the recorded ones and the refusals (each a CONFLICT with its message). */
async function race(inputs: { target: string; action: string }[]) {
  const settled = await Promise.allSettled(inputs.map((input) => reportActionTaken(deps, agent, input)));
  const recorded = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  for (const err of refused) {
    expect(err).toBeInstanceOf(AitiaError);
    expect((err as AitiaError).code).toBe('CONFLICT');
  }
  return { recorded, refused: refused.map((e) => (e as Error).message) };
}

async function storedAuto(targetPrefix: string): Promise<number> {
  const { records } = await driver.executeQuery(
    "MATCH (x:ActionAuthorized {source: 'auto'}) WHERE x.targetId STARTS WITH $p RETURN count(x) AS n",
    { p: targetPrefix },
  );
  return records[0]!.get('n').toNumber();
}

describe('cooldowns and the breaker under concurrent reports', () => {
  it(`${N} parallel reports of one action on one target inside its cooldown record exactly one`, async () => {
    const { recorded, refused } = await race(Array.from({ length: N }, () => ({ target: svc(0), action: 'restart' })));
    expect(recorded).toHaveLength(1);
    expect(refused).toHaveLength(N - 1);
    expect(await storedAuto(svc(0))).toBe(1);
    const free = new Date(Date.parse(recorded[0]!.at) + 120_000).toISOString().replace('.000Z', 'Z');
    for (const message of refused) {
      expect(message).toContain('cooldowns.restart: 120 s');
      expect(message).toContain(recorded[0]!.id);
      // When it frees: the authorization's time plus the cooldown (to the second or finer).
      expect(message).toMatch(/allowed again from \d{4}-\d\d-\d\dT[\d:.]+Z/);
      expect(Date.parse(/allowed again from (\S+?Z)/.exec(message)![1]!)).toBeCloseTo(Date.parse(free), -3);
    }
  });

  it(`${N} parallel reports on ${N} targets record exactly max_auto_actions (${MAX}); the breaker opens once`, async () => {
    const { recorded, refused } = await race(
      Array.from({ length: N }, (_, n) => ({ target: svc(n), action: 'restart' })),
    );
    expect(recorded).toHaveLength(MAX);
    expect(refused).toHaveLength(N - MAX);
    expect(await storedAuto(`manual:service/${scope}-`)).toBe(MAX);
    for (const message of refused) {
      expect(message).toMatch(/breaker (opens: 5 automatic actions in the last 600 s|open since)/);
      expect(message).toContain('until an operator sets autonomy normal');
    }
    const state = await autonomy(deps);
    expect(state.breakerReason).toMatch(/^5 automatic actions in the last 600 s \(breaker.max_auto_actions 5\)$/);
    expect(state).not.toHaveProperty('autoLockAt');
    // An operator closing it starts a fresh window: the next report is recorded again — on a target
    // the race did not record, since which five won is the scheduler's choice and each is in cooldown.
    await setAutonomy(deps, operator, { mode: 'normal', reason: 'checked the restarts' });
    const won = new Set(recorded.map((r) => r.targetId));
    const fresh = Array.from({ length: N }, (_, n) => svc(n)).find((id) => !won.has(id))!;
    expect((await reportActionTaken(deps, agent, { target: fresh, action: 'restart' })).source).toBe('auto');
  });

  it('a mix of both: per target one within the cooldown, estate-wide no more than the breaker allows', async () => {
    const inputs = Array.from({ length: N }, (_, i) => ({ target: svc(i % 3), action: 'restart' }));
    const { recorded } = await race(inputs);
    expect(recorded).toHaveLength(3);
    expect(new Set(recorded.map((r) => r.targetId))).toEqual(new Set([svc(0), svc(1), svc(2)]));
  });

  it('a halt set while reports race: none is recorded after the switch is set', async () => {
    await setAutonomy(deps, operator, { mode: 'halt', reason: 'stop everything' });
    const { recorded, refused } = await race(
      Array.from({ length: 10 }, (_, n) => ({ target: svc(n), action: 'restart' })),
    );
    expect(recorded).toHaveLength(0);
    for (const message of refused) expect(message).toMatch(/halted by /);
  });
});
