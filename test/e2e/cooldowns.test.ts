import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { DEFAULT_POLICY_PATH, parsePolicy } from '../../src/policy/index.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/*
 * Cooldowns and the breaker over HTTP: automatic actions reported taken are the history; a repeat
 * inside the cooldown escalates naming the previous authorization; past max_auto_actions the
 * breaker opens (everything escalates, `about` shows it) until an operator sets autonomy normal.
 */

const { driver, scope } = useGraph();
const svc = (n: number) => `manual:service/${scope}-s${n}`;
let srv: TestServer;

const CLASSIFY = `query($input: ClassifyActionInput!) { classifyAction(input: $input) { autonomy reasons } }`;
const REPORT = `mutation($input: ClassifyActionInput!) { reportActionTaken(input: $input) { id source action targetId } }`;
const SET = `mutation($mode: AutonomyMode!, $reason: String!) { setAutonomy(mode: $mode, reason: $reason) { mode breakerOpenedAt } }`;

async function gql(token: string, query: string, variables: Record<string, unknown>) {
  const { body } = await srv.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}
const classify = async (n: number) =>
  (await gql(srv.tokens.agent, CLASSIFY, { input: { target: svc(n), action: 'restart' } })).classifyAction;
const report = async (n: number) =>
  (await gql(srv.tokens.agent, REPORT, { input: { target: svc(n), action: 'restart' } })).reportActionTaken;

beforeAll(async () => {
  const doc = parse(readFileSync(DEFAULT_POLICY_PATH, 'utf8'));
  doc.autonomy_settings.global.auto_act = 'reversible_low';
  doc.cooldowns = { restart: 120 };
  doc.breaker = { max_auto_actions: 3, window_seconds: 600 };
  const parsed = parsePolicy(stringify(doc));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  srv = await startTestServer(driver, {
    policy: { policy: parsed.policy, digest: parsed.digest, path: '/test/limited.yaml' },
  });
  await upsertResources(
    driver,
    [1, 2, 3, 4].map((n) => ({
      id: svc(n),
      kind: 'service' as const,
      provider: 'manual' as const,
      name: `${scope}-s${n}`,
      state: 'up',
    })),
  );
  // Other files' authorizations must not count towards this file's breaker.
  await driver.executeQuery('MATCH (k:AutonomySwitch) DETACH DELETE k');
  await driver.executeQuery("MATCH (x:ActionAuthorized {source: 'auto'}) DETACH DELETE x");
});

afterAll(async () => {
  await srv.close();
  await driver.executeQuery('MATCH (x:ActionAuthorized) WHERE x.targetId CONTAINS $scope DETACH DELETE x', { scope });
  await driver.executeQuery('MATCH (k:AutonomySwitch) DETACH DELETE k');
});

describe('cooldowns and the breaker over HTTP', () => {
  it('a repeat inside the cooldown escalates, naming the previous authorization', async () => {
    expect((await classify(1)).autonomy).toBe('auto');
    const taken = await report(1);
    expect(taken).toMatchObject({ source: 'auto', action: 'restart', targetId: svc(1) });
    const again = await classify(1);
    expect(again.autonomy).toBe('escalate');
    expect(again.reasons.join('\n')).toContain(
      `cooldowns.restart: 120 s — the same action on this target was authorized`,
    );
    expect(again.reasons.join('\n')).toContain(taken.id);
    // Reporting the repeat is refused: it needed an approval now.
    const refused = await srv.gql(srv.tokens.agent, REPORT, { input: { target: svc(1), action: 'restart' } });
    expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await classify(2)).autonomy).toBe('auto');
  });

  it('past max_auto_actions the breaker opens for everything until an operator closes it', async () => {
    await report(2);
    await report(3);
    const tripped = await classify(4);
    expect(tripped.autonomy).toBe('escalate');
    expect(tripped.reasons.join('\n')).toMatch(/breaker opens: 3 automatic actions in the last 600 s/);
    const { about } = await gql(srv.tokens.agent, '{ about { autonomy { mode breakerOpenedAt breakerReason } } }', {});
    expect(about.autonomy).toMatchObject({ mode: 'normal', breakerOpenedAt: expect.any(String) });
    expect((await classify(4)).reasons.join('\n')).toMatch(/breaker open since/);
    const closed = await gql(srv.tokens.operator, SET, { mode: 'normal', reason: 'checked the restarts' });
    expect(closed.setAutonomy).toEqual({ mode: 'normal', breakerOpenedAt: null });
    expect((await classify(4)).autonomy).toBe('auto');
  });
});
