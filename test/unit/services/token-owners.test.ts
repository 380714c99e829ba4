import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownerOf, readTokensFile, sha256Hex, TokenStore } from '../../../src/services/token-store.js';
import { parseCreateTokenInput, personOf, samePerson } from '../../../src/services/tokens.js';
import { tempDirs } from '../../support/temp.js';

/* Issue 30 finding 9: tokens carry the person they belong to; the file's format only gains optional fields. */

const tempDir = tempDirs();
const newFile = () => join(tempDir('aitia-owners'), 'tokens.json');
const NOW = new Date('2026-05-14T02:00:00Z');

describe('token owners in the tokens file', () => {
  it('writes owner and createdBy only when they say something; a token without owner is its own person', () => {
    const file = newFile();
    const store = new TokenStore(file);
    store.add({ name: 'alice-laptop', role: 'operator', owner: 'alice', createdBy: 'alice' });
    store.add({ name: 'bot', role: 'agent', owner: 'bot' });
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
    expect(raw[0]).toMatchObject({ name: 'alice-laptop', owner: 'alice', createdBy: 'alice' });
    expect(Object.keys(raw[1]!).sort()).toEqual(['createdAt', 'name', 'role', 'tokenSha256']);
    expect(readTokensFile(file).map(ownerOf)).toEqual(['alice', 'bot']);
  });

  it('reads files written before owners existed, and hand-written owners', () => {
    const file = newFile();
    const hash = sha256Hex('x');
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'old', role: 'operator', tokenSha256: hash },
        { name: 'new', role: 'operator', tokenSha256: sha256Hex('y'), owner: 'Old' },
      ]),
      { mode: 0o600 },
    );
    const store = new TokenStore(file);
    expect(personOf({ tokens: store }, { name: 'old', role: 'operator' })).toEqual({
      person: 'old',
      createdBy: null,
      token: true,
    });
    expect(personOf({ tokens: store }, { name: 'new', role: 'operator' }).person).toBe('Old');
    expect(samePerson('old', 'Old')).toBe(true);
    // A principal that is no token of the file (the CLI, the service itself) is its own person.
    expect(personOf({ tokens: store }, { name: 'cli:root', role: 'operator' })).toMatchObject({ person: 'cli:root' });
    expect(personOf({}, { name: 'old', role: 'operator' })).toMatchObject({ person: 'old', token: false });
  });

  it('refuses an owner that is not a name, naming input.owner', () => {
    for (const owner of ['', ' alice', 'a b', 'x'.repeat(129), '-alice', 'alice\n'])
      expect(() => parseCreateTokenInput({ name: 'n', role: 'agent', owner }, NOW), JSON.stringify(owner)).toThrow(
        /^input\.owner: /,
      );
    expect(parseCreateTokenInput({ name: 'n', role: 'agent', owner: 'alice@lab' }, NOW).owner).toBe('alice@lab');
    expect(parseCreateTokenInput({ name: 'n', role: 'agent', owner: null }, NOW).owner).toBeUndefined();
  });
});
