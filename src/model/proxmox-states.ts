import type { StateOf } from './states.js';

/** What Proxmox says about a guest: `status` from the lists, `qmpstatus` and `lock` from status/current. */
export interface ProxmoxGuestRaw {
  status?: string | null;
  qmpstatus?: string | null;
  lock?: string | null;
}

/** A mapped state plus the provider's own words, always kept. */
export interface MappedState<S extends string> {
  state: S;
  rawState: string;
}

interface Rule<S> {
  status?: string;
  qmpstatus?: string;
  lock?: string;
  state: S;
  why: string;
}

/**
 * VM rules, first match wins. `status` is only running|stopped; the finer state is `qmpstatus`
 * (QEMU's run state) and `lock` (PROVIDER_FORMATS.md "Proxmox: guest status").
 */
export const PROXMOX_VM_RULES: ReadonlyArray<Rule<StateOf<'vm'>>> = [
  { status: 'stopped', lock: 'suspended', state: 'suspended', why: 'hibernated to disk' },
  { status: 'stopped', state: 'stopped', why: 'powered off' },
  { status: 'running', qmpstatus: 'io-error', state: 'paused_io_error', why: 'QEMU paused on a disk I/O error' },
  { status: 'running', qmpstatus: 'prelaunch', lock: 'backup', state: 'stopped', why: 'backup of a stopped VM' },
  { status: 'running', qmpstatus: 'paused', state: 'paused', why: 'paused (qm pause)' },
  { status: 'running', qmpstatus: 'inmigrate', state: 'migrating', why: 'incoming live migration' },
  { status: 'running', qmpstatus: 'postmigrate', state: 'migrating', why: 'migrated away, source side' },
  { status: 'running', qmpstatus: 'suspended', state: 'suspended', why: 'guest in ACPI S3 sleep' },
  { status: 'running', qmpstatus: 'guest-panicked', state: 'crashed', why: 'guest kernel panicked' },
  { status: 'running', qmpstatus: 'internal-error', state: 'crashed', why: 'QEMU internal error' },
  { status: 'running', qmpstatus: 'watchdog', state: 'crashed', why: 'guest watchdog fired' },
  { status: 'running', qmpstatus: 'shutdown', state: 'stopped', why: 'guest shut down, QEMU still alive' },
  { status: 'running', qmpstatus: 'running', state: 'running', why: 'running' },
  // /cluster/resources carries no qmpstatus: a plain running there is running.
  { status: 'running', qmpstatus: '', state: 'running', why: 'running (no qmpstatus reported)' },
];

/** Container rules: pve-container reports running|stopped (frozen when the cgroup is frozen). */
export const PROXMOX_LXC_RULES: ReadonlyArray<Rule<StateOf<'lxc'>>> = [
  { status: 'running', state: 'running', why: 'running' },
  { status: 'stopped', state: 'stopped', why: 'stopped' },
  { status: 'frozen', state: 'frozen', why: 'frozen (pct suspend)' },
];

/** Node rules from /cluster/resources and /cluster/status. */
export const PROXMOX_NODE_RULES: ReadonlyArray<Rule<StateOf<'host'>>> = [
  { status: 'online', state: 'online', why: 'online' },
  { status: 'offline', state: 'offline', why: 'offline' },
];

/** Storage rules from /cluster/resources (`available`, or `unknown` when the node cannot see it). */
export const PROXMOX_STORAGE_RULES: ReadonlyArray<Rule<StateOf<'storage'>>> = [
  { status: 'available', state: 'available', why: 'available' },
  { status: 'disabled', state: 'disabled', why: 'disabled in storage.cfg' },
];

function norm(word: string | null | undefined): string {
  return (word ?? '').trim().toLowerCase();
}

/** Renders the provider's words as one string, e.g. `running/io-error` or `stopped/lock:suspended`. */
export function rawStateOf(raw: ProxmoxGuestRaw): string {
  const parts = [raw.status ?? ''];
  if (raw.qmpstatus && raw.qmpstatus !== raw.status) parts.push(raw.qmpstatus);
  if (raw.lock) parts.push(`lock:${raw.lock}`);
  return parts.join('/') || '(none)';
}

/** Applies rules in order; a rule's omitted field matches anything, '' matches only an absent one. */
export function applyRules<S extends string>(
  rules: ReadonlyArray<Rule<S>>,
  raw: ProxmoxGuestRaw,
  unknown: S,
): MappedState<S> {
  const status = norm(raw.status);
  const qmp = norm(raw.qmpstatus);
  const lock = norm(raw.lock);
  const hit = rules.find(
    (r) =>
      (r.status === undefined || r.status === status) &&
      (r.qmpstatus === undefined || r.qmpstatus === qmp) &&
      (r.lock === undefined || r.lock === lock),
  );
  return { state: hit ? hit.state : unknown, rawState: rawStateOf(raw) };
}

export const mapProxmoxVm = (raw: ProxmoxGuestRaw) => applyRules(PROXMOX_VM_RULES, raw, 'unknown');
export const mapProxmoxLxc = (raw: ProxmoxGuestRaw) => applyRules(PROXMOX_LXC_RULES, raw, 'unknown');
export const mapProxmoxNode = (status: string | null | undefined) =>
  applyRules(PROXMOX_NODE_RULES, { status }, 'unknown');
export const mapProxmoxStorage = (status: string | null | undefined) =>
  applyRules(PROXMOX_STORAGE_RULES, { status }, 'unknown');
