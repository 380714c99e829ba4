import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetScope } from '../../../src/graph/resources/demo-scope.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { recordTransitions } from '../../../src/graph/transitions/record.js';
import { noneAttribution } from '../../../src/model/index.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { approvalExpired, approvals, approve, requestApproval } from '../../../src/services/approvals.js';
import { grantRedeems } from '../../../src/services/grant-history.js';
import { redeemGrant } from '../../../src/services/grants.js';
import { searchResources } from '../../../src/services/search.js';
import { transitions } from '../../../src/services/transitions.js';
import { useGraph } from '../../support/graph.js';
import { principalOf, serviceDeps } from '../../support/services.js';

/*
 * What the operator console reads beside the approval feed, each through one service with its
 * permission: open and closed approvals, the redeems of grants (used and refused), transitions of
 * one kind in a time range across the estate, and one search box for resources.
 */

const { driver, scope } = useGraph();
const policy = await loadStartupPolicy(undefined);
const deps = serviceDeps(driver, policy);
const web = `proxmox:${scope}/qemu/101`;
const node = `proxmox:${scope}/node/pve-${scope}`;
const restart = { target: web, action: 'restart' };

beforeAll(async () => {
  await upsertResources(driver, [
    { id: web, kind: 'vm', provider: 'proxmox', name: `web01-${scope}`, state: 'running', lifecycle: 'active' },
    { id: node, kind: 'host', provider: 'proxmox', name: `pve-${scope}`, state: 'online', lifecycle: 'active' },
  ]);
});

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (a:Approval) WHERE a.targetId CONTAINS $scope
     OPTIONAL MATCH (g:GrantRedeem {approvalId: a.id}) DETACH DELETE a, g`,
    { scope },
  );
  await driver.executeQuery('MATCH (x:ActionAuthorized) WHERE x.targetId CONTAINS $scope DETACH DELETE x', { scope });
  await resetScope(driver, [`proxmox:${scope}/`], []);
});

describe('approvals(open:)', () => {
  it('open: pending and unexpired; not open: decided, used, or expired undecided', async () => {
    const agent = principalOf(scope, 'agent');
    const operator = principalOf(scope, 'operator');
    const [waiting] = await requestApproval(deps, agent, { ...restart, reason: 'waits' });
    const [decided] = await requestApproval(deps, agent, { ...restart, reason: 'decided' });
    await approve(deps, operator, { id: decided!.id });
    // Asked an hour before its ttl: expired by now, still pending.
    const past = {
      ...deps,
      now: () => new Date(Date.now() - (policy.policy.approvals.request_ttl_seconds + 3600) * 1000).toISOString(),
    };
    const [stale] = await requestApproval(past, agent, { ...restart, reason: 'stale' });
    expect(approvalExpired(deps, stale!)).toBe(true);
    expect(approvalExpired(deps, waiting!)).toBe(false);
    const ours = async (open: boolean) =>
      (await approvals(deps, agent, { open, first: 500 })).nodes.filter((a) => a.targetId === web).map((a) => a.id);
    expect(await ours(true)).toEqual([waiting!.id]);
    expect(await ours(false)).toEqual([decided!.id, stale!.id]);
    await expect(approvals(deps, principalOf(scope, 'scheduler'), { open: true })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});

describe('grantRedeems', () => {
  it('lists a grant redeemed and a replay refused, newest first, each with its approval', async () => {
    const agent = principalOf(scope, 'agent');
    const [asked] = await requestApproval(deps, agent, { ...restart, reason: 'redeem me' });
    const { grants } = await approve(deps, principalOf(scope, 'operator'), { id: asked!.id });
    await redeemGrant(deps, agent, { token: grants[0]!.token, input: restart });
    await redeemGrant(deps, agent, { token: grants[0]!.token, input: restart });
    const page = await grantRedeems(deps, agent, { approvalId: asked!.id });
    expect(page.nodes.map((r) => [r.outcome, r.principal, r.refusal?.code ?? null, r.approval?.status])).toEqual([
      ['refused', agent.name, 'GRANT_REPLAYED', 'used'],
      ['redeemed', agent.name, null, 'used'],
    ]);
    expect(page.nodes[1]!.authorizationId).toBe(page.nodes[1]!.approval!.authorizationId);
    const refused = await grantRedeems(deps, agent, { approvalId: asked!.id, outcome: 'refused' });
    expect(refused.nodes).toHaveLength(1);
    const first = await grantRedeems(deps, agent, { approvalId: asked!.id, first: 1 });
    const next = await grantRedeems(deps, agent, { approvalId: asked!.id, first: 1, after: first.endCursor });
    expect([...first.nodes, ...next.nodes].map((r) => r.outcome)).toEqual(['refused', 'redeemed']);
    // An unknown token has no grant to record it on.
    const unknown = await redeemGrant(deps, agent, { token: `aitia-grant-${'x'.repeat(43)}`, input: restart });
    expect(unknown.refusal?.code).toBe('GRANT_UNKNOWN');
    expect((await grantRedeems(deps, agent, { approvalId: asked!.id })).nodes).toHaveLength(2);
    await expect(grantRedeems(deps, agent, { outcome: 'lost' as never })).rejects.toMatchObject({ field: 'outcome' });
    await expect(grantRedeems(deps, principalOf(scope, 'ingester'), {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('transitions(kind:, since:, until:) across the estate', () => {
  it('narrows to one kind and a time range, newest first', async () => {
    const at = (m: number) => `2026-05-14T03:${String(m).padStart(2, '0')}:00Z`;
    const none = noneAttribution({ lookbackSeconds: 120 }, 0, 'no task');
    const t = (resourceId: string, kind: 'vm' | 'host', from: string, to: string, m: number) => ({
      resourceId,
      kind,
      from,
      to,
      observedAt: at(m),
      observer: 'test',
      attribution: none,
      decision: { decision: 'open_incident' as const, reasons: [] },
      narrative: `${resourceId} ${from} → ${to}`,
    });
    await recordTransitions(driver, [
      t(web, 'vm', 'running', 'stopped', 1),
      t(node, 'host', 'online', 'offline', 2),
      t(web, 'vm', 'stopped', 'running', 3),
    ]);
    const agent = principalOf(scope, 'agent');
    const of = async (input: Parameters<typeof transitions>[2]) =>
      (await transitions(deps, agent, { since: at(0), until: at(59), ...input })).nodes
        .filter((x) => x.resourceId.includes(scope))
        .map((x) => `${x.kind} ${x.to}`);
    expect(await of({})).toEqual(['vm running', 'host offline', 'vm stopped']);
    expect(await of({ kind: 'vm' })).toEqual(['vm running', 'vm stopped']);
    expect(await of({ kind: 'host', confidence: 'none' })).toEqual(['host offline']);
    expect(await of({ kind: 'vm', since: at(2) })).toEqual(['vm running']);
    expect(await of({ kind: 'vm', until: at(2) })).toEqual(['vm stopped']);
    await expect(transitions(deps, agent, { kind: 'dog' as never })).rejects.toMatchObject({ field: 'kind' });
  });
});

describe('searchResources', () => {
  it('finds by id, slug, or part of a name or id, best first; needs resource:read', async () => {
    const agent = principalOf(scope, 'agent');
    const names = async (query: string) => (await searchResources(deps, agent, { query })).map((r) => r.id);
    expect(await names(web)).toEqual([web]);
    expect(await names(`vm:web01-${scope}`)).toEqual([web]);
    expect(await names(`WEB01-${scope}`)).toEqual([web]);
    expect(await names(`host:pve-${scope}`)).toEqual([node]);
    // Part of a name: the exact name first, then names containing it.
    expect((await names(scope)).slice(0, 2).sort()).toEqual([node, web].sort());
    expect(await names(`${scope}/qemu`)).toEqual([web]);
    expect(await names(`nothing-${scope}`)).toEqual([]);
    await expect(searchResources(deps, agent, { query: '  ' })).rejects.toMatchObject({ field: 'query' });
    await expect(searchResources(deps, agent, { query: 'x', first: 0 })).rejects.toMatchObject({ field: 'first' });
  });
});
