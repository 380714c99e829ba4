/**
 * Where a health check may connect. Agents read a check's outcome (status, refused or timed out,
 * the reason), so a check that could reach loopback, link-local, a cloud metadata service or
 * aitia's own Neo4j would be a port scanner into the service's own host. Those addresses are
 * refused (after DNS resolution, see scheduler/probes/vet-target.ts) unless the operator's
 * allow-list (AITIA_CHECK_ALLOW) names them. Private ranges (10/8, 192.168/16, …) are the homelab
 * itself and stay allowed. Pure.
 */

export type AddressCategory = 'loopback' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

/** An IP address as 4 or 16 bytes. */
export interface IpBytes {
  family: 4 | 6;
  bytes: number[];
}

/** One allow-list entry: a CIDR (or one address) or a host name, optionally for one port only. */
export type CheckAllowEntry =
  | { kind: 'cidr'; net: IpBytes; prefix: number; port: number | null; text: string }
  | { kind: 'host'; host: string; port: number | null; text: string };

/** What the probes enforce: the operator's allow-list and aitia's own Neo4j (never probed unless named with its port). */
export interface CheckNetworkPolicy {
  allow: readonly CheckAllowEntry[];
  /** Endpoints of aitia's own Neo4j (host and port). */
  protectedEndpoints: ReadonlyArray<{ host: string; port: number }>;
}

export const STRICT_CHECK_POLICY: CheckNetworkPolicy = { allow: [], protectedEndpoints: [] };

function parseIpv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

function parseIpv6(text: string): number[] | null {
  let s = text.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0 || (halves.length === 2 && missing < 1)) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  const bytes = all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * Parses an address as a resolver or URL would read it: dotted IPv4, IPv6 (brackets, zone and
 * embedded IPv4 allowed), and the numeric IPv4 forms inet_aton accepts (`2130706433`, `0x7f.1`,
 * `017700000001`), which the WHATWG URL host parser normalises.
 */
export function parseIp(text: string): IpBytes | null {
  const t = text.trim().replace(/^\[(.*)\]$/, '$1');
  const v4 = parseIpv4(t);
  if (v4) return { family: 4, bytes: v4 };
  if (t.includes(':')) {
    const v6 = parseIpv6(t);
    return v6 ? { family: 6, bytes: v6 } : null;
  }
  if (!/^[0-9a-fA-FxX.]+$/.test(t)) return null;
  try {
    const host = new URL(`http://${t}/`).hostname;
    const n = parseIpv4(host);
    return n ? { family: 4, bytes: n } : null;
  } catch {
    return null;
  }
}

export function formatIp(ip: IpBytes): string {
  if (ip.family === 4) return ip.bytes.join('.');
  return new URL(
    `http://[${Array.from({ length: 8 }, (_, i) => ((ip.bytes[2 * i]! << 8) | ip.bytes[2 * i + 1]!).toString(16)).join(':')}]/`,
  ).hostname.replace(/^\[|\]$/g, '');
}

function inNet(ip: IpBytes, net: IpBytes, prefix: number): boolean {
  if (ip.family !== net.family) return false;
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((ip.bytes[bit >> 3]! & mask) !== (net.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}

const cidr = (text: string): [IpBytes, number] => {
  const [a, p] = text.split('/');
  return [parseIp(a!)!, Number(p)];
};

/** Known cloud metadata endpoints (AWS, GCP, Azure, Alibaba, OpenStack, ECS, Oracle), most inside link-local. */
const METADATA = [
  '169.254.169.254/32',
  '169.254.170.2/32',
  '169.254.169.253/32',
  'fd00:ec2::254/128',
  'fd00:ec2::23/128',
  '100.100.100.200/32',
  '168.63.129.16/32',
  '192.0.0.192/32',
].map(cidr);

const RANGES: Array<[AddressCategory, [IpBytes, number]]> = [
  ['unspecified', cidr('0.0.0.0/8')],
  ['loopback', cidr('127.0.0.0/8')],
  ['link-local', cidr('169.254.0.0/16')],
  ['multicast', cidr('224.0.0.0/4')],
  ['reserved', cidr('240.0.0.0/4')],
  ['unspecified', cidr('::/128')],
  ['loopback', cidr('::1/128')],
  ['link-local', cidr('fe80::/10')],
  ['multicast', cidr('ff00::/8')],
];

/** IPv6 forms that carry an IPv4 address a connection may end up at: mapped, translated, compatible, NAT64, 6to4. */
const EMBEDS_V4: Array<[IpBytes, number, (b: number[]) => number[]]> = [
  [...cidr('::ffff:0:0/96'), (b) => b.slice(12)],
  [...cidr('::ffff:0:0:0/96'), (b) => b.slice(12)],
  [...cidr('::/96'), (b) => b.slice(12)],
  [...cidr('64:ff9b::/96'), (b) => b.slice(12)],
  // 6to4: the relay's IPv4 address follows the prefix (2002:AABB:CCDD::).
  [...cidr('2002::/16'), (b) => b.slice(2, 6)],
];

/**
 * Forms whose embedded IPv4 address cannot be read in one place: the local-use NAT64 prefix
 * (RFC 6052 puts it at bits 32–128 depending on a prefix length only the gateway knows, skipping
 * the u octet) and Teredo (the client's address inverted). Every reading that lands on this
 * host, link-local or a metadata service refuses; the other readings are noise of the format.
 */
const DANGEROUS: readonly AddressCategory[] = ['metadata', 'loopback', 'link-local'];
const AMBIGUOUS_V4: Array<[IpBytes, number, (b: number[]) => number[][]]> = [
  [
    ...cidr('64:ff9b:1::/48'),
    (b) => [[b[6]!, b[7]!, b[9]!, b[10]!], [b[7]!, b[9]!, b[10]!, b[11]!], b.slice(9, 13), b.slice(12)],
  ],
  [...cidr('2001::/32'), (b) => [b.slice(12).map((x) => x ^ 0xff)]],
];

/** What makes an address off-limits to checks, or null for an ordinary one. */
export function classifyAddress(ip: IpBytes): AddressCategory | null {
  if (ip.family === 6 && !inNet(ip, ...RANGES[5]![1]) && !inNet(ip, ...RANGES[6]![1])) {
    for (const [net, prefix, v4] of EMBEDS_V4)
      if (inNet(ip, net, prefix)) return classifyAddress({ family: 4, bytes: v4(ip.bytes) });
    for (const [net, prefix, readings] of AMBIGUOUS_V4) {
      if (!inNet(ip, net, prefix)) continue;
      const found = readings(ip.bytes).map((bytes) => classifyAddress({ family: 4, bytes }));
      const worst = DANGEROUS.find((c) => found.includes(c));
      if (worst) return worst;
    }
  }
  if (METADATA.some(([net, prefix]) => inNet(ip, net, prefix))) return 'metadata';
  for (const [category, [net, prefix]] of RANGES) if (inNet(ip, net, prefix)) return category;
  if (ip.family === 4 && ip.bytes.every((b) => b === 255)) return 'reserved';
  return null;
}

/** Host names that always mean loopback (RFC 6761) or a metadata service, before any resolver says so. */
export function classifyHostName(host: string): AddressCategory | null {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return 'loopback';
  if (
    ['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal'].includes(h)
  )
    return 'metadata';
  return null;
}

/** A check's host as connections see it: lower case, no brackets or trailing dot, numeric IPv4 forms normalised. */
export function normalizeCheckHost(host: string): string {
  const h = host
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  const ip = parseIp(h);
  return ip ? formatIp(ip) : h;
}

function parsePort(text: string): number | null {
  return /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535 ? Number(text) : null;
}

/**
 * Parses AITIA_CHECK_ALLOW: comma-separated entries, each an address, a CIDR or a host name,
 * optionally with `:port` (IPv6 in brackets: `[::1]:8080`, `[fe80::/10]`). Says which entry is wrong.
 */
export function parseCheckAllow(
  text: string | undefined,
): { ok: true; entries: CheckAllowEntry[] } | { ok: false; reason: string } {
  const entries: CheckAllowEntry[] = [];
  for (const raw of (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const bad = (why: string) => ({ ok: false as const, reason: `entry "${raw}": ${why}` });
    let body = raw;
    let port: number | null = null;
    const bracket = /^\[([^\]]+)\](?::(.+))?$/.exec(raw);
    if (bracket) {
      body = bracket[1]!;
      if (bracket[2] !== undefined && (port = parsePort(bracket[2])) === null) return bad('port must be 1–65535');
    } else if ((raw.match(/:/g) ?? []).length === 1) {
      const at = raw.lastIndexOf(':');
      body = raw.slice(0, at);
      if ((port = parsePort(raw.slice(at + 1))) === null) return bad('port must be 1–65535');
    }
    const [addr, bits, extra] = body.split('/');
    const ip = parseIp(addr!);
    if (ip) {
      const max = ip.family === 4 ? 32 : 128;
      if (extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max)))
        return bad(`prefix length must be 0–${max}`);
      entries.push({ kind: 'cidr', net: ip, prefix: bits === undefined ? max : Number(bits), port, text: raw });
    } else if (
      bits === undefined &&
      /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(addr!)
    ) {
      entries.push({ kind: 'host', host: normalizeCheckHost(addr!), port, text: raw });
    } else return bad('must be an address, a CIDR (10.0.0.0/8) or a host name, optionally :port');
  }
  return { ok: true, entries };
}

/** The operator's allow-list names this connection: its host name, or the address it resolved to, on this port. */
export function allowedByList(
  allow: readonly CheckAllowEntry[],
  target: { host: string; address: IpBytes | null; port: number },
  options: { portRequired?: boolean } = {},
): boolean {
  const host = normalizeCheckHost(target.host);
  return allow.some(
    (e) =>
      (e.port === null ? !options.portRequired : e.port === target.port) &&
      (e.kind === 'host' ? e.host === host : target.address !== null && inNet(target.address, e.net, e.prefix)),
  );
}

/** The refusal text agents read: what was refused and how an operator allows it, nothing more. */
export function refusalReason(what: string, category: AddressCategory | 'neo4j'): string {
  return category === 'neo4j'
    ? `refused: ${what} is aitia's own Neo4j; checks may not probe it (name it with its port in AITIA_CHECK_ALLOW)`
    : `refused: address ${what} is ${category}; allow it with AITIA_CHECK_ALLOW`;
}

/** A host that is this machine: a loopback or unspecified literal, or localhost. */
function isLocalHost(host: string): boolean {
  const ip = parseIp(host);
  const category = ip ? classifyAddress(ip) : classifyHostName(host);
  return category === 'loopback' || category === 'unspecified';
}

/**
 * Judges one connection target: null when allowed, else the refusal. `address` is what the host
 * resolved to (or the literal); `neo4jAddresses` the resolved addresses of aitia's Neo4j endpoint
 * on this port (empty when the port is not one of its).
 */
export function judgeCheckTarget(
  policy: CheckNetworkPolicy,
  target: { host: string; address: IpBytes; port: number },
  neo4jAddresses: readonly IpBytes[] = [],
): string | null {
  const shown = formatIp(target.address);
  const category = classifyAddress(target.address);
  const isNeo4j = policy.protectedEndpoints.some(
    (p) =>
      p.port === target.port &&
      (normalizeCheckHost(p.host) === normalizeCheckHost(target.host) ||
        neo4jAddresses.some((a) => formatIp(a) === shown) ||
        (isLocalHost(p.host) && (category === 'loopback' || category === 'unspecified'))),
  );
  if (isNeo4j && !allowedByList(policy.allow, target, { portRequired: true }))
    return refusalReason(`${shown}:${target.port}`, 'neo4j');
  if (category && !allowedByList(policy.allow, target)) return refusalReason(shown, category);
  return null;
}

/**
 * A check's target judged as written, without DNS (creation refuses the obvious: a literal
 * loopback or metadata address, `localhost`); names are judged again after resolution at each run.
 */
export function literalTargetRefusal(policy: CheckNetworkPolicy, rawHost: string, port: number): string | null {
  const host = normalizeCheckHost(rawHost);
  const ip = parseIp(host);
  if (ip) return judgeCheckTarget(policy, { host, address: ip, port }, []);
  const named = classifyHostName(host);
  return named && !allowedByList(policy.allow, { host, address: null, port }) ? refusalReason(host, named) : null;
}
