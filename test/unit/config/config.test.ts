import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ENV_SCHEMA, loadConfig } from '../../../src/config.js';

const root = process.cwd();
const ENV_NAMES = Object.keys(ENV_SCHEMA.shape);

describe('configuration from the environment', () => {
  it('fills the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 4000,
      neo4j: { uri: undefined, user: 'neo4j' },
      proxmox: { insecure: false, pollSeconds: 30 },
      logLevel: 'info',
    });
    expect(c.dataDir).toBe(join(root, '.aitia'));
    expect(c.tokensFile).toBe(join(root, '.aitia', 'tokens.json'));
  });

  it.each([
    [{ AITIA_PORT: 'eighty' }, /AITIA_PORT: /],
    [{ AITIA_PORT: '70000' }, /AITIA_PORT: /],
    [{ NEO4J_URI: 'http://localhost:7474' }, /NEO4J_URI: must be a bolt:\/\/ or neo4j:\/\/ URI/],
    [{ AITIA_PROXMOX_TOKEN: 'secret' }, /AITIA_PROXMOX_TOKEN: must look like user@realm!tokenid=secret/],
    [{ AITIA_PROXMOX_INSECURE: 'maybe' }, /AITIA_PROXMOX_INSECURE: must be true or false/],
    [{ AITIA_PRT: '4000' }, /AITIA_PRT: unknown variable/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('every variable is documented in the configuration table of docs/operations.md with its default', () => {
    const operations = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');
    const start = operations.indexOf('## Configuration');
    expect(start).toBeGreaterThanOrEqual(0);
    const end = operations.indexOf('\n## ', start + 1);
    const table = operations.slice(start, end < 0 ? undefined : end);
    const rows = new Map([...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
    expect([...rows.keys()].sort()).toEqual([...ENV_NAMES].sort());
    for (const [name, schema] of Object.entries(ENV_SCHEMA.shape)) {
      const parsed = (schema as { safeParse(v: unknown): { success: boolean; data?: unknown } }).safeParse(undefined);
      const dflt = parsed.success ? parsed.data : undefined;
      if (dflt !== undefined) expect(rows.get(name), name).toBe(`\`${String(dflt)}\``);
    }
  });
});
