import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, ENV_SCHEMA, loadConfig } from '../../../src/config.js';

const root = process.cwd();
const ENV_NAMES = Object.keys(ENV_SCHEMA.shape);

describe('configuration from the environment', () => {
  it('fills the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ host: '127.0.0.1', port: 4000, neo4j: { uri: undefined, user: 'neo4j' }, proxmox: { insecure: false, pollSeconds: 30 }, logLevel: 'info' });
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

  it('every variable is documented in the README configuration table with its default', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'));
    const rows = new Map([...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
    expect([...rows.keys()].sort()).toEqual([...ENV_NAMES].sort());
    for (const [name, schema] of Object.entries(ENV_SCHEMA.shape)) {
      const parsed = (schema as { safeParse(v: unknown): { success: boolean; data?: unknown } }).safeParse(undefined);
      const dflt = parsed.success ? parsed.data : undefined;
      if (dflt !== undefined) expect(rows.get(name), name).toBe(`\`${String(dflt)}\``);
    }
  });
});

describe('docker-compose.yml stays consistent with the code', () => {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as any;

  it('runs Neo4j 5.26 community with a healthcheck', () => {
    expect(compose.services.neo4j.image).toBe('neo4j:5.26-community');
    expect(compose.services.neo4j.healthcheck.test).toBeTruthy();
    expect(compose.services.aitia.depends_on.neo4j.condition).toBe('service_healthy');
  });

  it('sets only variables the code reads, and publishes the port it listens on', () => {
    const env = compose.services.aitia.environment as Record<string, string>;
    for (const name of Object.keys(env)) expect(ENV_NAMES, name).toContain(name);
    expect(env.NEO4J_URI).toMatch(/^bolt:\/\/neo4j:7687$/);
    const port = Number(env.AITIA_PORT);
    expect(compose.services.aitia.ports).toContain(`127.0.0.1:${port}:${port}`);
    expect(loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{[^}]+:-([^}]*)\}/, '$1')])))).toMatchObject({ port, host: '0.0.0.0' });
  });

  it('the Dockerfile uses the same port and Node major as engines', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/AITIA_PORT=4000/);
    expect(dockerfile).toMatch(/EXPOSE 4000/);
    expect(dockerfile).toMatch(/FROM node:20-/);
  });
});
