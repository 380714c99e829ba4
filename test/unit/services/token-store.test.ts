import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../support/temp.js';
import { TokenStore, addToken, readTokensFile } from '../../../src/services/token-store.js';

const tempDir = tempDirs();
const newFile = () => join(tempDir('aitia-tokens'), 'config', 'tokens.json');

/** A logger that keeps what it is told. */
function recorder() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  return {
    lines,
    log: {
      info: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'info', obj, msg }),
      error: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'error', obj, msg }),
    } as never,
  };
}

describe('tokens file', () => {
  it('is created private (0600, its folder 0700) with the hash only, and the token authenticates', () => {
    const file = newFile();
    const token = addToken(file, 'admin', 'operator');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(JSON.stringify(readTokensFile(file))).not.toContain(token);
    expect(new TokenStore(file).authenticate(token)).toEqual({ name: 'admin', role: 'operator' });
  });

  it('a directory where the file should be (as Docker leaves one) is named as such', () => {
    const dir = join(tempDir('aitia-tokens'), 'tokens.json');
    mkdirSync(dir);
    expect(() => readTokensFile(dir)).toThrow(`tokens file ${dir}: is a directory, not a file`);
    expect(() => addToken(dir, 'admin', 'operator')).toThrow('is a directory');
  });

  it('records when each token was added; entries written before that (no createdAt) still work', () => {
    const file = newFile();
    const token = addToken(file, 'admin', 'operator');
    const [entry] = readTokensFile(file);
    expect(Date.parse(entry!.createdAt!)).toBeGreaterThan(Date.now() - 60_000);
    writeFileSync(file, JSON.stringify([{ name: 'old', role: 'agent', tokenSha256: entry!.tokenSha256 }]), {
      mode: 0o600,
    });
    expect(new TokenStore(file).authenticate(token)).toEqual({ name: 'old', role: 'agent' });
  });

  it('refuses a file that names a token twice or has a malformed expiry, naming the entry and field', () => {
    const file = newFile();
    addToken(file, 'admin', 'operator');
    const [e] = readTokensFile(file);
    writeFileSync(file, JSON.stringify([e, { ...e, expiresAt: 'soon' }]), { mode: 0o600 });
    expect(() => readTokensFile(file)).toThrow(
      `tokens file ${file}: 1.expiresAt: must be an ISO-8601 date-time, e.g. 2026-12-31T00:00:00Z; 1.name: admin is used twice`,
    );
  });

  it('writes by replacing the file (never half a file), leaving no temporary or lock file', () => {
    const file = newFile();
    addToken(file, 'a', 'agent');
    const inode = statSync(file).ino;
    addToken(file, 'b', 'agent');
    expect(statSync(file).ino).not.toBe(inode);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(file, '..'))).toEqual(['tokens.json']);
  });

  it('takes over a lock left by a process that died mid-write', () => {
    const file = newFile();
    addToken(file, 'a', 'agent');
    writeFileSync(`${file}.lock`, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    addToken(file, 'b', 'agent');
    expect(readTokensFile(file).map((e) => e.name)).toEqual(['a', 'b']);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe('the token store follows the file', () => {
  it('a token revoked by another process is refused within a second, without a new store', async () => {
    const file = newFile();
    const token = addToken(file, 'claude', 'agent');
    const { log, lines } = recorder();
    const service = new TokenStore(file, { log });
    expect(service.authenticate(token)).not.toBeNull();
    const revokedAt = Date.now();
    new TokenStore(file).revoke('claude');
    await expect.poll(() => service.authenticate(token), { timeout: 1000, interval: 20 }).toBeNull();
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expect(lines).toEqual([
      {
        level: 'info',
        obj: { tokensFile: file, added: [], removed: ['claude'], changed: [] },
        msg: 'tokens file changed: re-read',
      },
    ]);
  });

  it('a revocation through the store itself applies to the very next request', () => {
    const file = newFile();
    const store = new TokenStore(file, { recheckMs: 60_000 });
    const { token } = store.add({ name: 'claude', role: 'agent' });
    expect(store.authenticate(token)).toEqual({ name: 'claude', role: 'agent' });
    store.revoke('claude');
    expect(store.authenticate(token)).toBeNull();
    expect(() => store.revoke('claude')).toThrow('name: no token named claude (known: none)');
  });

  it('refuses a token past its expiry as expired, not as unknown', () => {
    const file = newFile();
    let now = new Date('2026-05-14T00:00:00Z');
    const store = new TokenStore(file, { now: () => now });
    const { token } = store.add({ name: 'temp', role: 'agent', expiresAt: '2026-05-14T01:00:00Z' });
    expect(store.check(token)).toMatchObject({ ok: true, principal: { name: 'temp' } });
    now = new Date('2026-05-14T01:00:00Z');
    expect(store.check(token)).toMatchObject({ ok: false, reason: 'expired', entry: { name: 'temp' } });
    expect(store.check('aitia_agent_nope')).toEqual({ ok: false, reason: 'unknown' });
    expect(store.authenticate(token)).toBeNull();
  });

  it('keeps the last good tokens when an edit breaks the file or exposes it, and says so once', () => {
    const file = newFile();
    const token = addToken(file, 'admin', 'operator');
    const good = readFileSync(file, 'utf8');
    const { log, lines } = recorder();
    const store = new TokenStore(file, { log, recheckMs: 0 });
    writeFileSync(file, '[{"name": ', { mode: 0o600 });
    expect(store.authenticate(token)).toEqual({ name: 'admin', role: 'operator' });
    expect(store.authenticate(token)).toEqual({ name: 'admin', role: 'operator' });
    expect(lines.map((l) => l.msg)).toEqual(['tokens file not re-read; the last good tokens stay in force']);
    // Mended, but now readable by everyone: refused as well, naming the fix.
    writeFileSync(file, good.replace('"admin"', '"intruder"'));
    chmodSync(file, 0o644);
    expect(store.authenticate(token)).toEqual({ name: 'admin', role: 'operator' });
    expect(String(lines.at(-1)?.obj.err)).toMatch(new RegExp(`is not private .*chmod 600 ${file}$`));
    chmodSync(file, 0o600);
    expect(store.authenticate(token)).toEqual({ name: 'intruder', role: 'operator' });
  });

  it('a missing file holds no tokens', () => {
    const file = newFile();
    const store = new TokenStore(file);
    expect(store.list()).toEqual([]);
    expect(store.authenticate('aitia_agent_x')).toBeNull();
  });
});
