import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { takeOverStaleLock, withFileLock } from '../../../src/services/file-lock.js';
import { readTokensFile } from '../../../src/services/token-store.js';
import { builtCli } from '../../support/cli.js';
import { tempDirs } from '../../support/temp.js';

/*
 * Issue 30 finding 13: a stale lock is taken over atomically. A taker that judged a lock stale
 * never deletes the fresh lock another process took meanwhile, and processes racing to take over
 * one stale lock still change the file one at a time (no token is lost).
 */

const tempDir = tempDirs();

/** A lock file left a minute ago by a process that died. */
function staleLock(lock: string): void {
  writeFileSync(lock, 'dead:1');
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
}

describe('stale lock takeover', () => {
  it('removes the lock judged stale when it is still that one', () => {
    const lock = join(tempDir('aitia-lock'), 'f.lock');
    staleLock(lock);
    expect(takeOverStaleLock(lock, statSync(lock))).toBe(true);
    expect(readdirSync(dirname(lock))).toEqual([]);
  });

  it('leaves a fresh lock taken after the judgement in place, with its owner', () => {
    const lock = join(tempDir('aitia-lock'), 'f.lock');
    staleLock(lock);
    const judged = statSync(lock);
    // Meanwhile another process took it over and holds a fresh lock of its own.
    unlinkSync(lock);
    writeFileSync(lock, 'alive:2');
    expect(takeOverStaleLock(lock, judged)).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe('alive:2');
    expect(readdirSync(dirname(lock))).toEqual(['f.lock']);
  });

  it('a holder whose lock was taken over does not remove the new holder’s lock', () => {
    const file = join(tempDir('aitia-lock'), 'f.json');
    withFileLock(file, 'test file', () => {
      // Taken over while held (as if this process had stalled past the stale age).
      unlinkSync(`${file}.lock`);
      writeFileSync(`${file}.lock`, 'other:3');
    });
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe('other:3');
  });

  it('many processes racing over one stale lock add every token', async () => {
    const file = join(tempDir('aitia-lock'), 'tokens.json');
    const store = pathToFileURL(join(dirname(await builtCli()), 'services', 'token-store.js')).href;
    writeFileSync(file, '[]\n', { mode: 0o600 });
    staleLock(`${file}.lock`);
    const n = 8;
    const at = Date.now() + 1500;
    const script = `import { addToken } from ${JSON.stringify(store)};
      const [file, name, at] = process.argv.slice(1);
      while (Date.now() < Number(at));
      addToken(file, name, 'agent');`;
    const codes = await Promise.all(
      Array.from(
        { length: n },
        (_, i) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script, file, `p${i}`, String(at)], {
              stdio: ['ignore', 'ignore', 'inherit'],
            });
            child.on('exit', resolve);
          }),
      ),
    );
    expect(codes).toEqual(Array(n).fill(0));
    expect(
      readTokensFile(file)
        .map((e) => e.name)
        .sort(),
    ).toEqual(Array.from({ length: n }, (_, i) => `p${i}`).sort());
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 60_000);
});
