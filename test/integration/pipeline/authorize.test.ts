import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { upsertEvents } from '../../../src/graph/events.js';
import { transformVcenterEvent } from '../../../src/ingest/vcenter/events-transform.js';
import { readFeed } from '../../../src/graph/feed.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { resolveActorMapping, type ActorMappingEntry } from '../../../src/model/index.js';
import { authorizeExplanations } from '../../../src/pipeline/authorize.js';
import {
  correlateChanges,
  type CorrelationDeps,
  explainTransition,
  type ObservedChange,
} from '../../../src/pipeline/correlate.js';
import { useGraph } from '../../support/graph.js';
import { taskEvent, useEventCleanup } from '../../support/proxmox-tasks.js';

/*
 * Agents' own changes through the correlation step against Neo4j: a change by the agent's token
 * is credited to the grant it redeemed (the approver named, the entry recorded on the Transition
 * so it explains no other task), the exact UPID wins, a second task the same grant cannot explain
 * is unauthorized and opens `unauthorized_action` (never suppressed, on the feed), a stranger's
 * change is neither, and without a mapping nothing is decided or read.
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const cluster = `lab-${scope}`;
const vmId = (vmid: string) => `proxmox:${cluster}/qemu/${vmid}`;
const T = DateTime.fromISO('2026-05-14T02:08:31Z', { zone: 'utc' });
const at = (s: number) => T.plus({ seconds: s }).toISO({ suppressMilliseconds: true })!;
const AGENT = `rhodes-${scope}`;
const MAPPING: ActorMappingEntry[] = [
  { provider: 'proxmox', user: 'rhodes@pve!ops', principal: AGENT },
  { provider: 'proxmox', user: 'alice@pve', principal: `alice-${scope}` },
];
const actors = () =>
  resolveActorMapping(MAPPING, [
    { name: AGENT, role: 'agent' },
    { name: `alice-${scope}`, role: 'operator' },
  ]);
const deps: CorrelationDeps = { driver, suppression: 'on', actors };

afterAll(async () => {
  await driver.executeQuery(
    'MATCH (n) WHERE (n:Approval OR n:ActionAuthorized) AND n.targetId CONTAINS $scope DETACH DELETE n',
    { scope },
  );
});

/** A redeemed grant as redeemGrant records it: the entry and the approval behind it. */
async function redeemed(id: string, target: string, action: string, atIso: string, providerTaskId?: string) {
  await driver.executeQuery(
    `CREATE (a:Approval {id: $approvalId, targetId: $target, requester: $agent, decidedBy: 'bob', decidedAt: datetime($decidedAt)})
     CREATE (x:ActionAuthorized {id: $id, source: 'grant', action: $action, targetId: $target, principal: $agent,
                                 at: datetime($at), approvalId: $approvalId, providerTaskId: $providerTaskId})`,
    {
      id,
      approvalId: `apr-${id}`,
      target,
      agent: AGENT,
      action,
      at: atIso,
      decidedAt: at(-300),
      providerTaskId: providerTaskId ?? null,
    },
  );
}

async function vm(vmid: string, state: string) {
  await upsertResources(driver, [
    { id: vmId(vmid), kind: 'vm', provider: 'proxmox', name: `web-${vmid}-${scope}`, state, rawState: state },
  ]);
}

const change = (vmid: string, from: string, to: string): ObservedChange => ({
  id: vmId(vmid),
  kind: 'vm',
  from,
  to,
  rawState: to,
});
const task = (vmid: string, type: string, user: string, start: number) =>
  taskEvent(cluster, { node: 'pve1', type, id: vmid, user, start: at(start), end: at(start + 1) });

describe('agents’ changes in the correlation step', () => {
  it('credits the grant, records it on the Transition, and a later task it cannot explain is unauthorized', async () => {
    await vm('101', 'stopped');
    await redeemed(`auth-a-${scope}`, vmId('101'), 'start', at(-60));
    const start = task('101', 'qmstart', 'rhodes@pve!ops', -3);
    await upsertEvents(driver, [start]);
    const first = await correlateChanges(deps, [change('101', 'stopped', 'running')], {
      observedAt: at(0),
      observer: 'test',
    });
    expect(first.errors).toEqual([]);
    const t = first.created[0]!;
    expect(t.attribution.authorization).toMatchObject({
      grantId: `auth-a-${scope}`,
      approvalId: `apr-auth-a-${scope}`,
      approvedBy: 'bob',
      requestedBy: AGENT,
      matchedBy: 'window',
      eventId: start.id,
    });
    expect(t.attribution.unauthorized).toBeNull();
    expect(t.narrative).toContain(
      `Authorized: started by agent ${AGENT} (Proxmox token rhodes@pve!ops) under grant auth-a-${scope} for start`,
    );
    expect(t.narrative).toContain(`approved by bob at ${at(-300)}`);
    // Intentional: with suppression on, the gate suppresses it, naming the grant.
    expect(t.decision.decision).toBe('suppress');
    expect(t.decision.reasons[0]).toContain(`under grant auth-a-${scope} approved by bob`);
    const { records } = await driver.executeQuery(
      'MATCH (t:Transition {id: $id}) RETURN t.authorizationId AS a, t.authorizationEventId AS e',
      { id: t.id },
    );
    expect(records[0]!.toObject()).toEqual({ a: `auth-a-${scope}`, e: start.id });

    // alice stops it, then the agent starts it again within the grant's use window: the grant is used up.
    await upsertEvents(driver, [task('101', 'qmstop', 'alice@pve', 57)]);
    await correlateChanges(deps, [change('101', 'running', 'stopped')], { observedAt: at(60), observer: 'test' });
    const again = task('101', 'qmstart', 'rhodes@pve!ops', 117);
    await upsertEvents(driver, [again]);
    const before = await readFeed(driver, {
      afterSeq: 0,
      limit: 10_000,
      topics: ['condition'],
      resourceId: vmId('101'),
    });
    const second = await correlateChanges(deps, [change('101', 'stopped', 'running')], {
      observedAt: at(120),
      observer: 'test',
    });
    const s = second.created[0]!;
    expect(s.attribution.authorization).toBeNull();
    expect(s.attribution.unauthorized).toEqual({
      principal: AGENT,
      actor: 'rhodes@pve!ops',
      eventId: again.id,
      reason: `each of ${AGENT}'s matching authorizations already explains another task`,
    });
    expect(s.narrative).toMatch(/Unauthorized: started by agent .* \(Proxmox token rhodes@pve!ops\)/);
    expect(s.decision.decision).toBe('open_incident');
    expect(second.conditions.opened).toHaveLength(1);
    const after = await readFeed(driver, {
      afterSeq: 0,
      limit: 10_000,
      topics: ['condition'],
      resourceId: vmId('101'),
    });
    const opened = after.slice(before.length).map((f) => f.payload as Record<string, unknown>);
    expect(opened).toEqual([
      expect.objectContaining({
        type: 'unauthorized_action',
        status: 'open',
        suppressed: false,
        wouldSuppress: false,
        causeTransitionId: s.id,
        evidence: expect.objectContaining({ transitionId: s.id, actor: 'rhodes@pve!ops', principal: AGENT }),
      }),
    ]);
    expect(after.at(-1)!.change).toBe('opened');
  }, 240_000);

  it('the UPID the agent named wins over a nearer grant; a retried pass changes nothing', async () => {
    await vm('102', 'running');
    const reboot = task('102', 'qmreboot', 'rhodes@pve!ops', -5);
    await upsertEvents(driver, [reboot]);
    await redeemed(`auth-b-${scope}`, vmId('102'), 'restart', at(-200), reboot.id);
    await redeemed(`auth-c-${scope}`, vmId('102'), 'restart', at(-6));
    const c = change('102', 'running', 'stopped');
    const r = await correlateChanges(deps, [c], { observedAt: at(0), observer: 'test' });
    expect(r.created[0]!.attribution.authorization).toMatchObject({
      grantId: `auth-b-${scope}`,
      matchedBy: 'task_id',
    });
    expect(r.created[0]!.narrative).toContain('the agent named this task');
    // explainTransition answers the same for the same change, storing nothing.
    const told = await explainTransition(deps, { ...c, resourceId: c.id, observedAt: at(0), observer: 'ask' });
    expect(told.attribution.authorization).toMatchObject({ grantId: `auth-b-${scope}`, matchedBy: 'task_id' });
    expect(told.narrative).toContain('Authorized: ');
    const again = await correlateChanges(deps, [c], { observedAt: at(0), observer: 'test' });
    expect(again.created).toEqual([]);
    expect(again.conditions.opened).toEqual([]);
  }, 240_000);

  it('a restart carried out as a stop then a start, seen by two passes, is one grant’s', async () => {
    await vm('107', 'running');
    await redeemed(`auth-d-${scope}`, vmId('107'), 'restart', at(-30));
    await upsertEvents(driver, [task('107', 'qmstop', 'rhodes@pve!ops', -3)]);
    const down = await correlateChanges(deps, [change('107', 'running', 'stopped')], {
      observedAt: at(0),
      observer: 'test',
    });
    await upsertEvents(driver, [task('107', 'qmstart', 'rhodes@pve!ops', 27)]);
    const up = await correlateChanges(deps, [change('107', 'stopped', 'running')], {
      observedAt: at(30),
      observer: 'test',
    });
    for (const r of [down, up]) {
      expect(r.created[0]!.attribution.authorization).toMatchObject({ grantId: `auth-d-${scope}` });
      expect(r.conditions.opened).toEqual([]);
    }
  }, 240_000);

  it('vCenter: the agent’s DOMAIN\\user powers a VM off — credited to the grant; powered on again with none, unauthorized', async () => {
    const server = `vc-${scope}`;
    const vcVm = `vcenter:${server}/vm/vm-301`;
    await upsertResources(driver, [
      { id: vcVm, kind: 'vm', provider: 'vcenter', name: `app-${scope}`, state: 'running', rawState: 'poweredOn' },
    ]);
    const event = (typeName: string, s: number, key: number) => {
      const r = transformVcenterEvent(
        {
          _typeName: typeName,
          key,
          chainId: key,
          createdTime: at(s),
          userName: 'VSPHERE.LOCAL\\svc-rhodes',
          vm: {
            name: `app-${scope}`,
            vm: { _typeName: 'ManagedObjectReference', type: 'VirtualMachine', value: 'vm-301' },
          },
        },
        { server },
      );
      if (!r.ok) throw new Error(r.reason);
      return r.event;
    };
    await driver.executeQuery(
      `CREATE (x:ActionAuthorized {id: $id, source: 'auto', action: 'stop', targetId: $target, principal: $agent,
                                   at: datetime($at), approvalId: null, providerTaskId: 'task-77'})`,
      { id: `auth-vc-${scope}`, target: vcVm, agent: AGENT, at: at(-1) },
    );
    const vcDeps: CorrelationDeps = {
      ...deps,
      actors: () =>
        resolveActorMapping(
          [{ provider: 'vcenter', user: 'svc-rhodes@vsphere.local', principal: AGENT }],
          [{ name: AGENT, role: 'agent' }],
        ),
    };
    await upsertEvents(driver, [event('VmPoweredOffEvent', -3, 9001)]);
    const off = await correlateChanges(vcDeps, [{ id: vcVm, kind: 'vm', from: 'running', to: 'stopped' }], {
      observedAt: at(0),
      observer: 'test',
    });
    expect(off.created[0]!.attribution.authorization).toMatchObject({ grantId: `auth-vc-${scope}`, source: 'auto' });
    expect(off.created[0]!.narrative).toContain('as an automatic stop the gate allowed');
    await upsertEvents(driver, [event('VmPoweredOnEvent', 57, 9002)]);
    const on = await correlateChanges(vcDeps, [{ id: vcVm, kind: 'vm', from: 'stopped', to: 'running' }], {
      observedAt: at(60),
      observer: 'test',
    });
    expect(on.created[0]!.attribution.unauthorized).toMatchObject({ principal: AGENT });
    expect(on.created[0]!.narrative).toContain('vCenter user');
    expect(on.conditions.opened).toHaveLength(1);
  }, 240_000);

  it('a stranger’s or an operator’s change is neither; without a mapping nothing is decided', async () => {
    await vm('103', 'running');
    await vm('104', 'running');
    await upsertEvents(driver, [task('103', 'qmstop', 'mallory@pve', -2), task('104', 'qmstop', 'alice@pve', -2)]);
    const r = await correlateChanges(deps, [change('103', 'running', 'stopped'), change('104', 'running', 'stopped')], {
      observedAt: at(0),
      observer: 'test',
    });
    for (const t of r.created) {
      expect(t.attribution.confidence).toBe('high');
      expect(t.attribution.authorization ?? null).toBeNull();
      expect(t.attribution.unauthorized ?? null).toBeNull();
      expect(t.narrative).not.toMatch(/Authorized|Unauthorized/);
    }
    expect(r.conditions.opened).toEqual([]);

    await vm('105', 'running');
    await upsertEvents(driver, [task('105', 'qmstop', 'rhodes@pve!ops', -2)]);
    const off = await correlateChanges({ driver, suppression: 'on' }, [change('105', 'running', 'stopped')], {
      observedAt: at(0),
      observer: 'test',
    });
    expect(off.created[0]!.attribution).not.toHaveProperty('unauthorized');
    expect(off.conditions.opened).toEqual([]);
  }, 240_000);

  it('reads nothing when no change is an agent’s', async () => {
    const untouchable = new Proxy({} as Driver, {
      get: () => {
        throw new Error('the driver was used');
      },
    });
    const a = task('106', 'qmstop', 'alice@pve', -2);
    const attribution = {
      confidence: 'high' as const,
      actor: 'alice@pve',
      actorKind: 'human' as const,
      requestedBy: null,
      executor: null,
      executorKind: null,
      systemContext: null,
      events: [{ ...a, role: 'cause' as const, summary: 'qmstop by alice@pve' }],
      deltaSeconds: 1,
      expectedType: true,
      consideredEvents: 1,
      lookbackSeconds: 900,
      previousObservedAt: null,
      reason: 'r',
    };
    const out = await authorizeExplanations({ driver: untouchable, actors }, [
      { transition: { resourceId: vmId('106'), from: 'running', to: 'stopped' }, attribution, narrative: 'n' },
    ]);
    expect(out[0]).toEqual({ attribution, narrative: 'n', verdict: null });
  }, 240_000);
});
