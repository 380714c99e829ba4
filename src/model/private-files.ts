import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from './errors.js';

/**
 * The rule for files and folders that hold secrets (the embedded Neo4j's password, the tokens file,
 * later a sources file with credentials): only their owner may read or write them. Shared by every
 * layer, like ConfigError: aitia refuses to start on a breach and names the `chmod` that fixes it.
 */

/** A path quoted for a POSIX shell when it needs it, so the printed command can be pasted as it is. */
export function shellQuote(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** "group and others can read and write" for the bits a private file or folder must not have. */
function describeAccess(mode: number): string {
  const who = [(mode & 0o070) !== 0 ? 'group' : null, (mode & 0o007) !== 0 ? 'others' : null].filter(Boolean);
  const what = [(mode & 0o044) !== 0 ? 'read' : null, (mode & 0o022) !== 0 ? 'write' : null].filter(Boolean);
  const verbs = what.length > 0 ? what.join(' and ') : 'enter';
  return `${who.join(' and ')} can ${verbs}`;
}

/**
 * Why `path` is not private, or null when only its owner has access (or it does not exist: the
 * caller decides whether that is an error). `what` names it in the message: "the tokens file".
 */
export function privacyProblem(path: string, what: string, kind: 'file' | 'dir' = 'file'): string | null {
  if (process.platform === 'win32') return null;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return null;
  }
  const exposed = mode & 0o077;
  if (exposed === 0) return null;
  const fix = kind === 'dir' ? 700 : 600;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return (
    `${what} ${path} is not private (mode ${octal}: ${describeAccess(exposed)} it); it holds secrets, so aitia ` +
    `will not use it until only its owner can: chmod ${fix} ${shellQuote(path)}`
  );
}

/** Throws a ConfigError naming the path and the `chmod 600` that fixes it when group or others have access. */
export function assertPrivateFile(path: string, what: string): void {
  const problem = privacyProblem(path, what, 'file');
  if (problem) throw new ConfigError(problem);
}

/** Throws a ConfigError naming the folder and the `chmod 700` that fixes it when group or others have access. */
export function assertPrivateDir(path: string, what: string): void {
  const problem = privacyProblem(path, what, 'dir');
  if (problem) throw new ConfigError(problem);
}

/** Creates the folder owner-only (0700) when it is missing; an existing one must already be private. */
export function ensurePrivateDir(path: string, what: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  assertPrivateDir(path, what);
}

/**
 * Writes `text` to `path` owner-only (0600): into a new file beside it (created exclusively, so
 * nothing another account prepared is reused), then renamed into place. A file already there is
 * replaced, a symlink there is replaced rather than followed; a directory there is refused.
 */
export function writePrivateFile(path: string, text: string, what: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    if (statSync(path).isDirectory()) throw new ConfigError(`${what} ${path} is a directory, not a file; remove it`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tmp = join(dirname(path), `.${randomBytes(8).toString('hex')}.tmp`);
  writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}
