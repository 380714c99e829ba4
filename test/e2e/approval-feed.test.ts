import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribeSse } from '../support/sse.js';

/*
 * approvalChanged over SSE, as the console's inbox holds it: a request appears live, then its
 * approval, its grant redeemed and a replay refused; a reconnect with Last-Event-ID (or `since`)
 * receives what was stored meanwhile. Agents read it too; a scheduler may not.
 */

const { driver, scope } = useGraph();
const vm = `proxmox:${scope}/qemu/101`;
const restart = { target: vm, action: 'restart' };
let srv: TestServer;

const CHANGES = `subscription($since: Int) { approvalChanged(since: $since) {
  sequence change at actor refusal { code } approval { id status targetId targetName requester expired } } }`;

async function ok(token: string, query: string, variables: Record<string, unknown>) {
  const { body } = await srv.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

beforeAll(async () => {
  await upsertResources(driver, [
    { id: vm, kind: 'vm', provider: 'proxmox', name: `web01-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
  srv = await startTestServer(driver, { tokenPrefix: scope });
}, 120_000);
afterAll(async () => {
  await srv?.close();
});

/** The next change of this file's target (other files share the feed). */
async function nextOurs(sub: Awaited<ReturnType<typeof subscribeSse>>) {
  for (;;) {
    const r = await sub.next(5000);
    expect(r.errors).toBeUndefined();
    if (r.data.approvalChanged.approval.targetId === vm) return r.data.approvalChanged;
  }
}

describe('approvalChanged (SSE)', () => {
  it('delivers a request live, its approval, the redeem and a refused replay; a reconnect resumes', async () => {
    const live = await subscribeSse(srv.url, srv.tokens.operator, CHANGES);
    const started = Date.now();
    const asked = await ok(
      srv.tokens.agent,
      'mutation($i: RequestApprovalInput!) { requestApproval(input: $i) { id } }',
      { i: { ...restart, reason: 'wedged' } },
    );
    const id = asked.requestApproval[0].id;
    const requested = await nextOurs(live);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(requested).toMatchObject({
      change: 'requested',
      actor: `${scope}-agent`,
      refusal: null,
      approval: { id, status: 'pending', targetName: `web01-${scope}`, requester: `${scope}-agent`, expired: false },
    });

    const approved = await ok(srv.tokens.operator, 'mutation($id: ID!) { approve(id: $id) { grants { token } } }', {
      id,
    });
    const token = approved.approve.grants[0].token;
    const REDEEM = `mutation($t: String!, $i: ClassifyActionInput!) { redeemGrant(token: $t, input: $i) {
      authorized refusal { code } } }`;
    expect((await ok(srv.tokens.agent, REDEEM, { t: token, i: restart })).redeemGrant.authorized).toBe(true);
    expect((await ok(srv.tokens.agent, REDEEM, { t: token, i: restart })).redeemGrant.refusal.code).toBe(
      'GRANT_REPLAYED',
    );
    const rest = [await nextOurs(live), await nextOurs(live), await nextOurs(live)];
    live.close();
    expect(rest.map((c) => [c.change, c.actor, c.approval.status, c.refusal?.code ?? null])).toEqual([
      ['approved', `${scope}-operator`, 'approved', null],
      ['redeemed', `${scope}-agent`, 'used', null],
      ['refused', `${scope}-agent`, 'used', 'GRANT_REPLAYED'],
    ]);

    // An agent reconnecting after the request receives the three changes stored since.
    const resumed = await subscribeSse(
      srv.url,
      srv.tokens.agent,
      CHANGES,
      {},
      { 'last-event-id': `${requested.sequence}` },
    );
    const replayed = [await nextOurs(resumed), await nextOurs(resumed), await nextOurs(resumed)];
    resumed.close();
    expect(replayed.map((c) => c.sequence)).toEqual(rest.map((c) => c.sequence));
    const bySince = await subscribeSse(srv.url, srv.tokens.agent, CHANGES, { since: rest[1].sequence });
    expect((await nextOurs(bySince)).change).toBe('refused');
    bySince.close();
  });

  it('is refused to a role that may not read approvals', async () => {
    const sub = await subscribeSse(srv.url, srv.tokens.scheduler, CHANGES);
    const first = await sub.next(5000);
    sub.close();
    expect(first.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
  });
});
