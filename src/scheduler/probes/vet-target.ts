import { lookup as dnsLookup } from 'node:dns/promises';
import {
  type CheckNetworkPolicy,
  classifyHostName,
  formatIp,
  type IpBytes,
  judgeCheckTarget,
  normalizeCheckHost,
  parseIp,
  refusalReason,
  allowedByList,
} from '../../model/index.js';

/** Resolves a name to every address it has (the system resolver, as a connection would). */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Where to connect: the vetted address (connect to it, never re-resolve), or why not. */
export type VettedTarget =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; refused: true; reason: string }
  | { ok: false; refused: false; error: unknown };

/**
 * Resolves a check's host once and judges every address it gave (one forbidden address refuses
 * the name: a resolver may hand out either); the probe then connects to the first vetted address
 * itself, so a DNS answer that changes between the check and the connection (rebinding) cannot
 * move it. Names that always mean loopback or a metadata service are refused before resolving.
 */
export async function vetTarget(
  policy: CheckNetworkPolicy,
  rawHost: string,
  port: number,
  resolve: Resolve = systemResolve,
): Promise<VettedTarget> {
  const host = normalizeCheckHost(rawHost);
  const named = classifyHostName(host);
  if (named && !allowedByList(policy.allow, { host, address: null, port }))
    return { ok: false, refused: true, reason: refusalReason(host, named) };
  let addresses: IpBytes[];
  const literal = parseIp(host);
  if (literal) addresses = [literal];
  else {
    try {
      addresses = (await resolve(host)).map((a) => parseIp(a)).filter((a): a is IpBytes => a !== null);
    } catch (err) {
      return { ok: false, refused: false, error: err };
    }
    if (addresses.length === 0)
      return {
        ok: false,
        refused: false,
        error: Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' }),
      };
  }
  const neo4j: IpBytes[] = [];
  for (const p of policy.protectedEndpoints) {
    if (p.port !== port) continue;
    const ip = parseIp(p.host);
    if (ip) neo4j.push(ip);
    else
      neo4j.push(
        ...(await resolve(p.host).catch(() => [])).map((a) => parseIp(a)).filter((a): a is IpBytes => a !== null),
      );
  }
  for (const address of addresses) {
    const refusal = judgeCheckTarget(policy, { host, address, port }, neo4j);
    if (refusal) return { ok: false, refused: true, reason: refusal };
  }
  const first = addresses[0]!;
  return { ok: true, address: formatIp(first), family: first.family };
}
