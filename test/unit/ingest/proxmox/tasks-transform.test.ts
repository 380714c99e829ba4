import { describe, expect, it } from 'vitest';
import { classifyTaskStatus, transformProxmoxTask } from '../../../../src/ingest/proxmox/tasks-transform.js';
import { fixtureFiles, readFixture } from '../../../support/fixtures.js';

const opts = { cluster: 'lab' };

/** A finished `/nodes/{node}/tasks?source=all` entry (token split off, as Proxmox sends it). */
const finished = {
  upid: 'UPID:pve1:0023493E:07C9E5B2:684A99B8:qmstop:103:root@pam!automation:',
  node: 'pve1',
  pid: 2312510,
  pstart: 130672050,
  starttime: 1749719480,
  endtime: 1749719482,
  type: 'qmstop',
  id: '103',
  user: 'root@pam',
  tokenid: 'automation',
  status: 'OK',
};

describe('transformProxmoxTask: a finished list entry', () => {
  it('normalises ids, actor, times and status', () => {
    const r = transformProxmoxTask(finished, opts);
    expect(r).toEqual({
      ok: true,
      event: {
        id: finished.upid,
        provider: 'proxmox',
        resourceId: 'proxmox:lab/qemu/103',
        resourceKind: 'vm',
        objectId: '103',
        hostId: 'proxmox:lab/node/pve1',
        node: 'pve1',
        sourceNode: null,
        type: 'vm_stop',
        rawType: 'qmstop',
        actor: 'root@pam!automation',
        actorKind: 'api_token',
        tokenId: 'automation',
        startedAt: '2025-06-12T09:11:20Z',
        endedAt: '2025-06-12T09:11:22Z',
        statusClass: 'ok',
        statusText: 'OK',
        chainId: null,
        message: null,
        pid: 2312510,
        pstart: 130672050,
      },
    });
  });
});

describe('transformProxmoxTask: status classes', () => {
  it.each([
    [{ status: 'OK' }, 'ok', 'OK', '2025-06-12T09:11:22Z'],
    [{ status: 'WARNINGS: 3' }, 'warning', 'WARNINGS: 3', '2025-06-12T09:11:22Z'],
    [{ status: 'unexpected status' }, 'unknown', 'unexpected status', '2025-06-12T09:11:22Z'],
    [
      { status: 'VM quit/powerdown failed - got timeout' },
      'error',
      'VM quit/powerdown failed - got timeout',
      '2025-06-12T09:11:22Z',
    ],
    [{ status: 'VM 103 already running' }, 'error', 'VM 103 already running', '2025-06-12T09:11:22Z'],
    [{ status: 'RUNNING', endtime: undefined }, 'running', null, null],
    [{ status: undefined, endtime: undefined }, 'running', null, null],
    [{ status: undefined }, 'unknown', null, '2025-06-12T09:11:22Z'],
  ])('%j → %s', (patch, statusClass, statusText, endedAt) => {
    const r = transformProxmoxTask({ ...finished, ...patch }, opts);
    expect(r.ok).toBe(true);
    if (r.ok)
      expect([r.event.statusClass, r.event.statusText, r.event.endedAt]).toEqual([statusClass, statusText, endedAt]);
  });

  it.each([
    ['OK', 'ok'],
    ['WARNINGS: 12', 'warning'],
    ['WARNINGS: x', 'error'],
    ['unexpected status', 'unknown'],
    ['start failed: QEMU exited with code 1', 'error'],
  ])('classifyTaskStatus(%s) → %s', (text, cls) => {
    expect(classifyTaskStatus(text)).toBe(cls);
  });
});

describe('transformProxmoxTask: API tokens in both spellings', () => {
  it('a running entry carries user!tokenid unsplit', () => {
    const { tokenid: _t, endtime: _e, ...rest } = finished;
    const r = transformProxmoxTask({ ...rest, user: 'root@pam!automation', status: 'RUNNING' }, opts);
    expect(r.ok && [r.event.actor, r.event.actorKind, r.event.tokenId, r.event.statusClass]).toEqual([
      'root@pam!automation',
      'api_token',
      'automation',
      'running',
    ]);
  });

  it("a plain user is human, root@pam included (HA crediting is the correlator's job)", () => {
    const r = transformProxmoxTask(
      { upid: 'UPID:pve1:0000EA7F:000A9C68:695FF63E:qmstop:200:root@pam:', status: 'OK', endtime: 1767896640 },
      opts,
    );
    expect(r.ok && [r.event.actor, r.event.actorKind, r.event.tokenId]).toEqual(['root@pam', 'human', null]);
  });
});

describe('transformProxmoxTask: resources', () => {
  const upid = (type: string, id: string) => `UPID:pve2:000A1B2C:0123ABCD:65F0A1B2:${type}:${id}:alice@pve:`;
  const lookup = (vmid: string) => (vmid === '200' ? 'lxc' : vmid === '101' ? 'qemu' : null);
  it.each([
    ['vzstart', '200', undefined, 'proxmox:lab/lxc/200', 'lxc'],
    ['hastart', '200', lookup, 'proxmox:lab/lxc/200', 'lxc'],
    ['hastop', '101', lookup, 'proxmox:lab/qemu/101', 'vm'],
    ['hastart', '200', undefined, null, null],
    ['hastart', '999', lookup, null, null],
    ['vzdump', '101', lookup, 'proxmox:lab/qemu/101', 'vm'],
    ['vzdump', '', lookup, null, null],
    ['startall', '', lookup, null, null],
    ['qmmove', '100-scsi0>101-scsi1', lookup, null, null],
    ['vncproxy', '101', lookup, 'proxmox:lab/qemu/101', 'vm'],
    ['qmstop', '101', () => 'lxc' as const, 'proxmox:lab/qemu/101', 'vm'],
  ])('%s id=%s → %s', (type, id, guestKindOf, resourceId, resourceKind) => {
    const r = transformProxmoxTask(
      { upid: upid(type, id), status: 'OK', endtime: 1710268900 },
      { cluster: 'lab', guestKindOf },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([r.event.resourceId, r.event.resourceKind]).toEqual([resourceId, resourceKind]);
    expect(r.event.hostId).toBe('proxmox:lab/node/pve2');
    expect(r.event.objectId).toBe(id === '' ? null : id);
  });

  it('the cluster name scopes the id', () => {
    const r = transformProxmoxTask(finished, { cluster: 'other' });
    expect(r.ok && r.event.resourceId).toBe('proxmox:other/qemu/103');
  });
});

describe('transformProxmoxTask: rejections keep the raw entry', () => {
  it.each([
    [{ ...finished, upid: 'UPID:pve1.lan:0023493E:07C9E5B2:684A99B8:qmstop:103:root@pam:' }, 'node'],
    [{ ...finished, upid: 'garbage' }, 'UPID:'],
    [{ ...finished, type: 'qmstart' }, 'type'],
    [{ ...finished, node: 'pve2' }, 'node'],
    [{ ...finished, starttime: 1749719481 }, 'starttime'],
    [{ ...finished, tokenid: undefined }, 'user'],
    [{ ...finished, endtime: 'soon' }, 'endtime'],
    [{ node: 'pve1' }, 'upid'],
    ['UPID:pve1:0023493E:07C9E5B2:684A99B8:qmstop:103:root@pam:', 'not a Proxmox task'],
  ])('%j → mentions %s', (input, word) => {
    const r = transformProxmoxTask(input, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toContain(word);
      expect(r.raw).toBe(input);
    }
  });

  it('refuses a cluster name that cannot be part of an id', () => {
    expect(transformProxmoxTask(finished, { cluster: 'my lab' }).ok).toBe(false);
  });
});

describe('transformProxmoxTask: task status bodies (fixtures)', () => {
  it('every task-status fixture transforms', () => {
    const files = fixtureFiles('proxmox').filter((f) => f.startsWith('task-status-'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) expect(transformProxmoxTask(readFixture(`proxmox/${f}`), opts).ok, f).toBe(true);
  });

  it.each([
    ['task-status-running.json', 'running', null, 'alice@pve', 'human', 'vm_shutdown'],
    [
      'task-status-stopped-error.json',
      'error',
      'VM quit/powerdown failed - got timeout',
      'root@pam!automation',
      'api_token',
      'vm_shutdown',
    ],
    ['task-status-stopped-ok-token.json', 'ok', 'OK', 'root@pam!automation', 'api_token', 'vm_stop'],
    ['task-status-unexpected.json', 'unknown', 'unexpected status', 'root@pam', 'human', 'vm_backup'],
  ])('%s', (file, statusClass, statusText, actor, actorKind, type) => {
    const r = transformProxmoxTask(readFixture(`proxmox/${file}`), { cluster: 'lab', guestKindOf: () => 'lxc' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect({
      statusClass: r.event.statusClass,
      statusText: r.event.statusText,
      actor: r.event.actor,
      actorKind: r.event.actorKind,
      type: r.event.type,
    }).toEqual({ statusClass, statusText, actor, actorKind, type });
    // Status bodies carry no endtime: the end is null rather than invented.
    expect(r.event.endedAt).toBeNull();
  });
});

describe("transformProxmoxTask: the node's own start-up and shutdown are the system's", () => {
  const upid = (type: string, user: string) => `UPID:pve1:0000EA7F:000A9C68:695FF63E:${type}::${user}:`;
  it.each([
    ['startall', 'root@pam', 'system'],
    ['stopall', 'root@pam', 'system'],
    // A person asked: the web UI's bulk actions as another user, or actions Proxmox never runs on its own.
    ['startall', 'alice@pve', 'human'],
    ['suspendall', 'root@pam', 'human'],
    ['migrateall', 'root@pam', 'human'],
    ['bulk-start', 'root@pam', 'human'],
    ['startall', 'root@pam!automation', 'api_token'],
    // A guest task by root@pam stays human here: only the correlator sees what it ran under.
    ['aptupdate', 'root@pam', 'human'],
  ])('%s by %s → %s', (type, user, actorKind) => {
    const r = transformProxmoxTask({ upid: upid(type, user), status: 'OK', endtime: 1767896640 }, opts);
    expect(r.ok && [r.event.actor, r.event.actorKind]).toEqual([user, actorKind]);
  });
});
