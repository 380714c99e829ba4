import { providerWord } from './provider-text.js';
import type { Role } from './roles.js';

/**
 * Which aitia principal stands behind a provider identity: the `actors:` list of the integrations
 * file maps a Proxmox user or API token, or a vCenter user, to a principal (a token name in the
 * tokens file, an agent or an operator). The correlator uses it to tell an agent's change from a
 * stranger's: an agent's change that no redeemed grant or reported auto action explains is
 * flagged unauthorized.
 *
 * Matching, per provider:
 * - **Proxmox** writes the UPID's user field: `user@realm` or `user@realm!tokenid`, compared
 *   exactly (Proxmox user ids and token ids are case-sensitive). An entry for a token matches only
 *   that token; an entry for a user matches the user and every token of it that has no entry of
 *   its own (the token is the user's: Proxmox's privilege separation only narrows it).
 * - **vCenter** writes `DOMAIN\user` or `user@domain` (SSO and Active Directory accept both), case-
 *   insensitively: `VSPHERE.LOCAL\svc-rhodes` and `svc-rhodes@vsphere.local` are one identity. A
 *   NetBIOS domain and a DNS domain (`CORP\bob`, `bob@corp.example.com`) are not known to be the
 *   same and do not match; an entry without a domain matches only a user name without one.
 */

export const ACTOR_PROVIDERS = ['proxmox', 'vcenter'] as const;
export type ActorProvider = (typeof ACTOR_PROVIDERS)[number];

/** One `actors:` entry as written: a provider identity and the aitia principal behind it. */
export interface ActorMappingEntry {
  provider: ActorProvider;
  /** As written in the file: `rhodes@pve!ops`, `VSPHERE.LOCAL\svc-rhodes`. */
  user: string;
  /** A token name of the tokens file. */
  principal: string;
  /** The principal's role, once resolved against the tokens file (src/model/actors.ts resolveActorMapping); null when unknown. */
  role?: Role | null;
}

/** A provider identity, normalised for comparison. */
export interface ActorKey {
  provider: ActorProvider;
  /** Proxmox: `user@realm`; vCenter: `user@domain` lower-cased, or `user` without a domain. */
  user: string;
  /** Proxmox only: the token id after `!`, or null for the user itself. */
  tokenId: string | null;
}

export type ActorKeyResult = { ok: true; key: ActorKey } | { ok: false; reason: string };

// pve-access-control: user names exclude ':' '@' and whitespace; realm and token ids start with a letter.
const PROXMOX_USER = /^([^\s:@!/]+@[A-Za-z][A-Za-z0-9._-]*)(?:!([A-Za-z][A-Za-z0-9._-]*))?$/;
const VCENTER_PART = /^[^\s\\@/]+$/;

/** Normalises a provider identity, or says why it is not one. */
export function actorKey(provider: ActorProvider, user: string): ActorKeyResult {
  if (typeof user !== 'string' || user.trim() === '') return { ok: false, reason: 'must not be empty' };
  if (provider === 'proxmox') {
    const m = PROXMOX_USER.exec(user);
    if (!m) return { ok: false, reason: `${JSON.stringify(user)} is not a Proxmox user@realm or user@realm!tokenid` };
    return { ok: true, key: { provider, user: m[1]!, tokenId: m[2] ?? null } };
  }
  const slash = user.split('\\');
  const at = user.split('@');
  let name: string;
  let domain: string | null;
  if (slash.length === 2 && at.length === 1) [domain, name] = slash as [string, string];
  else if (at.length === 2 && slash.length === 1) [name, domain] = at as [string, string];
  else if (slash.length === 1 && at.length === 1) [name, domain] = [user, null];
  else return { ok: false, reason: `${JSON.stringify(user)} is not a vCenter DOMAIN\\user, user@domain or user` };
  if (!VCENTER_PART.test(name) || (domain !== null && !VCENTER_PART.test(domain)))
    return { ok: false, reason: `${JSON.stringify(user)} has an empty part or whitespace` };
  const lower = name.toLowerCase();
  return {
    ok: true,
    key: { provider, user: domain === null ? lower : `${lower}@${domain.toLowerCase()}`, tokenId: null },
  };
}

/** What principalOfActor found: the principal and the entry that mapped it. */
export interface ActorPrincipal {
  principal: string;
  role: Role | null;
  /** The entry's identity as written (for the narrative: `Proxmox token rhodes@pve!ops`). */
  user: string;
  provider: ActorProvider;
  /** `exact`: the entry names this identity; `user`: a Proxmox user's entry covers its token. */
  matchedBy: 'exact' | 'user';
}

/**
 * The principal behind `actor` as `provider` wrote it, or null when nothing maps it (or the actor
 * is none or malformed). The most specific entry wins: a token's own entry over its user's.
 */
export function principalOfActor(
  actor: string | null | undefined,
  provider: ActorProvider,
  mapping: readonly ActorMappingEntry[],
): ActorPrincipal | null {
  if (!actor) return null;
  const wanted = actorKey(provider, actor);
  if (!wanted.ok) return null;
  let userEntry: ActorMappingEntry | null = null;
  for (const entry of mapping) {
    if (entry.provider !== provider) continue;
    const k = actorKey(provider, entry.user);
    if (!k.ok || k.key.user !== wanted.key.user) continue;
    if (k.key.tokenId === wanted.key.tokenId) return principalOf(entry, 'exact');
    if (k.key.tokenId === null && userEntry === null) userEntry = entry;
  }
  return userEntry ? principalOf(userEntry, 'user') : null;
}

function principalOf(entry: ActorMappingEntry, matchedBy: ActorPrincipal['matchedBy']): ActorPrincipal {
  return {
    principal: entry.principal,
    role: entry.role ?? null,
    user: entry.user,
    provider: entry.provider,
    matchedBy,
  };
}

/** The mapping with each principal's role from the tokens file, and the principals it does not hold. */
export interface ResolvedActorMapping {
  entries: ActorMappingEntry[];
  /** Principals no token has: their entries map to a role of null (never an agent, so never flagged). */
  unknownPrincipals: string[];
}

/** The mapping as the passes read it, resolved against the tokens at each call (tokens change while aitia runs). */
export type ActorMappingSource = () => ResolvedActorMapping;

/**
 * Resolves each entry's principal against the tokens as they stand now (tokens change at run time,
 * so this is done at use, not when the file is read). A principal no token is named is kept with
 * role null: its changes are credited to the name but never flagged as an agent's.
 */
export function resolveActorMapping(
  mapping: readonly ActorMappingEntry[],
  tokens: readonly { name: string; role: Role }[],
): ResolvedActorMapping {
  const roles = new Map(tokens.map((t) => [t.name, t.role]));
  const unknown = new Set<string>();
  const entries = mapping.map((e) => {
    const role = roles.get(e.principal) ?? null;
    if (role === null) unknown.add(e.principal);
    return { ...e, role };
  });
  return { entries, unknownPrincipals: [...unknown].sort() };
}

/** The startup warning for principals the tokens file does not hold, or null when there are none. */
export function unknownPrincipalsWarning(resolved: ResolvedActorMapping): string | null {
  if (resolved.unknownPrincipals.length === 0) return null;
  return `AITIA_INTEGRATIONS_FILE actors: no token is named ${resolved.unknownPrincipals.map((p) => JSON.stringify(p)).join(', ')}; their provider identities are not recognised as an agent's or an operator's until such a token exists (aitia tokens add --name …)`;
}

/**
 * How a narrative names the identity, the provider's text as data (bare when a plain word, else
 * quoted): `Proxmox token rhodes@pve!ops`, `Proxmox user alice@pve`, `vCenter user "VSPHERE.LOCAL\\svc"`.
 */
export function describeActorIdentity(provider: ActorProvider, actor: string): string {
  if (provider === 'proxmox') return `${actor.includes('!') ? 'Proxmox token' : 'Proxmox user'} ${providerWord(actor)}`;
  return `vCenter user ${providerWord(actor)}`;
}
