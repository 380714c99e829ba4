/**
 * What a Proxmox poller remembers between passes, so a steady-state pass costs per node, not per
 * guest: each guest's last configuration (read only when it can have changed) and when its guest
 * agent was last pinged. Kept in memory by the source (src/ingest/proxmox/source.ts); a new process
 * starts empty, so its first pass reads every configuration once. The decisions are pure.
 */

/** What the poller knows of one guest, keyed by its resource id. */
export interface GuestPollRecord {
  /** The node the config was read from: a guest found elsewhere has moved (config re-read). */
  node: string;
  /** The last config answer: what MACs, disks, SMBIOS identity and the agent flag are built from. */
  config: Record<string, unknown>;
  configReadAt: number;
  /** When the rolling refresh reads it again (epoch ms). */
  nextConfigAt: number;
  /** Last agent ping sent (epoch ms), null before the first. */
  agentPingAt: number | null;
  nextPingAt: number;
  /** Running at the last pass: a guest that has just started is pinged at once. */
  running: boolean;
}

export interface ProxmoxPollState {
  guests: Map<string, GuestPollRecord>;
  /** Guests a task may have reconfigured (create, clone, restore, config, move/resize disk, migrate…), until their config is read. */
  pendingConfig: Set<string>;
}

export function createProxmoxPollState(): ProxmoxPollState {
  return { guests: new Map(), pendingConfig: new Set() };
}

/** Why a guest's config is read this pass. */
export type ConfigReadReason = 'first' | 'task' | 'placement' | 'refresh';

export const CONFIG_READ_REASONS: readonly ConfigReadReason[] = ['first', 'task', 'placement', 'refresh'];

/**
 * Whether (and why) to read a guest's config now: never read (first sight), a config-changing task
 * on it since, listed on another node than the one it was read from, or its rolling refresh is due.
 * Null: the remembered config still stands. Pure.
 */
export function configReadReason(input: {
  record: GuestPollRecord | undefined;
  node: string;
  pending: boolean;
  now: number;
}): ConfigReadReason | null {
  const { record } = input;
  if (!record) return 'first';
  if (input.pending) return 'task';
  if (record.node !== input.node) return 'placement';
  if (input.now >= record.nextConfigAt) return 'refresh';
  return null;
}

/**
 * Whether to ping a VM's guest agent now: only a running VM whose config enables the agent; then
 * when it was never pinged, has just started, or its cadence is due. Pure.
 */
export function agentPingDue(input: {
  enabled: boolean;
  running: boolean;
  record: Pick<GuestPollRecord, 'agentPingAt' | 'nextPingAt' | 'running'> | undefined;
  now: number;
}): boolean {
  if (!input.enabled || !input.running) return false;
  const r = input.record;
  if (!r || r.agentPingAt === null || !r.running) return true;
  return input.now >= r.nextPingAt;
}

/** A stable fraction in (0, 1] per id (FNV-1a): where in its period a guest's refresh falls. Pure. */
export function phaseOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return ((h % 10_000) + 1) / 10_000;
}

/**
 * The next time something periodic is due after `at`. After a first read the period is scaled by
 * the id's phase, so guests first seen together are spread over one period instead of all coming
 * due on the same poll; after that every period is whole, so no guest waits longer than `periodMs`.
 */
export function nextDue(id: string, at: number, periodMs: number, first: boolean): number {
  return at + Math.max(1, Math.round(first ? periodMs * phaseOf(id) : periodMs));
}
