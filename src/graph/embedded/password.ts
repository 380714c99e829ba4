import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { assertPrivateDir, assertPrivateFile, ensurePrivateDir } from '../../model/private-files.js';

/** The one Neo4j user the embedded launcher sets up. */
export const EMBEDDED_USER = 'neo4j';

const WHAT = 'the embedded Neo4j password file';
const FOLDER = 'the folder of the embedded Neo4j password file';

/**
 * Reads the embedded Neo4j's password. The file and the folder it is in must be owner-only (the
 * folder holds the store as well): otherwise a ConfigError names the path and the `chmod` that fixes it.
 */
export function readEmbeddedPassword(file: string): string {
  assertPrivateDir(dirname(file), FOLDER);
  assertPrivateFile(file, WHAT);
  const password = readFileSync(file, 'utf8').trim();
  if (password.length < 8 || password.includes('\n')) {
    throw new ConfigError(
      `${WHAT} ${file} must hold one line of 8 or more characters; delete it and aitia generates a new password at the next start`,
    );
  }
  return password;
}

/**
 * The embedded Neo4j's password: read from `file`, or generated there on first start (32 random
 * characters, mode 0600, in a folder created 0700). The launcher sets it on the `neo4j` user.
 */
export function ensureEmbeddedPassword(file: string): string {
  if (!existsSync(file)) {
    ensurePrivateDir(dirname(file), FOLDER);
    // Written aside, then linked into place: a second process starting at the same moment never
    // reads a half-written file, and whichever link comes second keeps the first one's password.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, randomBytes(24).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  return readEmbeddedPassword(file);
}
