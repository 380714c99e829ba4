import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { resolveManifestsAs } from '../../src/ingest/identity/manifests-as.js';
import { guestAgentBlockedMessage } from '../../src/policy/index.js';
import { addToken } from '../../src/services/token-store.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/*
 * No authority from agent-written facts (issue 14, item 8), over HTTP: the keys a provider can
 * report are refused to an agent even where the last pass did not report them (every vCenter VM
 * and qemu_guest_agent); placements between provider resources are refused, an operator's
 * MANIFESTS_AS is accepted; and values planted as agent-written data (a database from before the
 * rule) neither pass the `run` preflight nor make the identity resolver infer MANIFESTS_AS.
 */
const { driver, scope } = useGraph();
let srv: TestServer;

const pve = `proxmox:${scope}`;
const vc = `vcenter:vc-${scope}`;
const ids = {
  cluster: `${pve}/cluster`,
  pve1: `${pve}/node/pve1`,
  pve2: `${pve}/node/pve2`,
  /** A Proxmox VM whose agent the provider saw running: the preflight's control case. */
  web: `${pve}/qemu/101`,
  /** A Proxmox VM whose last pass carried no qemu_guest_agent, lock or hastate. */
  db: `${pve}/qemu/102`,
  /** A vCenter VM: vCenter never reports qemu_guest_agent, serial_number, lock or hastate. */
  app: `${vc}/vm/vm-7`,
  esx: `${vc}/host/host-9`,
};
const names = { web: `web01-${scope}`, db: `db01-${scope}`, app: `app01-${scope}`, esx: `esx01-${scope}` };
const SERIAL = `PVE-${scope}-0001`;
const MAC = 'bc:24:11:aa:bb:01';
const UUID = '4c4c4544-0042-4d10-8051-b3c04f4e3132';

const CLASSIFY = `query($input: ClassifyActionInput!) { classifyAction(input: $input) {
  blocked preflight { check ok blocking message } } }`;
const UPDATE = `mutation($id: ID!, $a: JSON!) { updateEntityAttributes(id: $id, attributes: $a) {
  message ignored { key reason } resource { attributes } } }`;
const CREATE = `mutation($s: ID!, $t: ID!, $ty: RelationshipType!) {
  createRelationship(input: {source: $s, target: $t, type: $ty}) {
    created relationship { type fromId toId provenance source } } }`;
const RELATIONS = `query($id: ID!) { relations(id: $id) { type fromId toId provenance source rule } }`;

async function gqlOk(token: string, query: string, variables: Record<string, unknown>) {
  const { status, body } = await srv.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

/** Every edge touching the file's resources, as `from -TYPE(provenance)-> to`. */
async function edges(): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (a:Resource)-[e]->(b:Resource) WHERE a.id CONTAINS $s OR b.id CONTAINS $s
     RETURN a.id + ' -' + type(e) + '(' + e.provenance + ')-> ' + b.id AS edge ORDER BY edge`,
    { s: scope },
  );
  return records.map((r) => r.get('edge') as string);
}

async function storedAttributes(id: string): Promise<Record<string, unknown>> {
  const data = await gqlOk(srv.tokens.agent, 'query($id: ID!) { resource(id: $id) { attributes } }', { id });
  return data.resource.attributes;
}

beforeAll(async () => {
  srv = await startTestServer(driver);
  // What the providers reported in their last passes (the ingest writes these).
  await upsertResources(driver, [
    { id: ids.cluster, kind: 'cluster', provider: 'proxmox', name: `lab-${scope}`, state: 'online' },
    {
      id: ids.pve1,
      kind: 'host',
      provider: 'proxmox',
      name: `pve1-${scope}`,
      state: 'online',
      attributes: { node: 'pve1' },
    },
    {
      id: ids.pve2,
      kind: 'host',
      provider: 'proxmox',
      name: `pve2-${scope}`,
      state: 'online',
      attributes: { node: 'pve2' },
    },
    {
      id: ids.web,
      kind: 'vm',
      provider: 'proxmox',
      name: names.web,
      state: 'running',
      attributes: { vmid: 101, node: 'pve1', qemu_guest_agent: 'running' },
    },
    {
      id: ids.db,
      kind: 'vm',
      provider: 'proxmox',
      name: names.db,
      state: 'running',
      attributes: { vmid: 102, node: 'pve1', serial_number: SERIAL, mac_addresses: [MAC], smbios_uuid: UUID },
    },
    {
      id: ids.app,
      kind: 'vm',
      provider: 'vcenter',
      name: names.app,
      state: 'running',
      attributes: { moref: 'vm-7', guest_id: 'debian12_64Guest' },
    },
    {
      id: ids.esx,
      kind: 'host',
      provider: 'vcenter',
      name: names.esx,
      state: 'online',
      attributes: { moref: 'host-9' },
    },
  ]);
});

afterAll(async () => {
  await srv?.close();
});

describe('an agent cannot write what a provider observes', () => {
  const forged = {
    qemu_guest_agent: 'running',
    serial_number: SERIAL,
    lock: 'backup',
    hastate: 'started',
    owner: 'team-a',
  };

  it.each([
    ['a vCenter VM (its provider never reports these keys)', () => ids.app, 'vcenter'],
    ['a Proxmox VM whose last pass did not report them', () => ids.db, 'proxmox'],
  ])('on %s: qemu_guest_agent, serial_number, lock and hastate are ignored with reasons', async (_, id, provider) => {
    const before = await storedAttributes(id());
    const data = await gqlOk(srv.tokens.agent, UPDATE, { id: id(), a: forged });
    const { ignored, message, resource } = data.updateEntityAttributes;
    expect(message).toBe('1 attribute(s) written; 4 ignored (see ignored).');
    expect(ignored.map((i: { key: string }) => i.key)).toEqual([
      'qemu_guest_agent',
      'serial_number',
      'lock',
      'hastate',
    ]);
    for (const { key, reason } of ignored) {
      expect(reason).toMatch(new RegExp(`^${key} is an observation the proxmox provider reports for a vm`));
      expect(reason).toMatch(/an agent cannot write it/);
      if (provider === 'vcenter') expect(reason).toMatch(/on a vcenter vm either/);
      else expect(reason).toMatch(/whether or not its last pass reported it/);
    }
    expect(resource.attributes).toEqual({ ...before, owner: 'team-a' });
  });

  it('the ownership holds for any key a provider can report for the kind (vCenter VM smbios_uuid, Proxmox guest tags)', async () => {
    const data = await gqlOk(srv.tokens.agent, UPDATE, { id: ids.web, a: { smbios_uuid: UUID, tags: ['x'] } });
    expect(data.updateEntityAttributes.ignored).toEqual([
      {
        key: 'smbios_uuid',
        reason: expect.stringMatching(/^smbios_uuid is an observation the proxmox provider reports for a vm/),
      },
      { key: 'tags', reason: expect.stringMatching(/^tags is an observation the proxmox provider reports for a vm/) },
    ]);
  });
});

describe('between provider resources an agent declares DEPENDS_ON only', () => {
  it.each([
    [
      'RUNS_ON',
      () => ids.web,
      () => ids.pve2,
      /^input\.type: RUNS_ON from proxmox:.*\/qemu\/101 is observed by its proxmox provider, never declared/,
    ],
    [
      'RUNS_ON',
      () => ids.app,
      () => ids.esx,
      /^input\.type: RUNS_ON from vcenter:.*\/vm\/vm-7 is observed by its vcenter provider, never declared/,
    ],
    [
      'MEMBER_OF',
      () => ids.pve2,
      () => ids.cluster,
      /^input\.type: MEMBER_OF from proxmox:.*\/node\/pve2 is observed by its proxmox provider, never declared/,
    ],
    [
      'MANIFESTS_AS',
      () => ids.esx,
      () => ids.db,
      /^input\.type: MANIFESTS_AS is observed by a provider or inferred by the identity resolver.*only an operator may declare one/,
    ],
  ])('an agent %s is refused with the reason, nothing written', async (type, s, t, message) => {
    const before = await edges();
    const { body } = await srv.gql(srv.tokens.agent, CREATE, { s: s(), t: t(), ty: type });
    expect(body.data).toBeNull();
    expect(body.errors[0]).toMatchObject({
      message: expect.stringMatching(message),
      extensions: { code: 'BAD_USER_INPUT', field: 'input.type' },
    });
    expect(await edges()).toEqual(before);
  });

  it('an agent DEPENDS_ON between provider resources is accepted', async () => {
    const data = await gqlOk(srv.tokens.agent, CREATE, { s: ids.app, t: ids.db, ty: 'DEPENDS_ON' });
    expect(data.createRelationship).toMatchObject({
      created: true,
      relationship: { type: 'DEPENDS_ON', provenance: 'declared' },
    });
  });

  it("an operator's MANIFESTS_AS is accepted, marked declared", async () => {
    const data = await gqlOk(srv.tokens.operator, CREATE, { s: ids.esx, t: ids.web, ty: 'MANIFESTS_AS' });
    expect(data.createRelationship).toEqual({
      created: true,
      relationship: {
        type: 'MANIFESTS_AS',
        fromId: ids.esx,
        toId: ids.web,
        provenance: 'declared',
        source: 'test-operator',
      },
    });
  });

  it('an agent places a manual resource it declared itself (RUNS_ON a VM, declared); another agent cannot', async () => {
    const declared = await gqlOk(
      srv.tokens.agent,
      `mutation($i: DeclareResourceInput!) { declareResource(input: $i) { resource { id } relationship { type provenance toId } } }`,
      { i: { kind: 'service', name: `pg-${scope}`, runsOn: ids.db, evidence: 'ss -tlnp: postgres :5432' } },
    );
    expect(declared.declareResource.relationship).toEqual({ type: 'RUNS_ON', provenance: 'declared', toId: ids.db });
    const own = declared.declareResource.resource.id as string;
    const again = await gqlOk(srv.tokens.agent, CREATE, { s: own, t: ids.web, ty: 'RUNS_ON' });
    expect(again.createRelationship).toMatchObject({ created: true, relationship: { provenance: 'declared' } });
    const other = addToken(srv.tokensFile, 'other-agent', 'agent');
    const before = await edges();
    // The server re-reads the tokens file at most every 500 ms: ask until the new token is known.
    let { body } = await srv.gql(other, CREATE, { s: own, t: ids.pve2, ty: 'RUNS_ON' });
    for (let i = 0; i < 50 && body.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ({ body } = await srv.gql(other, CREATE, { s: own, t: ids.pve2, ty: 'RUNS_ON' }));
    }
    expect(body.errors[0]).toMatchObject({
      message: `input.source: ${own} was declared by test-agent: only its declarer or an operator may declare its RUNS_ON`,
      extensions: { code: 'BAD_USER_INPUT', field: 'input.source' },
    });
    expect(await edges()).toEqual(before);
  });
});

describe('values planted as agent-written data (a database from before) carry no authority', () => {
  beforeAll(async () => {
    // Written past the API, as an agent could before the rule: attr.* set, providerAttrKeys untouched.
    await driver.executeQuery(`UNWIND $rows AS row MATCH (r:Resource {id: row.id}) SET r += row.props`, {
      rows: [
        { id: ids.db, props: { 'attr.qemu_guest_agent': 'running', 'attr.lock': 'backup', 'attr.hastate': 'started' } },
        {
          id: ids.app,
          props: { 'attr.qemu_guest_agent': 'running', 'attr.serial_number': SERIAL, 'attr.mac_addresses': [MAC] },
        },
        { id: ids.esx, props: { 'attr.serial_number': SERIAL, 'attr.smbios_uuid': UUID } },
      ],
    });
    const stored = await storedAttributes(ids.app);
    expect(stored).toMatchObject({ qemu_guest_agent: 'running', serial_number: SERIAL });
  });

  it.each([
    ['the Proxmox VM', () => names.db],
    ['the vCenter VM', () => names.app],
  ])('run on %s: the preflight still refuses (an agent-written qemu_guest_agent is no evidence)', async (_, name) => {
    const data = await gqlOk(srv.tokens.agent, CLASSIFY, {
      input: { target: `vm:${name()}`, action: 'run', command: 'uptime' },
    });
    expect(data.classifyAction.blocked).toBe(true);
    expect(data.classifyAction.preflight).toEqual([
      { check: 'qemu_guest_agent', ok: false, blocking: true, message: guestAgentBlockedMessage(name()) },
    ]);
  });

  it('run on the VM whose provider saw the agent running passes the preflight (the control)', async () => {
    const data = await gqlOk(srv.tokens.agent, CLASSIFY, {
      input: { target: `vm:${names.web}`, action: 'run', command: 'uptime' },
    });
    expect(data.classifyAction.preflight).toEqual([
      {
        check: 'qemu_guest_agent',
        ok: true,
        blocking: false,
        message: `QEMU guest agent on vm:${names.web} is running`,
      },
    ]);
  });

  it('the identity resolver infers no MANIFESTS_AS from the planted serial, MAC or UUID; a provider-written match still counts', async () => {
    const prefixes = [`${pve}/`, `${vc}/`];
    const run = await resolveManifestsAs(driver, { idPrefixes: prefixes });
    expect(run.matches.filter((m) => [m.fromId, m.toId].includes(ids.db))).toEqual([]);
    const relations = await gqlOk(srv.tokens.agent, RELATIONS, { id: ids.db });
    expect(relations.relations.filter((e: { type: string }) => e.type === 'MANIFESTS_AS')).toEqual([]);
    // The same value written by the vCenter ingest is evidence: the resolver matches on it.
    await upsertResources(driver, [
      {
        id: ids.esx,
        kind: 'host',
        provider: 'vcenter',
        name: names.esx,
        state: 'online',
        attributes: { moref: 'host-9', serial_number: SERIAL },
      },
    ]);
    const after = await resolveManifestsAs(driver, { idPrefixes: prefixes });
    expect(after.matches).toEqual([
      expect.objectContaining({
        fromId: ids.esx,
        toId: ids.db,
        rule: 'serial',
        confidence: 'high',
        evidence: `serial=${SERIAL.toLowerCase()}`,
      }),
    ]);
  });
});
