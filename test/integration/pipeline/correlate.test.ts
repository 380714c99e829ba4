import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { searchConditions } from '../../../src/graph/conditions.js';
import { upsertEvents } from '../../../src/graph/events.js';
import { readFeed } from '../../../src/graph/feed.js';
import { upsertEdges } from '../../../src/graph/edges.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { listTransitions } from '../../../src/graph/transitions/read.js';
import { correlateChanges, explainTransition, type ObservedChange } from '../../../src/pipeline/correlate.js';
import type { CorrelatorSettings } from '../../../correlator/index.js';
import type { SuppressionMode } from '../../../src/policy/policy-document.js';
import type { Transition, TransitionRecord } from '../../../src/model/index.js';
import { transformVcenterEvent } from '../../../src/ingest/vcenter/events-transform.js';
import { readFixture } from '../../support/fixtures.js';
import { useGraph } from '../../support/graph.js';
import { taskEvent, useEventCleanup } from '../../support/proxmox-tasks.js';

const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const cluster = `lab-${scope}`;
const vmId = (vmid: string) => `proxmox:${cluster}/qemu/${vmid}`;
const T = DateTime.fromISO('2026-05-14T02:08:31Z', { zone: 'utc' });
const at = (s: number) => T.plus({ seconds: s }).toISO({ suppressMilliseconds: true })!;

/** The pipeline's correlation step with the deps a pass would give it. */
const correlate = (
  changes: ObservedChange[],
  o: {
    observedAt: string;
    observer: string;
    suppression: SuppressionMode;
    settings?: Partial<CorrelatorSettings>;
  },
) => correlateChanges({ driver, suppression: o.suppression, correlator: o.settings }, changes, o);
/** explainTransition as `explainTransition` (GraphQL) asks it. */
const explainStored = (t: Transition, settings: Partial<CorrelatorSettings> = {}) =>
  explainTransition({ driver, suppression: 'shadow', correlator: settings }, t);

async function vm(vmid: string, state: string) {
  await upsertResources(driver, [
    { id: vmId(vmid), kind: 'vm', provider: 'proxmox', name: `web-${vmid}-${scope}`, state, rawState: state },
  ]);
}

describe('correlateChanges (the pipeline step)', () => {
  it('stores an attributed, gated transition once, linked to its resource, and puts it on the feed once', async () => {
    await vm('101', 'running');
    const stop = taskEvent(cluster, {
      node: 'pve1',
      type: 'qmstop',
      id: '101',
      user: 'alice@pve',
      start: at(-2),
      end: at(-1),
    });
    await upsertEvents(driver, [stop]);
    const change = { id: vmId('101'), kind: 'vm' as const, from: 'running', to: 'stopped', rawState: 'stopped' };
    const options = {
      observedAt: at(0),
      observer: 'test-poll',
      suppression: 'shadow' as const,
    };

    const first = await correlate([change], options);
    expect(first.errors).toEqual([]);
    expect(first.created).toHaveLength(1);
    const t = first.created[0]!;
    expect(t).toMatchObject({
      id: `${vmId('101')}#running>stopped@${T.toMillis()}`,
      from: 'running',
      to: 'stopped',
      rawTo: 'stopped',
      observer: 'test-poll',
      attribution: {
        confidence: 'high',
        actor: 'alice@pve',
        actorKind: 'human',
        deltaSeconds: 1,
        events: [expect.objectContaining({ id: stop.id, role: 'cause' })],
      },
      decision: { decision: 'open_incident', wouldHaveSuppressed: expect.stringContaining('Stopped by alice@pve') },
    });
    expect(t.narrative).toBe(
      `vm "web-101-${scope}" (${vmId('101')}) went running → stopped at 2026-05-14 02:08:31 UTC. Stopped by alice@pve — task qmstop (${stop.id}), 02:08:29–02:08:30 UTC, OK. Confidence high: expected task type, 1 s before the observation.`,
    );
    const { records } = await driver.executeQuery(
      'MATCH (t:Transition {id: $id})-[:OF]->(r:Resource) RETURN r.id AS rid, t.confidence AS c, t.eventIds AS ids, t.decisionReasons AS reasons',
      { id: t.id },
    );
    expect(records.map((r) => [r.get('rid'), r.get('c'), r.get('ids')])).toEqual([[vmId('101'), 'high', [stop.id]]]);

    const again = await correlate([change], options);
    expect(again).toMatchObject({ created: [], existing: [t.id] });
    // On the feed once, with the sequence the transition carries: what subscribers receive.
    const fed = await readFeed(driver, { afterSeq: 0, limit: 100, topics: ['transition'], resourceId: vmId('101') });
    expect(fed.map((f) => [f.seq, f.change, (f.payload as TransitionRecord).id])).toEqual([
      [t.sequence, 'observed', t.id],
    ]);
  });

  it('one task does not explain two transitions of the same kind on the same resource', async () => {
    await vm('102', 'running');
    const stop = taskEvent(cluster, {
      node: 'pve1',
      type: 'qmstop',
      id: '102',
      user: 'alice@pve',
      start: at(-2),
      end: at(-1),
    });
    await upsertEvents(driver, [stop]);
    const base = { observer: 'test-poll', suppression: 'shadow' as const };
    const c = (from: string, to: string) => ({ id: vmId('102'), kind: 'vm' as const, from, to });
    await correlate([c('running', 'stopped')], { ...base, observedAt: at(0) });
    // The guest comes back with no start task (the stop is only related: medium) and stops again a
    // minute later, still within the look-back: the stop already explained a running → stopped.
    await correlate([c('stopped', 'running')], { ...base, observedAt: at(30) });
    const second = await correlate([c('running', 'stopped')], { ...base, observedAt: at(60) });
    expect(second.created[0]!.attribution).toMatchObject({ confidence: 'none', consideredEvents: 1 });
    expect(second.created[0]!.narrative).toMatch(/already explain earlier transitions; the cause is unknown\.$/);
    const page = await listTransitions(driver, { resourceId: vmId('102') });
    expect(page.nodes.map((x) => `${x.from}>${x.to}:${x.attribution.confidence}`)).toEqual([
      'running>stopped:none',
      'stopped>running:medium',
      'running>stopped:high',
    ]);
  });

  it('paused on an I/O error opens a condition carrying the attribution; leaving the state resolves it', async () => {
    await vm('113', 'running');
    const base = { observer: 'test-poll', suppression: 'shadow' as const };
    const opened = await correlate(
      [{ id: vmId('113'), kind: 'vm', from: 'running', to: 'paused_io_error', rawState: 'running/io-error' }],
      { ...base, observedAt: at(0) },
    );
    expect(opened.conditions.opened).toHaveLength(1);
    const [open] = (await searchConditions(driver, { resourceId: vmId('113'), status: 'open' }, { first: 50 })).nodes;
    expect(open).toMatchObject({
      type: 'paused_io_error',
      evidence: { transitionId: opened.created[0]!.id, rawState: 'running/io-error' },
      attribution: {
        transitionId: opened.created[0]!.id,
        confidence: 'none',
        narrative: expect.stringContaining('the cause is unknown'),
      },
    });
    const resolved = await correlate([{ id: vmId('113'), kind: 'vm', from: 'paused_io_error', to: 'running' }], {
      ...base,
      observedAt: at(120),
    });
    expect(resolved.conditions.resolved).toEqual([open!.id]);
    expect((await searchConditions(driver, { resourceId: vmId('113'), status: 'open' }, { first: 50 })).nodes).toEqual(
      [],
    );
  });

  it('suppression on: a high-confidence principal suppresses; the gate reasons are stored', async () => {
    await vm('104', 'running');
    await upsertEvents(driver, [
      taskEvent(cluster, {
        node: 'pve1',
        type: 'qmshutdown',
        id: '104',
        user: 'ops@pve!deploy',
        start: at(-40),
        end: at(-3),
      }),
    ]);
    const r = await correlate([{ id: vmId('104'), kind: 'vm', from: 'running', to: 'stopped' }], {
      observedAt: at(0),
      observer: 'test-poll',
      suppression: 'on',
    });
    expect(r.created[0]).toMatchObject({
      attribution: { confidence: 'high', actor: 'ops@pve!deploy', actorKind: 'api_token' },
      decision: { decision: 'suppress' },
    });
    expect(r.created[0]!.decision.reasons[0]).toMatch(/attribution.suppression is on/);
  });
});

describe('when the correlator itself fails', () => {
  it('keeps the observed change as an honest none transition instead of losing it', async () => {
    await vm('150', 'running');
    const broken = new Proxy(
      {},
      {
        get: () => {
          throw new Error('transition table unreadable');
        },
      },
    );
    const change = { id: vmId('150'), kind: 'vm' as const, from: 'running', to: 'stopped', rawState: 'stopped' };
    const r = await correlate([change], {
      observedAt: at(900),
      observer: 'test-poll',
      suppression: 'shadow',
      settings: { table: broken as never },
    });
    expect(r.errors).toEqual([
      { resourceId: vmId('150'), message: expect.stringContaining('transition table unreadable') },
    ]);
    expect(r.created).toHaveLength(1);
    expect(r.created[0]!.attribution).toMatchObject({ confidence: 'none', actor: null });
    expect(r.created[0]!.narrative).toMatch(
      /The correlator failed \(.*transition table unreadable.*\); the cause is unknown\.$/,
    );
    expect(r.created[0]!.decision.decision).toBe('open_incident');
  });
});

describe('low: provider-level activity, only when asked', () => {
  it('a node-wide stopall on the node the guest runs on is low with emitLow, none without', async () => {
    await vm('106', 'running');
    const host = `proxmox:${cluster}/node/pve7`;
    await upsertResources(driver, [{ id: host, kind: 'host', provider: 'proxmox', name: 'pve7', state: 'online' }]);
    await upsertEdges(driver, [
      { type: 'RUNS_ON', fromId: vmId('106'), toId: host, provenance: 'observed', source: `proxmox:${cluster}` },
    ]);
    await upsertEvents(driver, [
      taskEvent(cluster, { node: 'pve7', type: 'stopall', id: '', user: 'root@pam', start: at(-50), end: at(-4) }),
    ]);
    const t = { resourceId: vmId('106'), kind: 'vm' as const, from: 'running', to: 'stopped', observedAt: at(0) };
    expect((await explainStored(t)).attribution.confidence).toBe('none');
    const low = await explainStored(t, { emitLow: true });
    expect(low.transition.hostId).toBe(host);
    expect(low.attribution).toMatchObject({
      confidence: 'low',
      events: [expect.objectContaining({ rawType: 'stopall', node: 'pve7' })],
    });
    expect(low.narrative).toMatch(
      /Provider-level activity nearby: task stopall .* by root@pam on pve7.*Confidence low: nothing on this resource itself/,
    );
  });
});

describe('explainTransition', () => {
  it('answers from stored events without storing anything', async () => {
    await vm('105', 'running');
    await upsertEvents(driver, [
      taskEvent(cluster, {
        node: 'pve1',
        type: 'qmstart',
        id: '105',
        user: 'alice@pve',
        start: at(-200),
        end: at(-198),
      }),
    ]);
    const x = await explainStored({
      resourceId: vmId('105'),
      kind: 'vm',
      from: 'running',
      to: 'stopped',
      observedAt: at(0),
    });
    expect(x.attribution).toMatchObject({ confidence: 'medium', expectedType: false });
    expect(x.narrative).toMatch(/Confidence medium: unexpected task type for running → stopped/);
    expect((await listTransitions(driver, { resourceId: vmId('105') })).nodes).toEqual([]);
  });
});

describe('the sharper ladder through the one graph read', () => {
  const server = `vc-${scope}`;
  const vcVm = `vcenter:${server}/vm/vm-101`;
  const vcHost = `vcenter:${server}/host/host-21`;

  it('a VM goes unreachable when vCenter loses its host: the host event is read without emitLow and is high', async () => {
    await upsertResources(driver, [
      { id: vcVm, kind: 'vm', provider: 'vcenter', name: `web-01-${scope}`, state: 'running', rawState: 'poweredOn' },
      { id: vcHost, kind: 'host', provider: 'vcenter', name: 'esx1.lan', state: 'online', rawState: 'connected' },
    ]);
    await upsertEdges(driver, [
      { type: 'RUNS_ON', fromId: vcVm, toId: vcHost, provenance: 'observed', source: `vcenter:${server}` },
    ]);
    const doc = readFixture('vcenter/sequences/host-failure-ha-restart.json') as { events: unknown[] };
    const lost = transformVcenterEvent(doc.events[0], { server });
    if (!lost.ok) throw new Error(lost.reason);
    await upsertEvents(driver, [lost.event]);
    const r = await correlate(
      [{ id: vcVm, kind: 'vm', from: 'running', to: 'unreachable', rawState: 'notResponding' }],
      {
        observedAt: at(0),
        observer: 'test-poll',
        suppression: 'shadow',
      },
    );
    expect(r.errors).toEqual([]);
    expect(r.created[0]!).toMatchObject({
      hostId: vcHost,
      attribution: {
        confidence: 'high',
        actor: null,
        actorKind: 'system',
        events: [expect.objectContaining({ id: lost.event.id })],
      },
      decision: { decision: 'open_incident' },
    });
    expect(r.created[0]!.narrative).toContain(
      'Made unreachable by the system (no user recorded) — on its host esx1.lan, event HostConnectionLostEvent',
    );
  });

  it('an HA-managed guest started by root@pam with no request: the HA manager on its own, never suppressed', async () => {
    await upsertResources(driver, [
      {
        id: vmId('120'),
        kind: 'vm',
        provider: 'proxmox',
        name: `ha-${scope}`,
        state: 'stopped',
        rawState: 'stopped',
        attributes: { ha_managed: true, hastate: 'started' },
      },
    ]);
    const start = taskEvent(cluster, {
      node: 'pve2',
      type: 'qmstart',
      id: '120',
      user: 'root@pam',
      start: at(-15),
      end: at(-13),
    });
    await upsertEvents(driver, [start]);
    const t = { resourceId: vmId('120'), kind: 'vm' as const, from: 'stopped', to: 'running', observedAt: at(0) };
    const x = await explainTransition({ driver, suppression: 'on' }, t);
    expect(x.attribution).toMatchObject({
      confidence: 'high',
      actor: 'root@pam',
      actorKind: 'system',
      systemContext: { label: 'HA manager', eventId: null },
    });
    expect(x.narrative).toContain(`Started by the system (HA manager) — task qmstart (${start.id})`);
    expect(x.decision.decision).toBe('open_incident');
  });

  it("a guest started inside its node's startall: the system, read without emitLow", async () => {
    await vm('121', 'stopped');
    const host = `proxmox:${cluster}/node/pve8`;
    await upsertResources(driver, [{ id: host, kind: 'host', provider: 'proxmox', name: 'pve8', state: 'online' }]);
    await upsertEdges(driver, [
      { type: 'RUNS_ON', fromId: vmId('121'), toId: host, provenance: 'observed', source: `proxmox:${cluster}` },
    ]);
    const all = taskEvent(cluster, {
      node: 'pve8',
      type: 'startall',
      id: '',
      user: 'root@pam',
      start: at(-40),
      end: null,
    });
    const start = taskEvent(cluster, {
      node: 'pve8',
      type: 'qmstart',
      id: '121',
      user: 'root@pam',
      start: at(-20),
      end: at(-18),
    });
    await upsertEvents(driver, [all, start]);
    const x = await explainStored({
      resourceId: vmId('121'),
      kind: 'vm',
      from: 'stopped',
      to: 'running',
      observedAt: at(0),
    });
    expect(x.attribution).toMatchObject({
      confidence: 'high',
      actorKind: 'system',
      systemContext: { label: 'node start-up: startall', eventId: all.id },
      events: [expect.objectContaining({ id: start.id, role: 'cause' })],
    });
    expect(x.narrative).toContain('Started by the system (node start-up: startall) — task qmstart');
  });

  it('the previous observation widens the window: a stop 4 minutes before, after it, is high', async () => {
    await vm('122', 'running');
    const stop = taskEvent(cluster, {
      node: 'pve1',
      type: 'qmstop',
      id: '122',
      user: 'alice@pve',
      start: at(-240),
      end: at(-239),
    });
    await upsertEvents(driver, [stop]);
    const t = { resourceId: vmId('122'), kind: 'vm' as const, from: 'running', to: 'stopped', observedAt: at(0) };
    expect((await explainStored(t)).attribution.confidence).toBe('medium');
    const x = await explainStored({ ...t, previousObservedAt: at(-300) });
    expect(x.attribution).toMatchObject({ confidence: 'high', actor: 'alice@pve', previousObservedAt: at(-300) });
    expect(x.narrative).toContain('(it was running at the previous observation, 02:03:31 UTC)');
  });
});
