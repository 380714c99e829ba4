import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIRST_START_TOKENS, printTokens } from '../../../src/cli/serve.js';
import type { Config } from '../../../src/config.js';
import { ConfigError } from '../../../src/model/index.js';
import { loadSourcesFile } from '../../../src/sources-file.js';
import { tempDirs } from '../../support/temp.js';

/*
 * Issue 30 finding 13: a first start's tokens (operator included) go to an owner-only file whose
 * path is printed, never to the output (Docker logs, journald); the sources file, which holds
 * Proxmox tokens, vCenter passwords and push secrets, is refused unless owner-only.
 */

const tempDir = tempDirs();
const created = {
  agent: 'aitia_agent_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  operator: 'aitia_operator_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB',
  scheduler: 'aitia_scheduler_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC',
  ingester: 'aitia_ingester_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD',
};

function firstStart(dataDir: string, demo = false) {
  const lines: string[] = [];
  const config = { dataDir, tokensFile: join(dataDir, 'tokens.json') } as Config;
  printTokens(config, { print: (l) => lines.push(l) }, demo, created);
  return { lines, file: join(dataDir, FIRST_START_TOKENS) };
}

describe('first-start tokens', () => {
  it('are written owner-only into the data dir; only the path is printed', () => {
    const { lines, file } = firstStart(join(tempDir('aitia-first'), '.aitia'));
    const printed = lines.join('\n');
    for (const token of Object.values(created)) {
      expect(printed).not.toContain(token);
      expect(readFileSync(file, 'utf8')).toContain(token);
    }
    expect(printed).toContain(file);
    expect(printed).toMatch(/delete it/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('replace a file already there (exposed or not) and never write through a symlink', () => {
    const dataDir = tempDir('aitia-first');
    const path = join(dataDir, FIRST_START_TOKENS);
    writeFileSync(path, 'old\n', { mode: 0o644 });
    chmodSync(path, 0o644);
    firstStart(dataDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).not.toContain('old');
    // A link planted where the file goes: replaced by the file, its target untouched.
    const elsewhere = join(tempDir('aitia-elsewhere'), 'victim');
    writeFileSync(elsewhere, 'keep\n', { mode: 0o644 });
    const linked = tempDir('aitia-first');
    symlinkSync(elsewhere, join(linked, FIRST_START_TOKENS));
    firstStart(linked);
    expect(readFileSync(elsewhere, 'utf8')).toBe('keep\n');
    expect(statSync(join(linked, FIRST_START_TOKENS)).mode & 0o777).toBe(0o600);
    const dir = tempDir('aitia-first');
    mkdirSync(join(dir, FIRST_START_TOKENS));
    expect(() => firstStart(dir)).toThrow(/is a directory/);
  });

  it('the demo, a local walkthrough, still prints its throwaway tokens', () => {
    const dataDir = tempDir('aitia-demo');
    const { lines, file } = firstStart(dataDir, true);
    expect(lines.join('\n')).toContain(created.agent);
    expect(() => statSync(file)).toThrow();
  });
});

describe('the sources file', () => {
  const yaml = 'sources:\n  - { name: pve, kind: proxmox, url: "https://pve:8006", token: "a@pam!t=s" }\n';
  it.each([0o644, 0o640, 0o604, 0o660, 0o666])('is refused at mode %o, naming the chmod that fixes it', (mode) => {
    const path = join(tempDir('aitia-sources'), 'sources.yaml');
    writeFileSync(path, yaml);
    chmodSync(path, mode);
    expect(() => loadSourcesFile(path)).toThrow(ConfigError);
    expect(() => loadSourcesFile(path)).toThrow(
      new RegExp(`the sources file \\(AITIA_SOURCES_FILE\\) ${path} is not private .*chmod 600 ${path}`),
    );
  });

  it('is read when owner-only', () => {
    const path = join(tempDir('aitia-sources'), 'sources.yaml');
    writeFileSync(path, yaml, { mode: 0o600 });
    expect(loadSourcesFile(path).map((s) => s.name)).toEqual(['pve']);
  });
});
