import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxmoxSource } from '../../src/ingest/proxmox/source.js';
import type { ActorMappingEntry } from '../../src/model/index.js';
import { observe } from '../../src/pipeline/observe.js';
import { actorMappingSource } from '../../src/services/actor-mapping.js';
import { TokenStore } from '../../src/services/token-store.js';
import { useGraph } from '../support/graph.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin } from '../support/proxmox-standin.js';
import { taskEntry, upidOf, useEventCleanup } from '../support/proxmox-tasks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribeSse } from '../support/sse.js';

/**
 * The loop sees its own end, over HTTP: the agent asks to start legacy03, an operator approves, the
 * agent redeems the grant naming the task's UPID, and the Proxmox stand-in shows that task under
 * the agent's token (rhodes@pve!ops) with legacy03 running. After the pass the transition names
 * the grant and the approver. The same token stopping esxi-nested01 with no grant is `unauthorized`,
 * opens an unauthorized_action condition (on the feed, never suppressed) that an operator then
 * reviews; a stranger (carol@pve) stopping db13 is neither.
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;
const prefix = `ops-${scope}`;
const AGENT = `${prefix}-agent`;
const OPERATOR = `${prefix}-operator`;

let standin: ProxmoxStandin;
let srv: TestServer;
let entries: Array<Record<string, unknown>> = [];
let grant: { approvalId: string; authorizationId: string; upid: string };

const iso = (t: DateTime) => t.toISO({ suppressMilliseconds: true })!;
const REQUEST = `mutation($input: RequestApprovalInput!) { requestApproval(input: $input) { id status } }`;
const APPROVE = `mutation($id: ID!) { approve(id: $id) { grants { approvalId token } } }`;
const REDEEM = `mutation($token: String!, $input: ClassifyActionInput!, $task: String) {
  redeemGrant(token: $token, input: $input, providerTaskId: $task) { authorized authorizationId approvalId refusal { code message } } }`;
const TRANSITION = `query($r: String!) { transitions(resourceId: $r, first: 1) { edges { node {
  id narrative decision { decision wouldHaveSuppressed }
  attribution { confidence actor events { id actor }
    authorization { grantId source approvalId action principal requestedBy approvedBy approvedAt at matchedBy eventId }
    unauthorized unauthorizedReason unauthorizedPrincipal }
} } } }`;
const REVIEW = `mutation($r: ID!, $note: String!) { reviewUnauthorizedAction(resourceId: $r, note: $note) {
  id type status resolvedAt } }`;

async function ok(token: string, query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await srv.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

const transitionOf = async (g: string) =>
  (await ok(srv.tokens.agent, TRANSITION, { r: id(g) })).transitions.edges[0]?.node;

beforeAll(async () => {
  standin = await startProxmoxStandin();
  srv = await startTestServer(driver, { tokenPrefix: prefix });
  // The integrations file's actors: the agent's Proxmox token, and a user who is an operator.
  const actors: ActorMappingEntry[] = [
    { provider: 'proxmox', user: 'rhodes@pve!ops', principal: AGENT },
    { provider: 'proxmox', user: 'bob@pve', principal: OPERATOR },
  ];
  const deps = {
    driver,
    suppression: 'shadow' as const,
    actors: actorMappingSource(actors, new TokenStore(srv.tokensFile)),
  };
  standin.routes(withLabTasks(labRoutes(c), () => entries));
  await observe(deps, proxmoxSource(standinClient(standin)));

  // The agent asks, the operator approves, the agent redeems naming the task it is about to start.
  const start = { target: id('qemu/103'), action: 'start' };
  const asked = (
    await ok(srv.tokens.agent, REQUEST, { input: { ...start, reason: 'legacy03 is needed for the audit' } })
  ).requestApproval;
  expect(asked).toEqual([expect.objectContaining({ status: 'pending' })]);
  const { approve } = await ok(srv.tokens.operator, APPROVE, { id: asked[0].id });
  const now = DateTime.utc();
  const upid = upidOf({ node: 'pve3', type: 'qmstart', id: '103', user: 'rhodes@pve!ops', start: iso(now) });
  const redeemed = (await ok(srv.tokens.agent, REDEEM, { token: approve.grants[0].token, input: start, task: upid }))
    .redeemGrant;
  expect(redeemed).toMatchObject({ authorized: true, refusal: null });
  grant = { approvalId: asked[0].id, authorizationId: redeemed.authorizationId, upid };

  // What Proxmox then shows: the agent's start, its stop of esxi-nested01 with no grant, and carol's stop of db13.
  const ago = (s: number) => iso(now.minus({ seconds: s }));
  entries = [
    taskEntry({ upid, node: 'pve3', type: 'qmstart', start: iso(now), end: iso(now.plus({ seconds: 1 })) }),
    taskEntry({ node: 'pve3', type: 'qmstop', id: '130', user: 'rhodes@pve!ops', start: ago(3), end: ago(2) }),
    taskEntry({ node: 'pve2', type: 'qmstop', id: '113', user: 'carol@pve', start: ago(3), end: ago(2) }),
  ];
  const after = labRoutes(c, {
    patchListing: {
      'qemu/103': { status: 'running' },
      'qemu/130': { status: 'stopped' },
      'qemu/113': { status: 'stopped' },
    },
  });
  patchData(after, 'GET /nodes/pve3/qemu/103/status/current', { status: 'running', qmpstatus: 'running' });
  patchData(after, 'GET /nodes/pve3/qemu/130/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  patchData(after, 'GET /nodes/pve2/qemu/113/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  standin.routes(withLabTasks(after, () => entries));
  // The task has started (its UPID's second) before the pass looks.
  await new Promise((r) => setTimeout(r, 1500));
  const pass = await observe(deps, proxmoxSource(standinClient(standin)));
  expect(pass.correlation.errors).toEqual([]);
  expect(pass.correlation.created.map((t) => t.resourceId).sort()).toEqual(
    [id('qemu/130'), id('qemu/103'), id('qemu/113')].sort(),
  );
}, 480_000);

afterAll(async () => {
  await srv?.close();
  await standin?.close();
  await driver.executeQuery(
    'MATCH (n) WHERE (n:Approval OR n:ActionAuthorized OR n:GrantRedeem) AND n.targetId CONTAINS $scope DETACH DELETE n',
    { scope },
  );
});

describe('an agent’s action aitia approved', () => {
  it('the start is credited to the grant and its approver, matched by the UPID the agent named', async () => {
    const t = await transitionOf('qemu/103');
    expect(t.attribution).toMatchObject({
      confidence: 'high',
      actor: 'rhodes@pve!ops',
      events: [{ id: grant.upid, actor: 'rhodes@pve!ops' }],
      authorization: {
        grantId: grant.authorizationId,
        source: 'grant',
        approvalId: grant.approvalId,
        action: 'start',
        principal: AGENT,
        requestedBy: AGENT,
        approvedBy: OPERATOR,
        approvedAt: expect.any(String),
        at: expect.any(String),
        matchedBy: 'task_id',
        eventId: grant.upid,
      },
      unauthorized: false,
      unauthorizedReason: null,
    });
    expect(t.narrative).toContain(
      `Authorized: started by agent ${AGENT} (Proxmox token rhodes@pve!ops) under grant ${grant.authorizationId} for start (approval ${grant.approvalId}, requested by ${AGENT}) approved by ${OPERATOR} at `,
    );
    expect(t.narrative).toContain('the agent named this task');
    // Intentional: shadow mode records what `on` would have suppressed.
    expect(t.decision.decision).toBe('open_incident');
    expect(t.decision.wouldHaveSuppressed).toBe(t.narrative);
    const { conditions } = await ok(
      srv.tokens.operator,
      `query($r: ID!) { conditions(filter: { resourceId: $r, type: unauthorized_action }) { nodes { id } } }`,
      { r: id('qemu/103') },
    );
    expect(conditions.nodes).toEqual([]);
  });
});

describe('an agent’s action with no grant', () => {
  it('is unauthorized, and an unauthorized_action condition is open, never suppressed', async () => {
    const t = await transitionOf('qemu/130');
    expect(t.attribution).toMatchObject({
      confidence: 'high',
      actor: 'rhodes@pve!ops',
      authorization: null,
      unauthorized: true,
      unauthorizedReason: `${AGENT} has no redeemed grant or reported action on this resource`,
      unauthorizedPrincipal: AGENT,
    });
    expect(t.narrative).toMatch(
      new RegExp(`Unauthorized: stopped by agent ${AGENT} \\(Proxmox token rhodes@pve!ops\\) with no grant redeemed`),
    );
    expect(t.decision).toEqual({ decision: 'open_incident', wouldHaveSuppressed: null });
    const { conditions } = await ok(
      srv.tokens.operator,
      `query($r: ID!) { conditions(filter: { resourceId: $r, type: unauthorized_action, status: open }) {
        nodes { id status suppressed wouldSuppress evidence cause { transition { id } } narrative } } }`,
      { r: id('qemu/130') },
    );
    expect(conditions.nodes).toEqual([
      expect.objectContaining({
        status: 'open',
        suppressed: false,
        wouldSuppress: false,
        evidence: expect.objectContaining({ transitionId: t.id, actor: 'rhodes@pve!ops', principal: AGENT }),
        cause: { transition: { id: t.id } },
      }),
    ]);
    expect(conditions.nodes[0].narrative).toMatch(
      /changed by an agent with no grant or reported action since .*Unauthorized: stopped by agent/,
    );
  });

  it('the opening is on the condition feed', async () => {
    const sub = await subscribeSse(
      srv.url,
      srv.tokens.operator,
      `subscription($r: String) { conditionChanged(resourceId: $r, since: 0) { change condition { type status } } }`,
      { r: id('qemu/130') },
    );
    try {
      const first = await sub.next(30_000);
      expect(first.data.conditionChanged).toEqual({
        change: 'opened',
        condition: { type: 'unauthorized_action', status: 'open' },
      });
    } finally {
      sub.close();
    }
  });

  it('an operator reviews it: resolved with the note; an agent may not, an empty note is refused', async () => {
    const byAgent = await srv.gql(srv.tokens.agent, REVIEW, { r: id('qemu/130'), note: 'fine' });
    expect(byAgent.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const empty = await srv.gql(srv.tokens.operator, REVIEW, { r: id('qemu/130'), note: ' ' });
    expect(empty.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'note' });
    const { reviewUnauthorizedAction } = await ok(srv.tokens.operator, REVIEW, {
      r: id('qemu/130'),
      note: 'asked the agent: runbook step, grant forgotten',
    });
    expect(reviewUnauthorizedAction).toMatchObject({ type: 'unauthorized_action', status: 'resolved' });
    const again = await srv.gql(srv.tokens.operator, REVIEW, { r: id('qemu/130'), note: 'again' });
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', field: 'resourceId' });
    // The finding stays on the transition.
    expect((await transitionOf('qemu/130')).attribution.unauthorized).toBe(true);
  });
});

describe('a stranger’s change', () => {
  it('is neither authorized nor flagged', async () => {
    const t = await transitionOf('qemu/113');
    expect(t.attribution).toMatchObject({
      confidence: 'high',
      actor: 'carol@pve',
      authorization: null,
      unauthorized: false,
      unauthorizedReason: null,
    });
    expect(t.narrative).not.toMatch(/Authorized|Unauthorized/);
    const { conditions } = await ok(
      srv.tokens.operator,
      `query($r: ID!) { conditions(filter: { resourceId: $r, type: unauthorized_action }) { nodes { id } } }`,
      { r: id('qemu/113') },
    );
    expect(conditions.nodes).toEqual([]);
  });
});
