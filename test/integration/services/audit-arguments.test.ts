import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { reportActionTaken } from '../../../src/services/actions.js';
import { approve, deny, requestApproval } from '../../../src/services/approvals.js';
import { createCheck, removeCheck } from '../../../src/services/checks.js';
import { declareResource, removeDeclaredResource } from '../../../src/services/declared.js';
import { redeemGrant, setAutonomy } from '../../../src/services/grants.js';
import { ingestVcenterEvents, ingestVcenterInventory } from '../../../src/services/ingest.js';
import type { Principal } from '../../../src/services/permissions.js';
import { createRelationship, removeRelationship } from '../../../src/services/relationships.js';
import { setLifecycle, updateEntityAttributes } from '../../../src/services/resources.js';
import { TokenStore } from '../../../src/services/token-store.js';
import { createToken, revokeToken } from '../../../src/services/tokens.js';
import { tempDirs } from '../../support/temp.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, failingStatements, principalOf, serviceDeps, withAuditDown } from '../../support/services.js';

/**
 * Issue 17 item 5: every authenticated mutation's audit entry records its arguments as asked,
 * secrets redacted — each mutation service is called here and its stored entry read back.
 */
const { driver, scope } = useGraph();
const deps = {
  ...serviceDeps(driver, await loadStartupPolicy(undefined)),
  tokens: new TokenStore(join(tempDirs()('aitia-audit-args'), 'tokens.json')),
};
const web = `proxmox:${scope}/qemu/201`;
const db = `proxmox:${scope}/qemu/202`;

beforeAll(async () => {
  await upsertResources(driver, [
    { id: web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running', lifecycle: 'active' },
    { id: db, kind: 'vm', provider: 'proxmox', name: `db-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
});

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval OR n:ActionAuthorized) AND n.targetId CONTAINS $scope
        OR n:Decision AND n.principal CONTAINS $scope DETACH DELETE n`,
    { scope },
  );
  await driver.executeQuery(`MATCH (k:AutonomySwitch) DETACH DELETE k`);
});

/** The one entry `principal` left for `operation`, its arguments parsed. */
async function entryOf(principal: Principal, operation: string) {
  const entries = (await auditOf(driver, principal)).filter((e) => e.operation === operation);
  expect(entries, `${operation}: one audit entry`).toHaveLength(1);
  const [entry] = entries;
  expect(entry!.arguments, `${operation}: arguments recorded`).not.toBeNull();
  return { ...entry!, args: JSON.parse(entry!.arguments!) as unknown };
}

/** Runs one mutation as a fresh principal; returns its entry (outcome as it came). */
async function asked(
  role: Principal['role'],
  operation: string,
  call: (p: Principal) => Promise<unknown>,
): Promise<Awaited<ReturnType<typeof entryOf>>> {
  const principal = principalOf(scope, role);
  await call(principal).catch(() => undefined);
  return entryOf(principal, operation);
}

describe('every mutation audits its arguments', () => {
  it('resources, relationships and checks: the input as asked', async () => {
    const declare = { kind: 'service', name: `api-${scope}`, runsOn: web, evidence: 'systemd unit api.service' };
    const declared = await asked('agent', 'declareResource', (p) => declareResource(deps, p, declare));
    expect(declared).toMatchObject({ outcome: 'ok', args: declare });
    const id = declared.targetIds[0]!;

    const relate = { source: id, target: db, type: 'DEPENDS_ON' as const, evidence: 'DATABASE_URL=postgres://db' };
    expect(await asked('agent', 'createRelationship', (p) => createRelationship(deps, p, relate))).toMatchObject({
      outcome: 'ok',
      args: relate,
    });
    const unrelate = { source: id, target: db, type: 'DEPENDS_ON' as const };
    expect(await asked('operator', 'removeRelationship', (p) => removeRelationship(deps, p, unrelate))).toMatchObject({
      outcome: 'ok',
      args: unrelate,
    });
    const attrs = { id: web, attributes: { owner: 'team-a', api_key: 'k-123' } };
    const updated = await asked('agent', 'updateEntityAttributes', (p) => updateEntityAttributes(deps, p, attrs));
    expect(updated).toMatchObject({
      outcome: 'ok',
      args: { id: web, attributes: { owner: 'team-a', api_key: '[REDACTED]' } },
    });
    expect(updated.arguments).not.toContain('k-123');
    const lifecycle = { id: db, lifecycle: 'deprecated' as const, reason: 'replaced by db2' };
    expect(await asked('operator', 'setLifecycle', (p) => setLifecycle(deps, p, lifecycle))).toMatchObject({
      outcome: 'ok',
      args: lifecycle,
    });
    const check = { resourceId: web, kind: 'provider_state' };
    const created = await asked('operator', 'createCheck', (p) => createCheck(deps, p, check));
    expect(created).toMatchObject({ outcome: 'ok', args: check });
    const { records } = await driver.executeQuery('MATCH (c:Check {resourceId: $web}) RETURN c.id AS id', { web });
    const checkId = String(records[0]!.get('id'));
    expect(await asked('operator', 'removeCheck', (p) => removeCheck(deps, p, { id: checkId }))).toMatchObject({
      outcome: 'ok',
      args: { id: checkId },
    });
    expect(
      await asked('operator', 'removeDeclaredResource', (p) => removeDeclaredResource(deps, p, { id })),
    ).toMatchObject({ outcome: 'ok', args: { id } });
  });

  it('the gate’s mutations: approvals, grants (token redacted), the kill switch, actions taken', async () => {
    const agent = principalOf(scope, 'agent');
    const request = { target: web, action: 'restart', reason: `wedged, password=hunter2` };
    const [approval] = await requestApproval(deps, agent, request);
    expect(await entryOf(agent, 'requestApproval')).toMatchObject({
      outcome: 'ok',
      args: { target: web, action: 'restart', reason: 'wedged, password=[REDACTED]' },
    });
    const approved = await asked('operator', 'approve', async (p) => {
      const { grants } = await approve(deps, p, { id: approval!.id });
      const redeem = { token: grants[0]!.token, input: { target: web, action: 'restart' } };
      const redeemed = await redeemGrant(deps, agent, redeem);
      expect(redeemed.authorized).toBe(true);
      const entry = await entryOf(agent, 'redeemGrant');
      expect(entry).toMatchObject({ outcome: 'ok', args: { token: '[REDACTED]', input: redeem.input } });
      expect(entry.arguments).not.toContain(redeem.token);
    });
    expect(approved).toMatchObject({ outcome: 'ok', args: { id: approval!.id } });

    const [other] = await requestApproval(deps, principalOf(scope, 'agent'), { ...request, target: db });
    expect(await asked('operator', 'deny', (p) => deny(deps, p, { id: other!.id, reason: 'not now' }))).toMatchObject({
      outcome: 'ok',
      args: { id: other!.id, reason: 'not now' },
    });

    const halt = { mode: 'halt' as const, reason: 'incident 42' };
    expect(await asked('operator', 'setAutonomy', (p) => setAutonomy(deps, p, halt))).toMatchObject({
      outcome: 'ok',
      detail: 'normal → halt: incident 42',
      args: halt,
    });
    await setAutonomy(deps, principalOf(scope, 'operator'), { mode: 'normal', reason: 'over' });
    // Restarting needs an approval: refused, and the refusal records what was reported too.
    const taken = { target: web, action: 'restart' };
    expect(await asked('agent', 'reportActionTaken', (p) => reportActionTaken(deps, p, taken))).toMatchObject({
      outcome: 'refused',
      args: taken,
    });
  });

  it('tokens and ingest: the input as asked (the new token itself is never an argument)', async () => {
    const token = { name: `bot-${scope}`, role: 'agent', expiresAt: null };
    const created = await asked('operator', 'createToken', (p) => createToken(deps, p, token));
    expect(created).toMatchObject({ outcome: 'ok', args: token });
    expect(await asked('operator', 'revokeToken', (p) => revokeToken(deps, p, { name: token.name }))).toMatchObject({
      outcome: 'ok',
      args: { name: token.name },
    });
    const events = { server: `vc-${scope}`, events: [] };
    expect(await asked('ingester', 'ingestVcenterEvents', (p) => ingestVcenterEvents(deps, p, events))).toMatchObject({
      args: events,
    });
    const inventory = { server: `vc-${scope}`, document: { vms: [] }, complete: false };
    expect(
      await asked('ingester', 'ingestVcenterInventory', (p) => ingestVcenterInventory(deps, p, inventory)),
    ).toMatchObject({ args: { server: inventory.server, complete: false } });
  });
});

describe('an effect and its audit line commit together', () => {
  const checksOn = async (resourceId: string) =>
    (
      await driver.executeQuery('MATCH (c:Check {resourceId: $resourceId}) RETURN count(c) AS n', { resourceId })
    ).records[0]!.get('n').toNumber() as number;

  it('the audit line cannot be written: the effect is rolled back (check, approval request, kill switch, grant)', async () => {
    const down = { ...deps, ...serviceDeps(withAuditDown(driver), deps.policy) };
    const operator = principalOf(scope, 'operator');
    await expect(createCheck(down, operator, { resourceId: db, kind: 'provider_state' })).rejects.toThrow(
      'audit store down',
    );
    expect(await checksOn(db)).toBe(0);

    const agent = principalOf(scope, 'agent');
    await expect(requestApproval(down, agent, { target: db, action: 'restart', reason: 'r' })).rejects.toThrow(
      'audit store down',
    );
    const pending = await driver.executeQuery('MATCH (a:Approval {requester: $name}) RETURN count(a) AS n', {
      name: agent.name,
    });
    expect(pending.records[0]!.get('n').toNumber()).toBe(0);

    await expect(setAutonomy(down, operator, { mode: 'halt', reason: 'x' })).rejects.toThrow('audit store down');
    const mode = await driver.executeQuery(`MATCH (k:AutonomySwitch {id: 'global'}) RETURN k.mode AS mode`);
    expect(mode.records[0]?.get('mode') ?? 'normal').toBe('normal');

    const [asked] = await requestApproval(deps, agent, { target: db, action: 'restart', reason: 'r' });
    const { grants } = await approve(deps, principalOf(scope, 'operator'), { id: asked!.id });
    await expect(
      redeemGrant(down, agent, { token: grants[0]!.token, input: { target: db, action: 'restart' } }),
    ).rejects.toThrow('audit store down');
    const stored = await driver.executeQuery('MATCH (a:Approval {id: $id}) RETURN a.status AS s', { id: asked!.id });
    expect(stored.records[0]!.get('s')).toBe('approved');
    const [undecided] = await requestApproval(deps, agent, { target: db, action: 'restart', reason: 'r' });
    await expect(approve(down, operator, { id: undecided!.id })).rejects.toThrow('audit store down');
    await expect(deny(down, operator, { id: undecided!.id, reason: 'no' })).rejects.toThrow('audit store down');
    const still = await driver.executeQuery('MATCH (a:Approval {id: $id}) RETURN a.status AS s, a.grantHash AS h', {
      id: undecided!.id,
    });
    expect([still.records[0]!.get('s'), still.records[0]!.get('h')]).toEqual(['pending', null]);
    // Nothing was recorded ok for any of them.
    for (const p of [operator, agent])
      expect((await auditOf(driver, p)).filter((e) => e.outcome === 'ok' && e.operation !== 'requestApproval')).toEqual(
        [],
      );
  });

  it('the audit line cannot be written: resources, relationships and lifecycles are left as they were', async () => {
    const down = { ...deps, ...serviceDeps(withAuditDown(driver), deps.policy) };
    const agent = principalOf(scope, 'agent');
    const operator = principalOf(scope, 'operator');
    const name = `rollback-${scope}`;
    // Its own VM: the other tests deprecate theirs.
    const vm = `proxmox:${scope}/qemu/203`;
    await upsertResources(driver, [
      { id: vm, kind: 'vm', provider: 'proxmox', name: `app-${scope}`, state: 'running', lifecycle: 'active' },
    ]);
    const declare = { kind: 'service', name, runsOn: vm, evidence: 'systemd unit' };
    await expect(declareResource(down, agent, declare)).rejects.toThrow('audit store down');
    const declaredCount = await driver.executeQuery('MATCH (r:Resource {name: $name}) RETURN count(r) AS n', { name });
    expect(declaredCount.records[0]!.get('n').toNumber()).toBe(0);

    // Something to relate, remove and relabel, written with the audit store up.
    const { resource } = await declareResource(deps, agent, declare);
    const edgesBetween = async () =>
      (
        await driver.executeQuery(
          'MATCH (:Resource {id: $a})-[e:DEPENDS_ON]->(:Resource {id: $b}) RETURN count(e) AS n',
          {
            a: resource.id,
            b: vm,
          },
        )
      ).records[0]!.get('n').toNumber() as number;
    const relate = { source: resource.id, target: vm, type: 'DEPENDS_ON' as const };
    await expect(createRelationship(down, agent, relate)).rejects.toThrow('audit store down');
    expect(await edgesBetween()).toBe(0);
    await createRelationship(deps, agent, relate);
    await expect(removeRelationship(down, operator, relate)).rejects.toThrow('audit store down');
    expect(await edgesBetween()).toBe(1);

    await expect(updateEntityAttributes(down, agent, { id: vm, attributes: { rack: 'r9' } })).rejects.toThrow(
      'audit store down',
    );
    await expect(setLifecycle(down, operator, { id: vm, lifecycle: 'deprecated', reason: 'x' })).rejects.toThrow(
      'audit store down',
    );
    await expect(removeDeclaredResource(down, operator, { id: resource.id })).rejects.toThrow('audit store down');
    const after = await driver.executeQuery(
      `MATCH (w:Resource {id: $web}) OPTIONAL MATCH (d:Resource {id: $declared})
       RETURN w.\`attr.rack\` AS rack, w.lifecycle AS lifecycle, d IS NOT NULL AS declaredStays`,
      { web: vm, declared: resource.id },
    );
    expect(after.records[0]!.toObject()).toEqual({ rack: null, lifecycle: 'active', declaredStays: true });
  });

  it('a failing effect leaves no ok entry: the run is audited as error, nothing written', async () => {
    const broken = {
      ...deps,
      ...serviceDeps(failingStatements(driver, 'MERGE (c:Check', 'check store down'), deps.policy),
    };
    const operator = principalOf(scope, 'operator');
    await expect(createCheck(broken, operator, { resourceId: db, kind: 'provider_state' })).rejects.toThrow(
      'check store down',
    );
    expect(await checksOn(db)).toBe(0);
    expect((await auditOf(driver, operator)).map((e) => [e.operation, e.outcome])).toEqual([['createCheck', 'error']]);
  });
});
