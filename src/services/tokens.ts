import { existsSync } from 'node:fs';
import { DateTime } from 'luxon';
import { writeAudit } from '../graph/audit.js';
import { badInput, isoZoneProblem, type Role, RoleSchema, ROLES } from '../model/index.js';
import { audited } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';
import { isExpired, ownerOf, type TokenEntry, type TokenStore } from './token-store.js';

/**
 * Bearer tokens, managed live: they live in the tokens file (AITIA_TOKENS_FILE), which the service
 * re-reads when it changes, so `aitia tokens …`, `docker compose run … tokens add` and these
 * operations all act on the same list, without a restart. Every change is audited; a request with
 * an expired token is refused, logged and counted.
 */

/** A token as operators see it: never the token, never its hash. */
export interface TokenInfo {
  name: string;
  role: Role;
  /** The person it belongs to: approvals compare requester and approver by it. */
  owner: string;
  /** The person who created it; null for tokens written before aitia recorded it. */
  createdBy: string | null;
  createdAt: string | null;
  expiresAt: string | null;
  expired: boolean;
  /** Requests refused since the service started because the token had expired. */
  expiredRefusals: number;
  lastExpiredRefusalAt: string | null;
}

/** Who `aitia tokens` acts as in the audit log: the local account that ran it (it can write the tokens file). */
export function cliPrincipal(user: string): Principal {
  return { name: `cli:${user}`, role: 'operator' };
}

/** What the service itself acts as when it creates the first tokens of a new data dir. */
export const FIRST_START: Principal = { name: 'aitia (first start)', role: 'operator' };

function storeOf(deps: Pick<ServiceDeps, 'tokens'>): TokenStore {
  if (!deps.tokens) throw new Error('token operations need deps.tokens (the tokens file)');
  return deps.tokens;
}

function infoOf(store: TokenStore, entry: TokenEntry): TokenInfo {
  const refusals = store.expiredRefusals(entry.name);
  return {
    name: entry.name,
    role: entry.role,
    owner: ownerOf(entry),
    createdBy: entry.createdBy ?? null,
    createdAt: entry.createdAt ?? null,
    expiresAt: entry.expiresAt ?? null,
    expired: isExpired(entry, store.now()),
    expiredRefusals: refusals.count,
    lastExpiredRefusalAt: refusals.lastAt,
  };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

export interface CreateTokenInput {
  name: string;
  role: string;
  expiresAt?: string | null | undefined;
  /** The person it belongs to; see ownerFor for the default. */
  owner?: string | null | undefined;
}

const NAME_RULE = "1–128 letters, digits, '.', '_', '@' or '-', starting with a letter or digit";

/** The input checked: each refusal names its field (`input.name`, `input.role`, `input.owner`, `input.expiresAt`). */
export function parseCreateTokenInput(
  input: CreateTokenInput,
  now: Date,
): { name: string; role: Role; expiresAt: string | undefined; owner: string | undefined } {
  if (typeof input.name !== 'string' || !NAME.test(input.name))
    throw badInput('input.name', `${JSON.stringify(input.name)} is not a token name: ${NAME_RULE}`);
  const role = RoleSchema.safeParse(input.role);
  if (!role.success) throw badInput('input.role', `must be one of ${ROLES.join(', ')}`);
  const owner = input.owner ?? undefined;
  if (owner !== undefined && (typeof owner !== 'string' || !NAME.test(owner)))
    throw badInput('input.owner', `${JSON.stringify(owner)} is not a person's name: ${NAME_RULE}`);
  const base = { name: input.name, role: role.data, owner };
  if (input.expiresAt === undefined || input.expiresAt === null) return { ...base, expiresAt: undefined };
  const at = DateTime.fromISO(input.expiresAt, { setZone: true });
  if (!at.isValid)
    throw badInput('input.expiresAt', `${JSON.stringify(input.expiresAt)} is not ISO-8601 (e.g. 2026-12-31T00:00:00Z)`);
  const zone = isoZoneProblem(input.expiresAt);
  if (zone) throw badInput('input.expiresAt', zone);
  const nowIso = DateTime.fromJSDate(now).toUTC().toISO({ suppressMilliseconds: true });
  if (at.toMillis() <= now.getTime()) throw badInput('input.expiresAt', `must be in the future (it is ${nowIso} now)`);
  return { ...base, expiresAt: at.toUTC().toISO({ suppressMilliseconds: true })! };
}

/** Who a principal is as a person: its token's owner (else the token itself), and who created its token. */
export interface Person {
  person: string;
  createdBy: string | null;
  /** True when the principal is a token of the tokens file (not the CLI or the service itself). */
  token: boolean;
}

/** The person behind a principal, read from the tokens file: a principal that is no token is its own person. */
export function personOf(deps: Pick<ServiceDeps, 'tokens'>, principal: Principal): Person {
  const entry = deps.tokens?.entry(principal.name) ?? null;
  if (entry === null || entry.role !== principal.role) return { person: principal.name, createdBy: null, token: false };
  return { person: ownerOf(entry), createdBy: entry.createdBy ?? null, token: true };
}

/** Whether two names are the same person (names compare without regard to case). */
export function samePerson(a: string | null | undefined, b: string | null | undefined): boolean {
  return a != null && b != null && a.toLowerCase() === b.toLowerCase();
}

/**
 * The owner a new token gets: the one asked for; else an operator token that an operator creates
 * with their own token is theirs (a second token of the same person); else the token is its own
 * person (the CLI and first start provision tokens for others).
 */
function ownerFor(creator: Person, parsed: { name: string; role: Role; owner: string | undefined }): string {
  if (parsed.owner !== undefined) return parsed.owner;
  return creator.token && parsed.role === 'operator' ? creator.person : parsed.name;
}

/** Every token (operators): name, role, created, expires, and refusals since it expired. */
export function listTokens(deps: Pick<ServiceDeps, 'tokens'>, principal: Principal): TokenInfo[] {
  assertCan(principal, 'token:read');
  const store = storeOf(deps);
  return store.list().map((e) => infoOf(store, e));
}

/** Adds a token (operators; audited) and returns it this once: only its SHA-256 is stored. */
export function createToken(
  deps: ServiceDeps,
  principal: Principal,
  input: CreateTokenInput,
): Promise<{ token: string; tokenInfo: TokenInfo }> {
  return audited(
    deps,
    principal,
    'createToken',
    [`token:${input.name}`],
    async () => {
      assertCan(principal, 'token:manage');
      const store = storeOf(deps);
      const parsed = parseCreateTokenInput(input, store.now());
      const creator = personOf(deps, principal);
      const { token, entry } = store.add(
        { ...parsed, owner: ownerFor(creator, parsed), createdBy: creator.person },
        'input.name',
      );
      return { token, tokenInfo: infoOf(store, entry) };
    },
    ({ tokenInfo: t }) =>
      `role ${t.role}${t.owner === t.name ? '' : `, owner ${t.owner}`}, ${t.expiresAt ? `expires ${t.expiresAt}` : 'no expiry'}`,
    // The token is made here, never asked for: the arguments hold no secret (redacted all the same).
    { args: input },
  );
}

/** Removes a token (operators; audited): the next request with it is refused with HTTP 401. */
export function revokeToken(deps: ServiceDeps, principal: Principal, input: { name: string }): Promise<TokenInfo> {
  return audited(
    deps,
    principal,
    'revokeToken',
    [`token:${input.name}`],
    async () => {
      assertCan(principal, 'token:manage');
      const store = storeOf(deps);
      return infoOf(store, store.revoke(input.name, 'name'));
    },
    (t) => `role ${t.role}`,
    { args: input },
  );
}

/**
 * A request came with a token past its expiry: it has no principal, so it is logged and counted
 * (`tokens { expiredRefusals }`); the first refusal of each token in this process also goes to the
 * audit log. Returns the message for the 401, which names the expiry.
 */
export async function refuseExpiredToken(deps: ServiceDeps, entry: TokenEntry): Promise<string> {
  const store = storeOf(deps);
  const { count, first } = store.noteExpiredRefusal(entry.name);
  const message = `bearer token ${entry.name} expired at ${entry.expiresAt}; ask an operator for a new one`;
  deps.log.warn(
    { token: entry.name, role: entry.role, expiresAt: entry.expiresAt, refusals: count },
    'expired bearer token refused',
  );
  if (first) {
    await writeAudit(deps.driver, {
      principal: entry.name,
      role: entry.role,
      operation: 'authenticate',
      targetIds: [`token:${entry.name}`],
      outcome: 'refused',
      detail: `UNAUTHENTICATED: ${message} (later refusals are counted in tokens { expiredRefusals } and logged)`,
    }).catch((err: unknown) => deps.log.error({ err }, 'audit write failed'));
  }
  return message;
}

/**
 * A new data dir's first tokens, one per role, created through `createToken` (so audited) when
 * the tokens file does not exist yet; null when it does. The tokens are returned to be shown once.
 */
export async function createFirstTokens(deps: ServiceDeps, prefix: string): Promise<Record<Role, string> | null> {
  if (existsSync(storeOf(deps).path)) return null;
  const tokens: Partial<Record<Role, string>> = {};
  for (const role of ROLES) {
    tokens[role] = (await createToken(deps, FIRST_START, { name: `${prefix}-${role}`, role })).token;
  }
  return tokens as Record<Role, string>;
}
