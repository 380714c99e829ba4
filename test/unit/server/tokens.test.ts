import { mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenStore, addToken, readTokensFile } from '../../../src/server/tokens.js';

describe('tokens file', () => {
  it('is created private (0600) with the hash only, and the token authenticates', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'aitia-tokens-')), 'config', 'tokens.json');
    const token = addToken(file, 'admin', 'operator');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(readTokensFile(file))).not.toContain(token);
    expect(new TokenStore(file).authenticate(token)).toEqual({ name: 'admin', role: 'operator' });
  });

  it('a directory where the file should be (as Docker leaves one) is named as such', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'aitia-tokens-')), 'tokens.json');
    mkdirSync(dir);
    expect(() => readTokensFile(dir)).toThrow(`tokens file ${dir}: is a directory, not a file`);
    expect(() => addToken(dir, 'admin', 'operator')).toThrow('is a directory');
  });
});
