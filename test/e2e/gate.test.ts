import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import {
  DEFAULT_POLICY_PATH,
  guestAgentBlockedMessage,
  type LoadedPolicy,
  loadStartupPolicy,
  parsePolicy,
} from '../../src/policy/index.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
let srv: TestServer;
let trusting: TestServer;
let shipped: LoadedPolicy;

const ids = {
  host: `proxmox:${scope}/node/pve1`,
  vm: `proxmox:${scope}/qemu/101`,
  noAgent: `proxmox:${scope}/qemu/102`,
  old: `proxmox:${scope}/qemu/103`,
  legacy: `manual:service/${scope}-legacy`,
  app: `manual:service/${scope}-app`,
  web: `manual:service/${scope}-web`,
  nginx: `manual:service/${scope}-nginx`,
  odd: `manual:service/${scope}-odd`,
};
const names = { host: `pve1-${scope}`, vm: `web01-${scope}`, noAgent: `db01-${scope}`, old: `old01-${scope}` };

const DECISION = `riskClass autonomy approval reasons policyDigest blocked
  matchedRule { index entityType action scopeEntity riskClass autonomyLevel matchedBy }
  preflight { check ok blocking message }
  target { id slug name kind entityType lifecycle inGraph notes resource { id } }`;
const CLASSIFY = `query($input: ClassifyActionInput!) { classifyAction(input: $input) { ${DECISION} } }`;

/** Asks the gate as the agent; fails the test on any GraphQL error. */
async function ask(server: TestServer, input: Record<string, unknown>) {
  const { status, body } = await server.gql(server.tokens.agent, CLASSIFY, { input });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data.classifyAction;
}

/** The shipped policy with global.auto_act reversible_low: trust granted for reversible actions. */
function trustingPolicy(): LoadedPolicy {
  const doc = parse(readFileSync(DEFAULT_POLICY_PATH, 'utf8'));
  doc.autonomy_settings.global.auto_act = 'reversible_low';
  const parsed = parsePolicy(stringify(doc));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return { policy: parsed.policy, digest: parsed.digest, path: '/test/trusting.yaml' };
}

/** Nodes of this file other than audit entries: a gate question must add none. */
async function nodeCount(): Promise<number> {
  const { records } = await driver.executeQuery('MATCH (n) WHERE n.id CONTAINS $s RETURN count(n) AS n', { s: scope });
  return records[0]!.get('n').toNumber();
}

async function edgeCount(): Promise<number> {
  const { records } = await driver.executeQuery(
    'MATCH (a:Resource)-[e]->() WHERE a.id CONTAINS $s RETURN count(e) AS n',
    { s: scope },
  );
  return records[0]!.get('n').toNumber();
}

beforeAll(async () => {
  shipped = await loadStartupPolicy(undefined);
  srv = await startTestServer(driver);
  trusting = await startTestServer(driver, { policy: trustingPolicy() });
  await upsertResources(driver, [
    { id: ids.host, kind: 'host', provider: 'proxmox', name: names.host, state: 'online' },
    {
      id: ids.vm,
      kind: 'vm',
      provider: 'proxmox',
      name: names.vm,
      state: 'running',
      attributes: { qemu_guest_agent: 'running' },
    },
    {
      id: ids.noAgent,
      kind: 'vm',
      provider: 'proxmox',
      name: names.noAgent,
      state: 'running',
      attributes: { qemu_guest_agent: 'not_running' },
    },
    { id: ids.old, kind: 'vm', provider: 'proxmox', name: names.old, state: 'stopped' },
    { id: ids.legacy, kind: 'service', provider: 'manual', name: `${scope}-legacy`, state: 'up' },
    { id: ids.app, kind: 'service', provider: 'manual', name: `${scope}-app`, state: 'up' },
    { id: ids.web, kind: 'service', provider: 'manual', name: `${scope}-web`, state: 'up' },
    {
      id: ids.nginx,
      kind: 'service',
      provider: 'manual',
      name: `${scope}-nginx`,
      state: 'up',
      attributes: { entity_type: 'docker-container' },
    },
    {
      id: ids.odd,
      kind: 'service',
      provider: 'manual',
      name: `${scope}-odd`,
      state: 'up',
      attributes: { entity_type: 'secret' },
    },
  ]);
});
afterAll(async () => {
  await srv?.close();
  await trusting?.close();
});

describe('the policy in force', () => {
  it('reports the same digest in about, policy and the loaded file', async () => {
    const { body } = await srv.gql(
      srv.tokens.agent,
      `{ about { policyDigest } policy { digest path suppression globalAutoAct riskClasses { riskClass approvalRequired autonomyAllowed }
         approvalRules { index entityType action scopeEntity riskClass autonomyLevel } forbiddenActions neverAutoAct { entity reason }
         lifecycleOverrides { lifecycle riskClass autonomy } } }`,
    );
    expect(body.data.about.policyDigest).toBe(shipped.digest);
    const p = body.data.policy;
    expect(p).toMatchObject({
      digest: shipped.digest,
      path: DEFAULT_POLICY_PATH,
      suppression: 'shadow',
      globalAutoAct: 'off',
    });
    expect(p.riskClasses).toEqual([
      { riskClass: 'read_only', approvalRequired: 'none', autonomyAllowed: true },
      { riskClass: 'reversible_low', approvalRequired: 'none', autonomyAllowed: true },
      { riskClass: 'config_mutation', approvalRequired: 'operator', autonomyAllowed: false },
      { riskClass: 'destructive', approvalRequired: 'operator_confirmed', autonomyAllowed: false },
    ]);
    expect(p.approvalRules).toHaveLength(shipped.policy.approval_rules.length);
    expect(p.approvalRules[4]).toEqual({
      index: 4,
      entityType: 'vm',
      action: 'restart',
      scopeEntity: null,
      riskClass: 'reversible_low',
      autonomyLevel: 'auto',
    });
    expect(p.forbiddenActions).toEqual(expect.arrayContaining(['delete_all', 'wipe*', 'rm_rf*']));
    expect(p.neverAutoAct.map((n: any) => n.entity)).toEqual(['service:dns', 'service:reverse-proxy', 'service:sso']);
    expect(p.lifecycleOverrides).toContainEqual({
      lifecycle: 'deprecated',
      riskClass: 'reversible_low',
      autonomy: 'escalate',
    });
  });

  it('is readable by agents and operators, not by the scheduler or ingesters', async () => {
    for (const role of ['scheduler', 'ingester'] as const) {
      const { body } = await srv.gql(srv.tokens[role], '{ policy { digest } }');
      expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'policy:read' });
    }
    expect((await srv.gql(srv.tokens.operator, '{ policy { digest } }')).body.data.policy.digest).toBe(shipped.digest);
  });
});

describe('an agent asks the gate before acting', () => {
  it('before restarting a VM: the default policy escalates (global.auto_act is off), and says why', async () => {
    const d = await ask(srv, { target: `vm:${names.vm}`, action: 'restart' });
    expect(d).toMatchObject({
      riskClass: 'reversible_low',
      autonomy: 'escalate',
      approval: 'operator',
      blocked: false,
      policyDigest: shipped.digest,
      preflight: [],
    });
    expect(d.matchedRule).toEqual({
      index: 4,
      entityType: 'vm',
      action: 'restart',
      scopeEntity: null,
      riskClass: 'reversible_low',
      autonomyLevel: 'auto',
      matchedBy: 'type',
    });
    expect(d.reasons).toEqual([
      'matched approval_rules.4 (vm restart, by type): reversible_low / auto',
      'autonomy_settings.global.auto_act is off: nothing acts on its own until trust is earned (auto → escalate)',
    ]);
    expect(d.target).toEqual({
      id: ids.vm,
      slug: `vm:${names.vm}`,
      name: names.vm,
      kind: 'vm',
      entityType: 'vm',
      lifecycle: 'active',
      inGraph: true,
      notes: [],
      resource: { id: ids.vm },
    });
  });

  it('before restarting a VM under a policy that trusts reversible_low: auto, nobody approves', async () => {
    const d = await ask(trusting, { target: ids.vm, action: 'restart' });
    expect(d).toMatchObject({
      riskClass: 'reversible_low',
      autonomy: 'auto',
      approval: 'none',
      reasons: ['matched approval_rules.4 (vm restart, by type): reversible_low / auto'],
    });
    expect(d.policyDigest).not.toBe(shipped.digest);
    expect((await trusting.gql(trusting.tokens.agent, '{ about { policyDigest } }')).body.data.about.policyDigest).toBe(
      d.policyDigest,
    );
  });

  it("before running apt-get install on a host it declares read_only: config_mutation, escalate, with the classifier's reason", async () => {
    for (const server of [srv, trusting]) {
      const d = await ask(server, {
        target: `host:${names.host}`,
        action: 'run',
        command: 'apt-get install -y nfs-kernel-server',
        declaredRiskClass: 'read_only',
      });
      expect(d).toMatchObject({
        riskClass: 'config_mutation',
        autonomy: 'escalate',
        approval: 'operator',
        blocked: false,
        preflight: [],
      });
      expect(d.matchedRule).toMatchObject({ entityType: 'machine', action: 'run', matchedBy: 'ancestor' });
      expect(d.reasons).toContain(
        'command "apt-get install -y nfs-kernel-server" classified config_mutation (package mutation (apt-get install)), whatever the caller declared (read_only): read_only → config_mutation',
      );
      expect(d.reasons).toContain(
        "risk raised from read_only to config_mutation: the rule's auto no longer applies (auto → escalate)",
      );
    }
  });

  it('before `run` on a VM whose guest agent is not running: a blocking preflight, the message verbatim, nothing queued', async () => {
    const before = await nodeCount();
    const d = await ask(trusting, { target: `vm:${names.noAgent}`, action: 'run', command: 'uptime' });
    const message = `run on vm:${names.noAgent} blocked: QEMU guest agent is not running (qm guest exec unavailable). Start the agent first or use a different target.`;
    expect(message).toBe(guestAgentBlockedMessage(names.noAgent));
    expect(d.preflight).toEqual([{ check: 'qemu_guest_agent', ok: false, blocking: true, message }]);
    expect(d.blocked).toBe(true);
    expect(d.reasons).toContain(`preflight qemu_guest_agent: failed, blocking — ${message}`);
    expect(await nodeCount()).toBe(before);
    // The same question on a VM whose agent runs passes the preflight.
    const ok = await ask(trusting, { target: ids.vm, action: 'run', command: 'uptime' });
    expect(ok).toMatchObject({
      blocked: false,
      autonomy: 'auto',
      preflight: [{ check: 'qemu_guest_agent', ok: true, blocking: false }],
    });
  });

  it('before destroying a VM: destructive, never, and nobody can approve it', async () => {
    for (const server of [srv, trusting]) {
      const d = await ask(server, { target: ids.vm, action: 'destroy' });
      expect(d).toMatchObject({ riskClass: 'destructive', autonomy: 'never', approval: 'not_approvable' });
      expect(d.matchedRule).toMatchObject({ entityType: 'vm', action: 'destroy', autonomyLevel: 'never' });
    }
  });

  it('an action no rule covers: escalate, "no rule"', async () => {
    const d = await ask(trusting, { target: ids.vm, action: 'frobnicate' });
    expect(d).toMatchObject({
      riskClass: 'config_mutation',
      autonomy: 'escalate',
      approval: 'operator',
      matchedRule: null,
    });
    expect(d.reasons[0]).toBe(
      `no rule: nothing covers "frobnicate" on vm:${names.vm} (searched vm → machine → entity) — fails closed: escalate as config_mutation`,
    );
  });

  it('a forbidden action name: never, not approvable, whatever the policy trusts', async () => {
    const d = await ask(trusting, { target: ids.vm, action: 'wipe_disks' });
    expect(d).toMatchObject({
      riskClass: 'destructive',
      autonomy: 'never',
      approval: 'not_approvable',
      matchedRule: null,
    });
    expect(d.reasons).toEqual([
      'action "wipe_disks" matches forbidden pattern wipe*: refused, and no one can approve it',
    ]);
  });

  it('elevates by parameters and by the number of targets', async () => {
    const big = await ask(trusting, { target: ids.vm, action: 'restart', params: { force: true } });
    expect(big).toMatchObject({ riskClass: 'destructive', autonomy: 'escalate', approval: 'operator_confirmed' });
    const bulk = await ask(trusting, {
      target: ids.vm,
      action: 'restart',
      targets: [ids.vm, ids.noAgent, ids.old, ids.host],
    });
    expect(bulk).toMatchObject({ riskClass: 'config_mutation', autonomy: 'escalate' });
    expect(bulk.reasons).toContain('elevated: 4 targets exceed 3: reversible_low → config_mutation');
  });

  it('about entities outside the graph, named <entity-type>:<name>', async () => {
    const dns = await ask(srv, { target: 'dns-record:example.com', action: 'change' });
    expect(dns).toMatchObject({
      riskClass: 'config_mutation',
      autonomy: 'escalate',
      matchedRule: { entityType: 'dns-record', action: 'change', matchedBy: 'type' },
    });
    expect(dns.target).toEqual({
      id: 'dns-record:example.com',
      slug: 'dns-record:example.com',
      name: 'example.com',
      kind: null,
      entityType: 'dns-record',
      lifecycle: 'active',
      inGraph: false,
      notes: [],
      resource: null,
    });
    const secret = await ask(trusting, { target: 'secret:vault-root', action: 'rotate' });
    expect(secret).toMatchObject({ riskClass: 'destructive', autonomy: 'never', approval: 'not_approvable' });
  });

  it("reads a finer type from the entity_type attribute only within the kind's branch", async () => {
    const nginx = await ask(trusting, { target: ids.nginx, action: 'restart' });
    expect(nginx.target).toMatchObject({ kind: 'service', entityType: 'docker-container', notes: [] });
    expect(nginx.matchedRule).toMatchObject({ entityType: 'docker-container', matchedBy: 'type' });
    const odd = await ask(trusting, { target: ids.odd, action: 'rotate' });
    expect(odd.target).toMatchObject({
      entityType: 'service',
      notes: ['attribute entity_type="secret" ignored: not service or a type below it; the gate used service'],
    });
    expect(odd.reasons[0]).toMatch(/^no rule: nothing covers "rotate" on service:/);
  });
});

describe('bad questions are refused with the field and the reason', () => {
  it.each([
    [
      { target: 'manual:service/nope-zzz', action: 'restart' },
      'input.target',
      /^input\.target: no resource manual:service\/nope-zzz$/,
    ],
    [
      { target: 'vm:no-such-vm-zzz', action: 'restart' },
      'input.target',
      /^input\.target: no resource vm:no-such-vm-zzz$/,
    ],
    [
      { target: 'toaster:x', action: 'restart' },
      'input.target',
      /must be a resource id .*kind:name slug.*<entity-type>:<name>/,
    ],
    [{ target: 'machine:x', action: 'restart' }, 'input.target', /machine groups other types/],
    [{ target: ids.vm, action: 'rm -rf' }, 'input.action', /must be an action name/],
    [{ target: ids.vm, action: 'restart', params: [1, 2] }, 'input.params', /must be a JSON object/],
  ])('%j → BAD_USER_INPUT %s', async (input, field, message) => {
    const { body } = await srv.gql(srv.tokens.agent, CLASSIFY, { input });
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(body.errors[0].message).toMatch(message);
  });

  it('is a permission of agents and operators only', async () => {
    const { body } = await srv.gql(srv.tokens.scheduler, CLASSIFY, { input: { target: ids.vm, action: 'restart' } });
    expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'policy:classify' });
  });
});

describe('every classification is in the audit log', () => {
  it('records answered questions with the decision and digest, and refused ones with the reason', async () => {
    await ask(srv, {
      target: `host:${names.host}`,
      action: 'run',
      command: 'apt-get install -y nfs-kernel-server',
      declaredRiskClass: 'read_only',
    });
    await srv.gql(srv.tokens.agent, CLASSIFY, { input: { target: `vm:missing-${scope}`, action: 'restart' } });
    const read = async (targetId: string) =>
      (
        await srv.gql(
          srv.tokens.operator,
          `{ auditLog(filter: {operation: "classifyAction", targetId: "${targetId}"}, first: 10) { nodes { principal role outcome detail targetIds } } }`,
        )
      ).body.data.auditLog.nodes as any[];
    const [entry] = await read(ids.host);
    expect(entry).toEqual({
      principal: 'test-agent',
      role: 'agent',
      outcome: 'ok',
      targetIds: [ids.host],
      detail: `run "apt-get install -y nfs-kernel-server": config_mutation / escalate / approval operator (approval_rules.14); facts: state online, active; policy ${shipped.digest}`,
    });
    const [refused] = await read(`vm:missing-${scope}`);
    expect(refused).toMatchObject({
      outcome: 'refused',
      detail: `BAD_USER_INPUT: input.target: no resource vm:missing-${scope}`,
    });
  });
});

describe('lifecycle refusals', () => {
  const SET =
    'mutation($id: ID!, $l: Lifecycle!, $r: String!) { setLifecycle(id: $id, lifecycle: $l, reason: $r) { previous changed resource { id lifecycle } } }';

  it('only operators set a lifecycle; missing is never set by hand; a reason is required', async () => {
    const agent = await srv.gql(srv.tokens.agent, SET, { id: ids.old, l: 'destroyed', r: 'gone' });
    expect(agent.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'resource:lifecycle' });
    const missing = await srv.gql(srv.tokens.operator, SET, { id: ids.old, l: 'missing', r: 'not seen' });
    expect(missing.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^lifecycle: missing is set by ingest/),
      extensions: { code: 'BAD_USER_INPUT', field: 'lifecycle' },
    });
    const blank = await srv.gql(srv.tokens.operator, SET, { id: ids.old, l: 'destroyed', r: '  ' });
    expect(blank.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'reason' });
    const unknown = await srv.gql(srv.tokens.operator, SET, {
      id: `manual:service/${scope}-nope`,
      l: 'destroyed',
      r: 'x',
    });
    expect(unknown.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN r.lifecycle AS l', {
      id: ids.old,
    });
    expect(records[0]!.get('l')).toBe('active');
  });

  it('a destroyed target refuses every action', async () => {
    const set = await srv.gql(srv.tokens.operator, SET, {
      id: `vm:${names.old}`,
      l: 'destroyed',
      r: 'decommissioned in change 42',
    });
    expect(set.body.data.setLifecycle).toEqual({
      previous: 'active',
      changed: true,
      resource: { id: ids.old, lifecycle: 'destroyed' },
    });
    const again = await srv.gql(srv.tokens.operator, SET, { id: ids.old, l: 'destroyed', r: 'again' });
    expect(again.body.data.setLifecycle).toMatchObject({ previous: 'destroyed', changed: false });
    const { records } = await driver.executeQuery(
      'MATCH (r:Resource {id: $id}) RETURN r.lifecycleReason AS why, r.lifecycleSetBy AS by',
      { id: ids.old },
    );
    expect([records[0]!.get('why'), records[0]!.get('by')]).toEqual(['decommissioned in change 42', 'test-operator']);
    for (const action of ['restart', 'unmonitored', 'backup-stale']) {
      const d = await ask(trusting, { target: ids.old, action });
      expect(d).toMatchObject({ autonomy: 'never', approval: 'not_approvable', target: { lifecycle: 'destroyed' } });
      expect(d.reasons).toContain(`vm:${names.old} is destroyed: every action is refused (auto → never)`);
    }
  });

  it('a deprecated resource refuses new inbound dependency edges, nothing written; MANIFESTS_AS is not a dependency', async () => {
    const set = await srv.gql(srv.tokens.operator, SET, { id: ids.legacy, l: 'deprecated', r: 'replaced by app' });
    expect(set.body.data.setLifecycle).toMatchObject({ previous: 'active', changed: true });
    const before = await edgeCount();
    const create = `mutation($s: ID!, $t: ID!) { createRelationship(input: {source: $s, target: $t, type: DEPENDS_ON}) { created } }`;
    const { body } = await srv.gql(srv.tokens.agent, create, { s: ids.web, t: `service:${scope}-legacy` });
    expect(body.errors[0]).toMatchObject({
      message: `input.target: service:${scope}-legacy is deprecated: new dependencies on it are refused (existing ones stay)`,
      extensions: { code: 'BAD_USER_INPUT', field: 'input.target' },
    });
    expect(body.data).toBeNull();
    expect(await edgeCount()).toBe(before);
    // Every dependency type is refused, also to a destroyed target.
    const runsOn = await srv.gql(
      srv.tokens.agent,
      `mutation { createRelationship(input: {source: "${ids.web}", target: "${ids.old}", type: RUNS_ON}) { created } }`,
    );
    expect(runsOn.body.errors[0]).toMatchObject({
      message: `input.target: vm:${names.old} is destroyed: nothing may depend on it`,
      extensions: { field: 'input.target' },
    });
    expect(await edgeCount()).toBe(before);
    // An active target is still fine, and identity is not a dependency (an operator declares it).
    const ok = await srv.gql(srv.tokens.agent, create, { s: ids.web, t: ids.app });
    expect(ok.body.data.createRelationship.created).toBe(true);
    const same = await srv.gql(
      srv.tokens.operator,
      `mutation { createRelationship(input: {source: "${ids.nginx}", target: "${ids.legacy}", type: MANIFESTS_AS}) { created } }`,
    );
    expect(same.body.data.createRelationship.created).toBe(true);
    // A deprecated restart under trust escalates (lifecycle_override.deprecated).
    const d = await ask(trusting, { target: ids.legacy, action: 'restart' });
    expect(d).toMatchObject({ autonomy: 'escalate', target: { lifecycle: 'deprecated' } });
    expect(d.reasons).toContain('lifecycle_override.deprecated.reversible_low: at most escalate (auto → escalate)');
  });

  it('records lifecycle changes in the audit log', async () => {
    const { body } = await srv.gql(
      srv.tokens.operator,
      `{ auditLog(filter: {operation: "setLifecycle", targetId: "${ids.legacy}"}) { nodes { principal outcome } } }`,
    );
    expect(body.data.auditLog.nodes).toEqual([{ principal: 'test-operator', outcome: 'ok' }]);
  });
});
