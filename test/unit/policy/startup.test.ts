import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveCommand } from '../../../src/cli/serve.js';
import type { CliContext } from '../../../src/cli/context.js';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { DEFAULT_POLICY_PATH, loadStartupPolicy, PolicyLoadError } from '../../../src/policy/index.js';
import { DEFAULT, DEFAULT_YAML } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'aitia-policy-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loading the policy at start', () => {
  it('loads the shipped policy when AITIA_POLICY_FILE is unset', async () => {
    expect(await loadStartupPolicy(undefined)).toEqual({
      policy: DEFAULT.policy,
      digest: DEFAULT.digest,
      path: DEFAULT_POLICY_PATH,
    });
  });

  it('loads AITIA_POLICY_FILE when set', async () => {
    const path = file('trusting.yaml', DEFAULT_YAML.replace('auto_act: "off"', 'auto_act: reversible_low'));
    const loaded = await loadStartupPolicy(path);
    expect(loaded.path).toBe(path);
    expect(loaded.policy.autonomy_settings.global.auto_act).toBe('reversible_low');
    expect(loaded.digest).not.toBe(DEFAULT.digest);
  });

  it('refuses an invalid policy, naming the file and every error', async () => {
    const path = file(
      'broken.yaml',
      DEFAULT_YAML.replace('version: 1', 'version: 1\nbogus: true').replace(
        'risk_class: reversible_low',
        'risk_class: risky',
      ),
    );
    const err = await loadStartupPolicy(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PolicyLoadError);
    expect(err).toBeInstanceOf(ConfigError); // the CLI prints it as it is, then exits 1
    const e = err as PolicyLoadError;
    expect(e.path).toBe(path);
    expect(e.errors.map((x) => x.path).sort()).toEqual(['approval_rules.0.risk_class', 'bogus']);
    expect(e.message).toBe(
      [
        `AITIA_POLICY_FILE: policy ${path} is invalid (2 errors); the service does not start on it:`,
        ...e.errors.map((x) => `  ${x.path}: ${x.reason}`),
      ].join('\n'),
    );
    expect(e.message).toMatch(/ {2}bogus: unknown key/);
    expect(e.message).toMatch(/ {2}approval_rules\.0\.risk_class: .*expected one of "read_only"/);
  });

  it('refuses a file it cannot read', async () => {
    const err = (await loadStartupPolicy(join(dir, 'absent.yaml')).catch((e: unknown) => e)) as PolicyLoadError;
    expect(err.message).toMatch(/is invalid \(1 error\)/);
    expect(err.message).toMatch(/\(file\): cannot read .*absent\.yaml: ENOENT/);
  });
});

describe('aitia serve with an invalid policy', () => {
  it('does not start: fails before opening the graph or writing tokens', async () => {
    const path = file('serve-broken.yaml', 'version: 2\n');
    const dataDir = join(dir, 'data');
    const config = loadConfig({ AITIA_POLICY_FILE: path, AITIA_DATA_DIR: dataDir, AITIA_PORT: '1' });
    let opened = false;
    const printed: string[] = [];
    const ctx: CliContext = {
      config,
      log: createLogger('silent'),
      openGraph: async () => {
        opened = true;
        throw new Error('must not be reached');
      },
      print: (line) => printed.push(line),
    };
    const err = (await serveCommand.run([], ctx).catch((e: unknown) => e)) as PolicyLoadError;
    expect(err).toBeInstanceOf(PolicyLoadError);
    expect(err.message).toMatch(
      new RegExp(`^AITIA_POLICY_FILE: policy ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is invalid`),
    );
    expect(err.message).toMatch(/ {2}version: .*expected 1/);
    expect(err.message).toMatch(/ {2}risk_classes: required/);
    expect(opened).toBe(false);
    expect(printed).toEqual([]);
    expect(existsSync(config.tokensFile)).toBe(false);
  });
});
