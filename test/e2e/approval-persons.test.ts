import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/*
 * Issue 30 finding 9: requester and approver are compared by person, not by token name. Tokens
 * carry their owner (set at createToken, shown in `tokens`); another token of the requester's
 * person, or a token the requester created, cannot decide the request; another person can.
 */

const { driver, scope } = useGraph();
const vm = `proxmox:${scope}/qemu/101`;
const restart = { target: vm, action: 'restart' };
let srv: TestServer;

const CREATE = `mutation($input: CreateTokenInput!) { createToken(input: $input) { token tokenInfo { name role owner createdBy } } }`;
const REQUEST = `mutation($input: RequestApprovalInput!) { requestApproval(input: $input) { id requester requesterOwner } }`;
const APPROVE = `mutation($id: ID!) { approve(id: $id) { approvals { id status decidedBy } } }`;
const DENY = `mutation($id: ID!, $reason: String!) { deny(id: $id, reason: $reason) { approvals { id status } } }`;

async function ok(token: string, query: string, variables: Record<string, unknown>) {
  const { body } = await srv.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

/** A token made through createToken by `by` (an operator's token); its bearer and what tokens shows. */
async function token(by: string, name: string, role: string, owner?: string) {
  const { createToken } = await ok(by, CREATE, { input: { name: `${scope}-${name}`, role, owner } });
  return { bearer: createToken.token as string, info: createToken.tokenInfo };
}

async function request(bearer: string): Promise<{ id: string; requester: string; requesterOwner: string }> {
  return (await ok(bearer, REQUEST, { input: { ...restart, reason: 'wedged' } })).requestApproval[0];
}

/** Both decisions refused FORBIDDEN, naming why; the request stays pending. */
async function refused(bearer: string, id: string, why: RegExp) {
  for (const [query, vars] of [
    [APPROVE, { id }],
    [DENY, { id, reason: 'no' }],
  ] as const) {
    const { body } = await srv.gql(bearer, query, vars);
    expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).toBe('FORBIDDEN');
    expect(body.errors[0].message).toMatch(why);
    expect(body.errors[0].message).toContain('no one approves or denies their own request');
  }
}

beforeAll(async () => {
  srv = await startTestServer(driver, { tokenPrefix: `${scope}-boot` });
  await upsertResources(driver, [
    { id: vm, kind: 'vm', provider: 'proxmox', name: `web01-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
});

afterAll(async () => {
  await srv.close();
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval OR n:ActionAuthorized) AND n.targetId CONTAINS $scope
        OR n:Decision AND n.principal CONTAINS $scope DETACH DELETE n`,
    { scope },
  );
});

describe('approver and requester are compared by person', () => {
  it('one operator holding two tokens cannot decide their own request, with either token', async () => {
    const boot = srv.tokens.operator;
    const a1 = await token(boot, 'alice-1', 'operator', `${scope}-alice`);
    const a2 = await token(boot, 'alice-2', 'operator', `${scope}-alice`);
    expect(a1.info).toEqual({
      name: `${scope}-alice-1`,
      role: 'operator',
      owner: `${scope}-alice`,
      createdBy: `${scope}-boot-operator`,
    });
    const asked = await request(a1.bearer);
    expect(asked).toMatchObject({ requester: `${scope}-alice-1`, requesterOwner: `${scope}-alice` });
    await refused(a2.bearer, asked.id, new RegExp(`a token of ${scope}-alice`));
    // The other way round, and an owner spelled in another case is the same person.
    const a3 = await token(boot, 'alice-3', 'operator', `${scope}-ALICE`);
    await refused(a3.bearer, (await request(a2.bearer)).id, /a token of/);
    // Revoking the requesting token changes nothing: the person was recorded with the request.
    const late = await request(a3.bearer);
    await ok(boot, `mutation($n: String!) { revokeToken(name: $n) { name } }`, { n: `${scope}-alice-3` });
    await refused(a1.bearer, late.id, /a token of/);
  });

  it("an operator's second token, created with their own token and no owner, is theirs", async () => {
    const boot = srv.tokens.operator;
    const second = await token(boot, 'second', 'operator');
    expect(second.info.owner).toBe(`${scope}-boot-operator`);
    await refused(second.bearer, (await request(boot)).id, /a token of/);
    await refused(boot, (await request(second.bearer)).id, /a token of/);
    const { tokens } = await ok(boot, '{ tokens { name owner createdBy } }', {});
    expect(tokens).toContainEqual({
      name: `${scope}-second`,
      owner: `${scope}-boot-operator`,
      createdBy: `${scope}-boot-operator`,
    });
    // Tokens written without an owner are their own person.
    expect(tokens).toContainEqual({ name: `${scope}-boot-agent`, owner: `${scope}-boot-agent`, createdBy: null });
  });

  it('a token the requester created cannot decide that request, whatever owner it names', async () => {
    const boot = srv.tokens.operator;
    const dave = await token(boot, 'dave', 'operator', `${scope}-dave`);
    const puppet = await token(dave.bearer, 'puppet', 'operator', `${scope}-someone-else`);
    expect(puppet.info).toMatchObject({ owner: `${scope}-someone-else`, createdBy: `${scope}-dave` });
    await refused(puppet.bearer, (await request(dave.bearer)).id, new RegExp(`created by ${scope}-dave`));
    // …nor request for its creator: an operator token dave made asks, dave cannot decide it.
    await refused(dave.bearer, (await request(puppet.bearer)).id, new RegExp(`which ${scope}-dave created`));
  });

  it('a different person can: another operator, and the operator who created an agent its token', async () => {
    const boot = srv.tokens.operator;
    const erin = await token(boot, 'erin', 'operator', `${scope}-erin`);
    const frank = await token(boot, 'frank', 'operator', `${scope}-frank`);
    const asked = await request(erin.bearer);
    const { approve } = await ok(frank.bearer, APPROVE, { id: asked.id });
    expect(approve.approvals[0]).toMatchObject({ status: 'approved', decidedBy: `${scope}-frank` });
    const robot = await token(erin.bearer, 'robot', 'agent');
    expect(robot.info).toMatchObject({ owner: `${scope}-robot`, createdBy: `${scope}-erin` });
    const byRobot = await request(robot.bearer);
    expect((await ok(erin.bearer, DENY, { id: byRobot.id, reason: 'not now' })).deny.approvals[0].status).toBe(
      'denied',
    );
    expect((await ok(boot, APPROVE, { id: (await request(srv.tokens.agent)).id })).approve.approvals[0].status).toBe(
      'approved',
    );
  });

  it('refuses an owner that is not a name, naming input.owner', async () => {
    const { body } = await srv.gql(srv.tokens.operator, CREATE, {
      input: { name: `${scope}-bad`, role: 'agent', owner: 'not a name!' },
    });
    expect(body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(body.errors[0].message).toMatch(/input\.owner/);
  });
});
