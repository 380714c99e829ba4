import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import { serveCommand } from '../../../src/cli/serve.js';
import { tokensCommand } from '../../../src/cli/tokens.js';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { openGraph } from '../../../src/graph/db/driver.js';
import { ensureEmbeddedPassword } from '../../../src/graph/embedded/password.js';
import { createLogger } from '../../../src/log.js';
import {
  assertPrivateDir,
  assertPrivateFile,
  ensurePrivateDir,
  privacyProblem,
  shellQuote,
} from '../../../src/model/private-files.js';
import { addToken } from '../../../src/services/token-store.js';

const root = mkdtempSync(join(tmpdir(), 'aitia-private-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const d = join(root, `d${n++}`);
  mkdirSync(d, { mode: 0o700 });
  return d;
};
const fileWith = (mode: number, text = 'secret-secret\n') => {
  const path = join(fresh(), 'secret');
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
};
const errorOf = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('did not throw');
};

/** A CLI context whose graph must not be opened. */
function ctxFor(env: Record<string, string>): { ctx: CliContext; printed: string[]; opened: () => boolean } {
  let opened = false;
  const printed: string[] = [];
  const ctx: CliContext = {
    config: loadConfig(env),
    log: createLogger('silent'),
    openGraph: async () => {
      opened = true;
      throw new Error('must not be reached');
    },
    print: (line) => printed.push(line),
  };
  return { ctx, printed, opened: () => opened };
}

describe('files that hold secrets are private', () => {
  it.each([
    [0o644, 'group and others can read it'],
    [0o640, 'group can read it'],
    [0o602, 'others can write it'],
    [0o666, 'group and others can read and write it'],
  ])('a file with mode %s is refused, naming the path and the chmod that fixes it', (mode, access) => {
    const path = fileWith(mode);
    const err = errorOf(() => assertPrivateFile(path, 'the tokens file'));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(
      `the tokens file ${path} is not private (mode 0${mode.toString(8)}: ${access}); it holds secrets, so aitia will not use it until only its owner can: chmod 600 ${path}`,
    );
  });

  it('owner-only files and folders pass; a missing one is for the caller to judge', () => {
    expect(() => assertPrivateFile(fileWith(0o600), 'x')).not.toThrow();
    expect(() => assertPrivateFile(fileWith(0o400), 'x')).not.toThrow();
    expect(() => assertPrivateDir(fresh(), 'x')).not.toThrow();
    expect(privacyProblem(join(root, 'absent'), 'x')).toBeNull();
  });

  it('a folder open to others is refused with chmod 700; ensurePrivateDir creates missing ones 0700', () => {
    const open = fresh();
    chmodSync(open, 0o755);
    expect(errorOf(() => ensurePrivateDir(open, 'the data dir (AITIA_DATA_DIR)')).message).toBe(
      `the data dir (AITIA_DATA_DIR) ${open} is not private (mode 0755: group and others can read it); it holds secrets, so aitia will not use it until only its owner can: chmod 700 ${open}`,
    );
    const created = join(fresh(), 'a', 'b');
    ensurePrivateDir(created, 'x');
    expect(statSync(created).mode & 0o777).toBe(0o700);
    expect(statSync(join(created, '..')).mode & 0o777).toBe(0o700);
  });

  it('quotes a path for the shell when it has to, so the printed chmod can be pasted', () => {
    expect(shellQuote('/data/tokens.json')).toBe('/data/tokens.json');
    expect(shellQuote("/my data/it's.json")).toBe(`'/my data/it'\\''s.json'`);
  });
});

describe('the embedded Neo4j password', () => {
  it('is generated once: 32 random characters in a 0600 file, in a folder created 0700', () => {
    const file = join(fresh(), 'data', 'neo4j.password');
    const password = ensureEmbeddedPassword(file);
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(ensureEmbeddedPassword(file)).toBe(password);
    expect(readFileSync(file, 'utf8')).toBe(`${password}\n`);
  });

  it('a password file others can read is refused with chmod 600', () => {
    const file = fileWith(0o644, 'a-long-enough-password\n');
    const err = errorOf(() => ensureEmbeddedPassword(file));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(`the embedded Neo4j password file ${file} is not private (mode 0644`);
    expect(err.message).toMatch(new RegExp(`chmod 600 ${file}$`));
  });

  it('a password that is too short is refused, saying how to get a new one', () => {
    const file = fileWith(0o600, 'short\n');
    expect(errorOf(() => ensureEmbeddedPassword(file)).message).toMatch(
      /must hold one line of 8 or more characters; delete it and aitia generates a new password/,
    );
  });

  it('openGraph refuses a data dir others can read before starting anything', async () => {
    const dataDir = fresh();
    chmodSync(dataDir, 0o755);
    const err = (await openGraph({ external: undefined, dataDir }, () => {}).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(new RegExp(`^the data dir \\(AITIA_DATA_DIR\\) ${dataDir} is not private .*chmod 700 ${dataDir}$`));
    expect(existsSync(join(dataDir, 'neo4j.password'))).toBe(false);
  });
});

describe('aitia refuses to start on a tokens file others can read or write', () => {
  it('serve: names the file and the chmod, before opening the graph', async () => {
    const dataDir = fresh();
    const tokensFile = join(dataDir, 'tokens.json');
    addToken(tokensFile, 'admin', 'operator');
    chmodSync(tokensFile, 0o644);
    const { ctx, opened } = ctxFor({ AITIA_DATA_DIR: dataDir, AITIA_TOKENS_FILE: tokensFile, AITIA_PORT: '1' });
    const err = (await serveCommand.run([], ctx).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(
      `the tokens file (AITIA_TOKENS_FILE) ${tokensFile} is not private (mode 0644: group and others can read it); it holds secrets, so aitia will not use it until only its owner can: chmod 600 ${tokensFile}`,
    );
    expect(opened()).toBe(false);
  });

  it('aitia tokens list refuses it too', async () => {
    const tokensFile = join(fresh(), 'tokens.json');
    addToken(tokensFile, 'admin', 'operator');
    chmodSync(tokensFile, 0o660);
    const { ctx } = ctxFor({ AITIA_TOKENS_FILE: tokensFile });
    await expect(tokensCommand.run(['list'], ctx)).rejects.toThrow(`chmod 600 ${tokensFile}`);
  });
});
