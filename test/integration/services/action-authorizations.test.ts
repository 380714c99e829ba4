import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchAuthorization } from '../../../correlator/authorization.js';
import { attribute, TRANSITION_TABLE } from '../../../correlator/index.js';
import { readActionAuthorizations } from '../../../src/graph/action-authorizations.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { transformProxmoxTask } from '../../../src/ingest/proxmox/tasks-transform.js';
import type { ActorMappingEntry } from '../../../src/model/index.js';
import { DEFAULT_POLICY_PATH, parsePolicy } from '../../../src/policy/index.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { reportActionTaken } from '../../../src/services/actions.js';
import { approve, requestApproval } from '../../../src/services/approvals.js';
import { redeemGrant } from '../../../src/services/grants.js';
import { useGraph } from '../../support/graph.js';
import { principalOf, serviceDeps } from '../../support/services.js';

/*
 * The ActionAuthorized entries the correlator credits changes to, as redeemGrant and
 * reportActionTaken store them (with the provider task the executor named) and as the read returns
 * them with the approval behind each grant — and the matcher crediting a task to its grant.
 */

const { driver, scope } = useGraph();
const shipped = await loadStartupPolicy(undefined);
const deps = serviceDeps(driver, shipped);
// The shipped policy acts on nothing on its own; an auto report needs auto_act on.
const doc = parse(readFileSync(DEFAULT_POLICY_PATH, 'utf8'));
doc.autonomy_settings.global.auto_act = 'reversible_low';
const autoPolicy = parsePolicy(stringify(doc));
if (!autoPolicy.ok) throw new Error(JSON.stringify(autoPolicy.errors));
const autoDeps = serviceDeps(driver, { policy: autoPolicy.policy, digest: autoPolicy.digest, path: '/test/auto.yaml' });
const web = `proxmox:${scope}/qemu/101`;
const db = `proxmox:${scope}/qemu/102`;
const restart = { target: web, action: 'restart' };
const agent = principalOf(scope, 'agent');
const operator = principalOf(scope, 'operator');

const hex8 = (n: number) => Math.trunc(n).toString(16).toUpperCase().padStart(8, '0');
let pid = 0x3000;
/** A UPID of a task on VMID `vmid` started now by the agent's Proxmox token. */
const upid = (type: string, vmid: string) =>
  `UPID:pve1:${hex8(pid++)}:0123ABCD:${hex8(Date.now() / 1000)}:${type}:${vmid}:rhodes@pve!ops:`;

beforeAll(async () => {
  await upsertResources(driver, [
    { id: web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running', lifecycle: 'active' },
    { id: db, kind: 'vm', provider: 'proxmox', name: `db-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
});

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval OR n:ActionAuthorized OR n:GrantRedeem) AND (n.targetId CONTAINS $scope OR n.approvalId IS NOT NULL AND n.principal CONTAINS $scope)
        OR n:Decision AND n.principal CONTAINS $scope DETACH DELETE n`,
    { scope },
  );
});

async function granted() {
  const [asked] = await requestApproval(deps, agent, { ...restart, reason: 'web is wedged' });
  const { grants } = await approve(deps, operator, { id: asked!.id });
  return { approval: asked!, token: grants[0]!.token };
}

const around = () => ({
  since: DateTime.utc().minus({ minutes: 10 }).toISO(),
  until: DateTime.utc().plus({ minutes: 10 }).toISO(),
});

describe('redeemGrant and reportActionTaken with the provider task', () => {
  it('refuses a task reference that is malformed or does not fit the target, naming providerTaskId, and uses nothing up', async () => {
    const { token } = await granted();
    for (const [providerTaskId, reason] of [
      ['UPID:pve1:zz:', /providerTaskId: invalid UPID/],
      [upid('qmreboot', '555'), /providerTaskId: the task is on VMID 555, not on the target's \(101\)/],
      ['task-42', /providerTaskId: a task key names a vCenter task/],
      ['reboot-please', /providerTaskId: must be a Proxmox UPID .* or a vCenter task key/],
      ['', /providerTaskId: must be a non-empty string/],
    ] as const) {
      await expect(redeemGrant(deps, agent, { token, input: restart, providerTaskId })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'providerTaskId',
        message: expect.stringMatching(reason),
      });
    }
    // Nothing was used up: the grant still redeems.
    const ok = await redeemGrant(deps, agent, { token, input: restart });
    expect(ok.authorized).toBe(true);
  });

  it('keeps the UPID on the grant’s authorization; the read returns it with who asked and who approved', async () => {
    const { approval, token } = await granted();
    const task = upid('qmreboot', '101');
    const redeemed = await redeemGrant(deps, agent, { token, input: restart, providerTaskId: task });
    const { since, until } = around();
    const read = await readActionAuthorizations(driver, [web], since, until);
    expect(read.find((x) => x.id === redeemed.authorizationId)).toEqual({
      id: redeemed.authorizationId,
      source: 'grant',
      action: 'restart',
      targetId: web,
      principal: agent.name,
      at: expect.stringMatching(/Z$/),
      approvalId: approval.id,
      requestedBy: agent.name,
      approvedBy: operator.name,
      approvedAt: expect.stringMatching(/Z$/),
      providerTaskId: task,
    });
    // Another target's entries and another window are not read.
    expect(await readActionAuthorizations(driver, [db], since, until)).toEqual([]);
    const later = DateTime.utc().plus({ hours: 1 });
    expect(await readActionAuthorizations(driver, [web], later.toISO(), later.plus({ hours: 1 }).toISO())).toEqual([]);
  });

  it('keeps the UPID on a reported auto action; requested by the executor, approved by nobody', async () => {
    const task = upid('qmreboot', '102');
    await expect(
      reportActionTaken(autoDeps, agent, { target: db, action: 'restart' }, { providerTaskId: 'task-7' }),
    ).rejects.toMatchObject({ field: 'providerTaskId' });
    const auto = await reportActionTaken(autoDeps, agent, { target: db, action: 'restart' }, { providerTaskId: task });
    expect(auto).toMatchObject({ source: 'auto', providerTaskId: task });
    const { since, until } = around();
    expect(await readActionAuthorizations(driver, [db], since, until)).toEqual([
      expect.objectContaining({
        id: auto.id,
        source: 'auto',
        requestedBy: agent.name,
        approvedBy: null,
        approvedAt: null,
        approvalId: null,
        providerTaskId: task,
      }),
    ]);
  });

  it('the matcher credits the named task to its grant, from what the graph holds', async () => {
    const { token } = await granted();
    const task = upid('qmreboot', '101');
    const redeemed = await redeemGrant(deps, agent, { token, input: restart, providerTaskId: task });
    const event = transformProxmoxTask(
      { upid: task, status: 'OK', endtime: Math.trunc(Date.now() / 1000) + 1 },
      {
        cluster: scope,
      },
    );
    if (!event.ok) throw new Error(event.reason);
    const transition = {
      resourceId: web,
      kind: 'vm' as const,
      from: 'running',
      to: 'stopped',
      observedAt: DateTime.utc().plus({ seconds: 3 }).toISO(),
    };
    const attribution = attribute(transition, [event.event], TRANSITION_TABLE);
    expect(attribution.confidence).toBe('high');
    const actors: ActorMappingEntry[] = [
      { provider: 'proxmox', user: 'rhodes@pve!ops', principal: agent.name, role: 'agent' },
    ];
    const { since, until } = around();
    const authorizations = await readActionAuthorizations(driver, [web], since, until);
    expect(authorizations.length).toBeGreaterThan(1);
    const v = matchAuthorization({ transition, attribution }, { actors, authorizations });
    expect(v).toMatchObject({
      verdict: 'authorized',
      authorization: { grantId: redeemed.authorizationId, matchedBy: 'task_id', approvedBy: operator.name },
    });
  });
});
