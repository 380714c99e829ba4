import { normaliseMac } from '../identity/mac.js';

/**
 * Reading a guest's configuration (`GET /nodes/{node}/{qemu|lxc}/{vmid}/config`): which storages
 * its volumes live on, its NIC MAC addresses, its SMBIOS identity. Values are Proxmox property
 * strings: `local-lvm:vm-101-disk-0,iothread=1,size=32G`, `virtio=BC:24:11:2C:69:EC,bridge=vmbr0`.
 */

/** One guest volume on a Proxmox storage. */
export interface GuestVolume {
  /** Config key: `scsi0`, `efidisk0`, `rootfs`, `mp0`, `unused1` … */
  key: string;
  storage: string;
  volume: string;
}

/** Keys that hold volumes: QEMU disks, EFI/TPM state, LXC root and mount points, detached disks. */
const VOLUME_KEY = /^(?:scsi|sata|ide|virtio|efidisk|tpmstate|unused|mp)\d+$|^rootfs$/;

function options(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/**
 * Volumes on a storage. CD-ROM media (ISOs, cloud-init drives), `none`, absolute paths (pass-through
 * devices, LXC bind mounts) name no storage and are left out.
 */
export function parseGuestVolumes(config: Record<string, unknown>): GuestVolume[] {
  const out: GuestVolume[] = [];
  for (const [key, raw] of Object.entries(config)) {
    if (!VOLUME_KEY.test(key) || typeof raw !== 'string') continue;
    const first = raw.split(',', 1)[0]!.trim();
    const opts = options(raw);
    if (opts.get('media') === 'cdrom') continue;
    // `<storage>:<volume>`; the volume part may itself be `0` or `32` for a "create new disk" request.
    const m = /^([A-Za-z][A-Za-z0-9_.-]*):(\S+)$/.exec(first.startsWith('file=') ? first.slice(5) : first);
    if (!m) continue;
    out.push({ key, storage: m[1]!, volume: m[2]! });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * MAC addresses of `net<N>` lines, in NIC order: QEMU writes `<model>=<MAC>` (or `macaddr=`),
 * LXC writes `hwaddr=<MAC>`.
 */
export function parseMacAddresses(config: Record<string, unknown>): string[] {
  const macs: Array<[number, string]> = [];
  for (const [key, raw] of Object.entries(config)) {
    const n = /^net(\d+)$/.exec(key);
    if (!n || typeof raw !== 'string') continue;
    for (const value of options(raw).values()) {
      const mac = normaliseMac(value);
      if (mac) {
        macs.push([Number(n[1]), mac]);
        break;
      }
    }
  }
  return [...new Set(macs.sort((a, b) => a[0] - b[0]).map(([, m]) => m))];
}

/** The `smbios1` option map; values are base64 when `base64=1` (uuid never is). */
function smbios(config: Record<string, unknown>): Map<string, string> {
  const raw = config.smbios1;
  return typeof raw === 'string' ? options(raw) : new Map();
}

/** SMBIOS type-1 UUID of a VM (`smbios1: uuid=…`), lower case; null when absent or not a UUID. */
export function parseSmbiosUuid(config: Record<string, unknown>): string | null {
  const uuid = smbios(config).get('uuid')?.toLowerCase() ?? '';
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(uuid) ? uuid : null;
}

/** SMBIOS serial number, decoded from base64 when the config says so; null when absent. */
export function parseSmbiosSerial(config: Record<string, unknown>): string | null {
  const opts = smbios(config);
  const serial = opts.get('serial');
  if (!serial) return null;
  const text = opts.get('base64') === '1' ? Buffer.from(serial, 'base64').toString('utf8') : serial;
  return text.trim() === '' ? null : text.trim();
}

/**
 * Is the QEMU guest agent enabled (`agent: 1`, `agent: enabled=1,fstrim_cloned_disks=1`)? The
 * property's first, unnamed value is `enabled`; anything else (absent, `0`, LXC) is false.
 */
export function parseAgentEnabled(config: Record<string, unknown>): boolean {
  const raw = config.agent;
  if (typeof raw === 'number' || typeof raw === 'boolean') return raw === 1 || raw === true;
  if (typeof raw !== 'string') return false;
  for (const part of raw.split(',')) {
    const [k, v] = part.includes('=') ? part.split('=', 2).map((x) => x.trim()) : ['enabled', part.trim()];
    if (k === 'enabled') return v === '1' || v === 'on' || v === 'yes' || v === 'true';
  }
  return false;
}
