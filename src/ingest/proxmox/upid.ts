/**
 * Proxmox UPIDs: `UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:` (PROVIDER_FORMATS.md).
 * The rules follow pve-common's decode; each field is checked on its own so a rejected UPID says
 * which part is wrong (a malformed UPID goes to the ingest report, not the graph).
 */

/** A decoded UPID. The string itself (`raw`) is the task's identity. */
export interface Upid {
  raw: string;
  node: string;
  /** Worker pid; restarts small after a node reboot, so only pid + pstart identify a worker. */
  pid: number;
  /** Worker start in clock ticks since boot (8 hex digits, 9 after ~497 days of uptime). */
  pstart: number;
  /** Unix epoch seconds on that node's clock. */
  starttime: number;
  type: string;
  /** May be empty (multi-guest vzdump, aptupdate); usually a VMID. */
  id: string;
  /** `user@realm` or `user@realm!tokenid`, as encoded. */
  user: string;
  /** `user` without the token part. */
  apiUser: string;
  tokenId: string | null;
  /** Task log subdirectory: the last character of the starttime field. */
  logSubdir: string;
}

export type UpidResult = { ok: true; upid: Upid } | { ok: false; reason: string };

const NODE = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const HEX8 = /^[0-9A-Fa-f]{8}$/;
const HEX8_9 = /^[0-9A-Fa-f]{8,9}$/;
// pve-common forbids ':' and whitespace in every free field, and '/' since "do not allow slashes".
// Control and format characters (ESC, bidi overrides, zero-width) are refused too: a UPID is quoted
// raw in narratives agents read, so it may carry nothing that renders differently from its bytes.
const FREE = /^[^:\s/\p{Cc}\p{Cf}]*$/u;

function fail(text: string, why: string): UpidResult {
  return { ok: false, reason: `invalid UPID ${JSON.stringify(text)}: ${why}` };
}

/** Parses and validates a UPID string; never throws. */
export function parseUpid(text: string): UpidResult {
  if (typeof text !== 'string') return fail(String(text), 'not a string');
  if (!text.startsWith('UPID:')) return fail(text, 'must start with "UPID:"');
  if (!text.endsWith(':')) return fail(text, 'the trailing ":" is missing');
  const fields = text.slice('UPID:'.length, -1).split(':');
  if (fields.length !== 7) {
    return fail(
      text,
      `expected 7 fields (node, pid, pstart, starttime, type, id, user) between "UPID:" and the trailing ":", got ${fields.length}`,
    );
  }
  const [node, pid, pstart, starttime, type, id, user] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return validate(text, { node, pid, pstart, starttime, type, id, user });
}

interface RawFields {
  node: string;
  pid: string;
  pstart: string;
  starttime: string;
  type: string;
  id: string;
  user: string;
}

function validate(text: string, f: RawFields): UpidResult {
  if (!NODE.test(f.node))
    return fail(text, `node "${f.node}" must be a short host name (letters, digits, inner hyphens; no dots)`);
  if (!HEX8.test(f.pid)) return fail(text, `pid "${f.pid}" must be exactly 8 hex digits`);
  if (!HEX8_9.test(f.pstart)) return fail(text, `pstart "${f.pstart}" must be 8 or 9 hex digits`);
  if (!HEX8.test(f.starttime)) return fail(text, `starttime "${f.starttime}" must be exactly 8 hex digits`);
  if (f.type === '' || !FREE.test(f.type))
    return fail(text, `type "${f.type}" must be non-empty without ":", "/", whitespace or control characters`);
  if (!FREE.test(f.id)) return fail(text, `id "${f.id}" may not contain ":", "/", whitespace or control characters`);
  if (f.user === '' || !FREE.test(f.user))
    return fail(text, `user "${f.user}" must be non-empty without ":", "/", whitespace or control characters`);
  const bang = f.user.indexOf('!');
  if (bang === 0 || bang === f.user.length - 1)
    return fail(text, `user "${f.user}" must look like user@realm or user@realm!tokenid`);
  return {
    ok: true,
    upid: {
      raw: text,
      node: f.node,
      pid: parseInt(f.pid, 16),
      pstart: parseInt(f.pstart, 16),
      starttime: parseInt(f.starttime, 16),
      type: f.type,
      id: f.id,
      user: f.user,
      apiUser: bang < 0 ? f.user : f.user.slice(0, bang),
      tokenId: bang < 0 ? null : f.user.slice(bang + 1),
      logSubdir: f.starttime.slice(-1),
    },
  };
}
