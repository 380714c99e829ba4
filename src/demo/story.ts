import type { TaskSpec } from './proxmox-tasks.js';

/**
 * The demo's homelab day, as data: a 3-node Proxmox cluster `homelab` (recordings in
 * recordings/proxmox-homelab/) and four things that happen to it. Each step says when the scheduler polls, the
 * tasks the nodes have logged by then, and how the recorded API answers change. Nothing here is
 * special-cased downstream: the steps go through the real task ingest, inventory sync, correlator
 * and gate.
 */

export const DEMO_CLUSTER = 'homelab';

/** When the scheduler first sees the cluster: the baseline (a first sighting is not a transition). */
export const BASELINE_AT = '2026-05-14T02:00:00Z';

/** A change to one recorded answer: `data` fields of a guest's status/current and its listing entry. */
export interface GuestChange {
  node: string;
  /** `qemu/101` or `lxc/200`. */
  guest: string;
  status: Record<string, unknown>;
  listing: Record<string, unknown>;
}

export interface StoryStep {
  title: string;
  /** What the narrative should come out as, for the reader of the demo's output. */
  expect: string;
  observeAt: string;
  tasks: TaskSpec[];
  changes: GuestChange[];
}

export const STORY: readonly StoryStep[] = [
  {
    title: 'an operator stops web01 from the CLI',
    expect: 'high: stopped by alice@pve (qmstop)',
    observeAt: '2026-05-14T02:08:31Z',
    tasks: [
      {
        node: 'pve1',
        type: 'qmstop',
        id: '101',
        user: 'alice@pve',
        start: '2026-05-14T02:08:29Z',
        end: '2026-05-14T02:08:30Z',
        status: 'OK',
        pid: 0x1a2b01,
      },
    ],
    changes: [
      {
        node: 'pve1',
        guest: 'qemu/101',
        status: { status: 'stopped', qmpstatus: 'stopped', uptime: 0 },
        listing: { status: 'stopped', uptime: 0 },
      },
    ],
  },
  {
    title: 'bob asks the HA manager to stop ha-web10',
    expect: 'high: requested by bob@pve (hastop), executed by the HA manager (qmshutdown by root@pam)',
    observeAt: '2026-05-14T02:21:16Z',
    tasks: [
      {
        node: 'pve2',
        type: 'hastop',
        id: '110',
        user: 'bob@pve',
        start: '2026-05-14T02:20:58Z',
        end: '2026-05-14T02:20:58Z',
        status: 'OK',
        pid: 0x1a2b02,
      },
      {
        node: 'pve2',
        type: 'qmshutdown',
        id: '110',
        user: 'root@pam',
        start: '2026-05-14T02:21:08Z',
        end: '2026-05-14T02:21:14Z',
        status: 'OK',
        pid: 0x1a2b03,
      },
    ],
    changes: [
      {
        node: 'pve2',
        guest: 'qemu/110',
        status: {
          status: 'stopped',
          qmpstatus: 'stopped',
          uptime: 0,
          ha: { managed: 1, state: 'stopped', group: 'prod' },
        },
        listing: { status: 'stopped', hastate: 'stopped', uptime: 0 },
      },
    ],
  },
  {
    title: 'build02 stops and no task says why',
    expect: 'none: the cause is unknown, and aitia says so',
    observeAt: '2026-05-14T02:34:02Z',
    tasks: [],
    changes: [
      {
        node: 'pve1',
        guest: 'qemu/102',
        status: { status: 'stopped', qmpstatus: 'stopped', uptime: 0 },
        listing: { status: 'stopped', uptime: 0 },
      },
    ],
  },
  {
    title: 'db13 pauses on a disk I/O error',
    expect: 'none (no task), and a paused_io_error condition opens',
    observeAt: '2026-05-14T02:47:45Z',
    tasks: [],
    changes: [
      {
        node: 'pve2',
        guest: 'qemu/113',
        status: { status: 'running', qmpstatus: 'io-error' },
        listing: { status: 'running' },
      },
    ],
  },
];

/** Services the homelab runs, declared the way an agent would: what runs where and what needs what. */
export const DEMO_SERVICES: ReadonlyArray<{ name: string; runsOn: string; dependsOn: string[]; evidence: string }> = [
  { name: 'postgres', runsOn: 'vm:db13', dependsOn: [], evidence: 'systemctl is-active postgresql@15-main on db13' },
  {
    name: 'shop',
    runsOn: 'vm:web01',
    dependsOn: ['service:postgres'],
    evidence: 'DATABASE_URL=postgres://db13:5432/shop in /etc/shop/env',
  },
  {
    name: 'reverse-proxy',
    runsOn: 'lxc:proxy10',
    dependsOn: ['service:shop'],
    evidence: 'nginx upstream shop { server web01:8080; }',
  },
  { name: 'dns', runsOn: 'lxc:dns01', dependsOn: [], evidence: 'unbound listening on 10.20.0.53:53' },
  { name: 'ci', runsOn: 'vm:build02', dependsOn: [], evidence: 'gitlab-runner registered as build02' },
];
