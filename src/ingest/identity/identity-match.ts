import type { EdgeConfidence, Kind } from '../../model/index.js';
import type { IdentityFacts } from '../../graph/resources/queries.js';
import { normaliseMac } from './mac.js';

/** How two perspectives were matched, strongest first. */
export const IDENTITY_RULES = ['smbios_uuid', 'mac_address', 'serial', 'name'] as const;
/** One of {@link IDENTITY_RULES}. */
export type IdentityRule = (typeof IDENTITY_RULES)[number];

/** One inferred identity: `fromId` MANIFESTS_AS `toId`. */
export interface IdentityMatch {
  fromId: string;
  toId: string;
  /** The strongest rule that matched. */
  rule: IdentityRule;
  confidence: EdgeConfidence;
  /** Every rule and value that matched, e.g. `smbios_uuid=4c4c…; mac_address=bc:24:11:e5:a1:30`. */
  evidence: string;
}

/** A value shared by several resources of one provider: it identifies none of them. */
export interface AmbiguousValue {
  rule: IdentityRule;
  value: string;
  ids: string[];
}

/** Placeholder serials firmware ships with; they identify nothing. */
const JUNK_SERIALS =
  /^(to be filled by o\.e\.m\.|default string|none|n\/a|not specified|system serial number|0+|1234567890?|123456789)$/i;

/** SMBIOS stores the first three UUID fields little-endian; readers disagree on byte order. */
function swapUuid(u: string): string {
  const [a, b, c, ...rest] = u.split('-');
  const rev = (s: string) => s.match(/../g)!.reverse().join('');
  return [rev(a!), rev(b!), rev(c!), ...rest].join('-');
}

function uuidKey(u: string | null): string | null {
  const v = (u ?? '').trim().toLowerCase();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v) || /^[0-]+$|^[f-]+$/.test(v))
    return null;
  const swapped = swapUuid(v);
  return v < swapped ? v : swapped; // the same key whichever byte order a reader used
}

function serialKey(s: string | null): string | null {
  const v = (s ?? '').trim();
  return v === '' || JUNK_SERIALS.test(v) ? null : v.toLowerCase();
}

/** Short host name: `esxi-01.lab.local` → `esxi-01`; IP addresses are kept whole. */
function nameKey(n: string): string | null {
  const v = n.trim().toLowerCase();
  if (v === '') return null;
  return /^\d+\.\d+\.\d+\.\d+$/.test(v) ? v : v.split('.')[0]!;
}

const KEYS: Record<IdentityRule, (f: IdentityFacts) => string[]> = {
  smbios_uuid: (f) => [uuidKey(f.smbiosUuid)].filter((k): k is string => k !== null),
  mac_address: (f) => [...new Set(f.macs.map(normaliseMac).filter((m): m is string => m !== null))],
  serial: (f) => [serialKey(f.serial)].filter((k): k is string => k !== null),
  name: (f) => [nameKey(f.name)].filter((k): k is string => k !== null),
};

/** Every identity value of a machine as `rule=value` (the keys the matcher indexes by). Pure. */
export function identityKeys(f: IdentityFacts): string[] {
  return IDENTITY_RULES.flatMap((rule) => KEYS[rule](f).map((v) => `${rule}=${v}`));
}

/** Direction: the host perspective manifests as the guest (a nested ESXi host is a VM); otherwise vcenter → proxmox. */
function orient(a: IdentityFacts, b: IdentityFacts): [IdentityFacts, IdentityFacts] {
  const rank = (k: Kind) => (k === 'host' ? 0 : 1);
  if (rank(a.kind) !== rank(b.kind)) return rank(a.kind) < rank(b.kind) ? [a, b] : [b, a];
  return a.provider > b.provider || (a.provider === b.provider && a.id < b.id) ? [a, b] : [b, a];
}

/**
 * Pure: pairs of machines seen by two different providers that share an SMBIOS UUID (either byte
 * order), a MAC address or a serial number → high confidence; a name alone → low, and only for
 * resources no strong rule matched. A value held by two resources of the same provider is
 * ambiguous and matches nothing; a resource strongly matched to two different partners of one
 * provider gets medium confidence on both (the conflict is in the evidence).
 */
export function matchIdentities(
  facts: readonly IdentityFacts[],
  rules: readonly IdentityRule[] = IDENTITY_RULES,
): { matches: IdentityMatch[]; ambiguous: AmbiguousValue[] } {
  const machines = facts.filter((f) => f.kind === 'host' || f.kind === 'vm' || f.kind === 'lxc');
  const pairs = new Map<string, { a: IdentityFacts; b: IdentityFacts; hits: Array<[IdentityRule, string]> }>();
  const ambiguous: AmbiguousValue[] = [];
  const strong = new Set<string>();
  for (const rule of IDENTITY_RULES.filter((r) => rules.includes(r))) {
    const index = new Map<string, IdentityFacts[]>();
    for (const f of machines) {
      if (rule === 'name' && strong.has(f.id)) continue;
      for (const k of KEYS[rule](f)) index.set(k, [...(index.get(k) ?? []), f]);
    }
    for (const [value, holders] of index) {
      const providers = new Map<string, IdentityFacts[]>();
      for (const h of holders) providers.set(h.provider, [...(providers.get(h.provider) ?? []), h]);
      if (providers.size < 2) continue;
      const crowded = [...providers.values()].find((list) => list.length > 1);
      if (crowded) {
        ambiguous.push({ rule, value, ids: holders.map((h) => h.id).sort() });
        continue;
      }
      const sides = [...providers.values()].map((list) => list[0]!);
      for (let i = 0; i < sides.length; i++) {
        for (let j = i + 1; j < sides.length; j++) {
          const [from, to] = orient(sides[i]!, sides[j]!);
          const key = `${from.id}|${to.id}`;
          const pair = pairs.get(key) ?? { a: from, b: to, hits: [] };
          pair.hits.push([rule, value]);
          pairs.set(key, pair);
          if (rule !== 'name') strong.add(from.id).add(to.id);
        }
      }
    }
  }
  // A resource with strong matches to two partners of the same provider: keep both, say so.
  const partners = new Map<string, Set<string>>();
  for (const { a, b, hits } of pairs.values()) {
    if (hits.every(([r]) => r === 'name')) continue;
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const)
      partners.set(`${x.id}|${y.provider}`, (partners.get(`${x.id}|${y.provider}`) ?? new Set()).add(y.id));
  }
  const matches = [...pairs.values()].map(({ a, b, hits }) => {
    const rule = IDENTITY_RULES.find((r) => hits.some(([h]) => h === r))!;
    const conflict =
      (partners.get(`${a.id}|${b.provider}`)?.size ?? 0) > 1 || (partners.get(`${b.id}|${a.provider}`)?.size ?? 0) > 1;
    const confidence: EdgeConfidence = rule === 'name' ? 'low' : conflict ? 'medium' : 'high';
    const evidence =
      hits.map(([r, v]) => `${r}=${v}`).join('; ') + (conflict ? '; conflict: another resource matches too' : '');
    return { fromId: a.id, toId: b.id, rule, confidence, evidence };
  });
  return { matches: matches.sort((x, y) => `${x.fromId}|${x.toId}`.localeCompare(`${y.fromId}|${y.toId}`)), ambiguous };
}
