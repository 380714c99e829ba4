import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { describeZodIssues, type Role, RoleSchema } from '../model/index.js';
import type { Principal } from '../services/permissions.js';

/** The tokens file: `[{ "name", "role", "tokenSha256" }]`. Tokens themselves are never stored. */
export const TokensFileSchema = z.array(
  z.object({
    name: z.string().min(1).max(128),
    role: RoleSchema,
    tokenSha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be the hex SHA-256 of the token'),
  }),
);
export type TokenEntry = z.infer<typeof TokensFileSchema>[number];

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Reads and validates the tokens file; errors name the entry and field. */
export function readTokensFile(path: string): TokenEntry[] {
  let json: unknown;
  try {
    // Docker leaves a directory where a bind-mounted file did not exist yet: say so plainly.
    if (statSync(path).isDirectory()) throw new Error('is a directory, not a file; remove it and add a token again');
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`tokens file ${path}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = TokensFileSchema.safeParse(json);
  if (!parsed.success) throw new Error(`tokens file ${path}: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * Maps bearer tokens to principals. Every entry is compared (constant time per entry, and no early
 * exit) so timing does not reveal which hash prefix matched. The file is re-read when it changes.
 */
export class TokenStore {
  private entries: TokenEntry[] = [];
  private mtimeMs = -1;
  private checkedAt = 0;

  constructor(private readonly path: string) {
    this.reload();
  }

  private reload(): void {
    const mtime = statSync(this.path).mtimeMs;
    if (mtime !== this.mtimeMs) {
      this.entries = readTokensFile(this.path);
      this.mtimeMs = mtime;
    }
  }

  /** The principal a bearer token stands for, or null. */
  authenticate(token: string): Principal | null {
    const now = Date.now();
    if (now - this.checkedAt > 1000) {
      this.checkedAt = now;
      try {
        this.reload();
      } catch {
        // Keep serving with the last good file; a broken edit must not lock everyone out.
      }
    }
    const given = Buffer.from(sha256Hex(token), 'hex');
    let found: TokenEntry | null = null;
    for (const e of this.entries) {
      if (timingSafeEqual(given, Buffer.from(e.tokenSha256, 'hex')) && !found) found = e;
    }
    return found ? { name: found.name, role: found.role } : null;
  }

  get size(): number {
    return this.entries.length;
  }
}

/** A new random bearer token, prefixed with its role so a leaked one is recognisable. */
export function newToken(role: Role): string {
  return `aitia_${role}_${randomBytes(24).toString('base64url')}`;
}

/** Adds a token for `name`/`role` to the file (created with mode 600) and returns the token once. */
export function addToken(path: string, name: string, role: Role): string {
  const entries = existsSync(path) ? readTokensFile(path) : [];
  if (entries.some((e) => e.name === name))
    throw new Error(`tokens file ${path}: a token named ${name} already exists`);
  const token = newToken(role);
  entries.push({ name, role, tokenSha256: sha256Hex(token) });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(entries, null, 2) + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

/**
 * On the embedded default with no tokens file yet: creates one with a token per role and returns
 * them, so `npm start` can print the agent and operator tokens once.
 */
export function ensureDevTokens(path: string, prefix = 'dev'): Record<Role, string> | null {
  if (existsSync(path)) return null;
  const roles: Role[] = ['agent', 'operator', 'scheduler', 'ingester'];
  return Object.fromEntries(roles.map((role) => [role, addToken(path, `${prefix}-${role}`, role)])) as Record<
    Role,
    string
  >;
}
