import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { AitiaError, ConfigError, describeZodIssues, type Role, RoleSchema } from '../model/index.js';
import { assertPrivateFile } from '../model/private-files.js';
import { withFileLock } from './file-lock.js';
import type { Principal } from './permissions.js';

const IsoDateTime = z.iso.datetime({
  offset: true,
  message: 'must be an ISO-8601 date-time, e.g. 2026-12-31T00:00:00Z',
});

/** One token in the tokens file. The token itself is never stored, only its SHA-256. */
export const TokenEntrySchema = z.object({
  name: z.string().min(1).max(128),
  role: RoleSchema,
  tokenSha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be the hex SHA-256 of the token'),
  /** When it was added (absent in files written before aitia recorded it). */
  createdAt: IsoDateTime.optional(),
  /** After this instant the token is refused. */
  expiresAt: IsoDateTime.optional(),
  /** The person it belongs to (absent: the token is its own person, its name). */
  owner: z.string().min(1).max(128).optional(),
  /** The person who created it (absent in files written before aitia recorded it). */
  createdBy: z.string().min(1).max(200).optional(),
});
export type TokenEntry = z.infer<typeof TokenEntrySchema>;

/** The tokens file: `[{ "name", "role", "tokenSha256", "createdAt"?, "expiresAt"?, "owner"?, "createdBy"? }]`, names unique. */
export const TokensFileSchema = z.array(TokenEntrySchema).superRefine((entries, ctx) => {
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (seen.has(e.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${e.name} is used twice` });
    seen.add(e.name);
  });
});

const WHAT = 'the tokens file (AITIA_TOKENS_FILE)';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Reads and validates the tokens file, which must be owner-only; errors name the file, the entry and the field. */
export function readTokensFile(path: string): TokenEntry[] {
  let json: unknown;
  try {
    // Docker leaves a directory where a bind-mounted file did not exist yet: say so plainly.
    if (statSync(path).isDirectory()) throw new Error('is a directory, not a file; remove it and add a token again');
    assertPrivateFile(path, WHAT);
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`tokens file ${path}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = TokensFileSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError(`tokens file ${path}: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** Identifies one version of the file (a rename gives a new inode, an edit a new mtime or size); null when absent. */
function fileSignature(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Writes the file owner-only (0600): to a temporary file beside it, then renamed into place, so a
 * reader never sees half a file. Where the rename cannot replace it (a file bind-mounted on its own
 * in Docker), it is rewritten in place.
 */
function writeTokensFile(path: string, entries: readonly TokenEntry[]): void {
  const text = JSON.stringify(entries, null, 2) + '\n';
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(tmp, path);
  } catch (err) {
    if (!['EBUSY', 'EXDEV', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    writeFileSync(path, text, { mode: 0o600 });
    chmodSync(path, 0o600);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** What a bearer token stands for: a principal, nothing (unknown), or a known token past its expiry. */
export type TokenCheck =
  | { ok: true; principal: Principal; entry: TokenEntry }
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'expired'; entry: TokenEntry };

export interface TokenStoreOptions {
  /** Reports changes made to the file by others (the CLI, an editor) and files it refuses to read. */
  log?: Pick<Logger, 'info' | 'error'>;
  /** How often, at most, a request checks the file for changes (default 500 ms). */
  recheckMs?: number;
  now?: () => Date;
}

/**
 * The tokens file, live: maps bearer tokens to principals and re-reads the file when it changes
 * (checked at most every 500 ms, so a token revoked by `aitia tokens revoke` in another process is
 * refused within a second). Changes made through the store apply at once. Every entry is compared
 * in constant time and without an early exit, so timing does not reveal which hash prefix matched.
 */
export class TokenStore {
  private entries: TokenEntry[] = [];
  /** The version of the file `entries` came from: null when it was absent, undefined before the first read. */
  private signature: string | null | undefined = undefined;
  private checkedAt = 0;
  private lastError: string | null = null;
  private readonly refusals = new Map<string, { count: number; lastAt: string }>();
  private readonly recheckMs: number;
  readonly now: () => Date;

  constructor(
    readonly path: string,
    private readonly options: TokenStoreOptions = {},
  ) {
    this.recheckMs = options.recheckMs ?? 500;
    this.now = options.now ?? (() => new Date());
    this.load();
    this.checkedAt = Date.now();
  }

  /** Reads the file if its version changed; a missing file holds no tokens. */
  private load(): { added: string[]; removed: string[]; changed: string[] } | null {
    const signature = fileSignature(this.path);
    if (signature === this.signature) return null;
    const next = signature === null ? [] : readTokensFile(this.path);
    const before = new Map(this.entries.map((e) => [e.name, e]));
    const after = new Map(next.map((e) => [e.name, e]));
    this.entries = next;
    this.signature = signature;
    return {
      added: [...after.keys()].filter((n) => !before.has(n)),
      removed: [...before.keys()].filter((n) => !after.has(n)),
      changed: [...after]
        .filter(([n, e]) => before.has(n) && JSON.stringify(before.get(n)) !== JSON.stringify(e))
        .map(([n]) => n),
    };
  }

  /**
   * Picks up changes others made to the file (at most every `recheckMs` unless forced). A file that
   * does not parse or is no longer private is refused and logged once; the last good tokens stay,
   * so a broken edit does not lock everyone out.
   */
  refresh(force = false): void {
    const now = Date.now();
    if (!force && now - this.checkedAt < this.recheckMs) return;
    this.checkedAt = now;
    try {
      const change = this.load();
      this.lastError = null;
      if (change && change.added.length + change.removed.length + change.changed.length > 0)
        this.options.log?.info({ tokensFile: this.path, ...change }, 'tokens file changed: re-read');
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.lastError)
        this.options.log?.error(
          { tokensFile: this.path, err: message },
          'tokens file not re-read; the last good tokens stay in force',
        );
      this.lastError = message;
    }
  }

  /** What a bearer token stands for now. */
  check(token: string): TokenCheck {
    this.refresh();
    const given = Buffer.from(sha256Hex(token), 'hex');
    let found: TokenEntry | null = null;
    for (const e of this.entries) {
      if (timingSafeEqual(given, Buffer.from(e.tokenSha256, 'hex')) && !found) found = e;
    }
    if (!found) return { ok: false, reason: 'unknown' };
    if (isExpired(found, this.now())) return { ok: false, reason: 'expired', entry: found };
    return { ok: true, principal: { name: found.name, role: found.role }, entry: found };
  }

  /** The principal a bearer token stands for, or null (unknown or expired). */
  authenticate(token: string): Principal | null {
    const result = this.check(token);
    return result.ok ? result.principal : null;
  }

  /** The entry named `name` as the file holds it now, or null. */
  entry(name: string): TokenEntry | null {
    this.refresh();
    return this.entries.find((e) => e.name === name) ?? null;
  }

  /** Every entry, as the file holds it now. */
  list(): TokenEntry[] {
    this.refresh(true);
    return [...this.entries];
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * Read-modify-write of the file under its lock, from the file as it is now (not this process's
   * copy); the result is in force in this process at once.
   */
  update<T>(change: (entries: readonly TokenEntry[]) => { entries: TokenEntry[]; result: T }): T {
    this.refresh(true);
    return withFileLock(this.path, 'tokens file', () => {
      const current = fileSignature(this.path) === null ? [] : readTokensFile(this.path);
      const { entries, result } = change(current);
      writeTokensFile(this.path, entries);
      this.entries = entries;
      this.signature = fileSignature(this.path);
      return result;
    });
  }

  /** Adds a token and returns it (shown once; only its hash is kept). `field` names the name in errors. */
  add(
    input: {
      name: string;
      role: Role;
      expiresAt?: string | undefined;
      owner?: string | undefined;
      createdBy?: string | undefined;
    },
    field = 'name',
  ): { token: string; entry: TokenEntry } {
    const token = newToken(input.role);
    const entry: TokenEntry = {
      name: input.name,
      role: input.role,
      tokenSha256: sha256Hex(token),
      createdAt: isoSeconds(this.now()),
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
      // A token that is its own person stays as older files wrote it: no owner field.
      ...(input.owner && input.owner !== input.name ? { owner: input.owner } : {}),
      ...(input.createdBy ? { createdBy: input.createdBy } : {}),
    };
    this.update((entries) => {
      if (entries.some((e) => e.name === input.name))
        throw new AitiaError(
          'CONFLICT',
          `${field}: a token named ${input.name} already exists; revoke it first or pick another name`,
          { field },
        );
      return { entries: [...entries, entry], result: null };
    });
    return { token, entry };
  }

  /** Removes the token named `name`: the next request with it is refused. Returns the removed entry. */
  revoke(name: string, field = 'name'): TokenEntry {
    return this.update((entries) => {
      const found = entries.find((e) => e.name === name);
      if (!found)
        throw new AitiaError(
          'NOT_FOUND',
          `${field}: no token named ${name} (known: ${entries.map((e) => e.name).join(', ') || 'none'})`,
          {
            field,
          },
        );
      return { entries: entries.filter((e) => e !== found), result: found };
    });
  }

  /** Counts a request refused because the token expired; `first` is true the first time in this process. */
  noteExpiredRefusal(name: string): { count: number; first: boolean } {
    const seen = this.refusals.get(name);
    const count = (seen?.count ?? 0) + 1;
    this.refusals.set(name, { count, lastAt: isoSeconds(this.now()) });
    return { count, first: !seen };
  }

  /** Requests refused with this (expired) token since the process started. */
  expiredRefusals(name: string): { count: number; lastAt: string | null } {
    const seen = this.refusals.get(name);
    return { count: seen?.count ?? 0, lastAt: seen?.lastAt ?? null };
  }
}

/** An instant in UTC to the second, as the tokens file and the list show it: 2026-05-14T02:00:00Z. */
export function isoSeconds(at: Date): string {
  return new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The person a token belongs to: its owner, else the token itself (its name). */
export function ownerOf(entry: Pick<TokenEntry, 'name' | 'owner'>): string {
  return entry.owner ?? entry.name;
}

export function isExpired(entry: TokenEntry, now: Date): boolean {
  return entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now.getTime();
}

/** A new random bearer token, prefixed with its role so a leaked one is recognisable. */
export function newToken(role: Role): string {
  return `aitia_${role}_${randomBytes(24).toString('base64url')}`;
}

/**
 * Adds a token to the file directly, without an audit line: for setup code (tests, benchmarks).
 * Operators' changes go through `createToken` in services/tokens.ts, which audits them.
 */
export function addToken(path: string, name: string, role: Role, expiresAt?: string): string {
  return new TokenStore(path).add({ name, role, expiresAt }).token;
}
