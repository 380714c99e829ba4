import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENV_SCHEMA, loadConfig } from '../../../src/config.js';
import { READY_TIMEOUT_MS } from '../../../src/services/about.js';

/**
 * Docker cannot run on the machines that test aitia, so the Docker files are checked against the
 * code as a Docker user would meet them: users and ownership, paths, env names, ports, healthcheck.
 */
const root = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const ENV_NAMES = Object.keys(ENV_SCHEMA.shape);
const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; bin: Record<string, string> };
const dockerfile = read('Dockerfile');
const dockerignore = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const compose = parse(read('docker-compose.yml')) as {
  services: Record<string, Record<string, unknown> & { environment: Record<string, string> }>;
  volumes: Record<string, unknown>;
};
const aitia = compose.services.aitia!;
const neo4j = compose.services.neo4j!;
const stages = dockerfile.split(/^FROM /m).slice(1);
const runtime = stages[stages.length - 1]!;
/** `ENV A=1 \ B=2` lines of the runtime stage. */
const imageEnv = Object.fromEntries(
  [...runtime.matchAll(/^ENV ((?:[^\n]*\\\n)*[^\n]*)/gm)]
    .flatMap((m) => m[1]!.replace(/\\\n/g, ' ').trim().split(/\s+/))
    .map((kv) => kv.split('=') as [string, string]),
);

describe('Dockerfile', () => {
  it('builds and runs on Node 22, a major engines allows', () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms).toEqual(['node:22-bookworm-slim', 'node:22-bookworm-slim']);
    expect(Number(/>=(\d+)/.exec(pkg.engines.node)?.[1])).toBeLessThanOrEqual(22);
  });

  it('runs as the unprivileged node user, owning the folders its volumes mount', () => {
    expect(runtime).toMatch(/^USER node$/m);
    const dirs = [imageEnv.AITIA_DATA_DIR!, posix.dirname(imageEnv.AITIA_TOKENS_FILE!)];
    expect(dirs).toEqual(['/data', '/config']);
    for (const d of dirs) {
      expect(runtime).toMatch(new RegExp(`mkdir -p [^\\n]*${d}\\b`));
      expect(runtime).toMatch(new RegExp(`chown node:node [^\\n]*${d}\\b`));
    }
    // The ownership is set before USER switches away from root.
    expect(runtime.indexOf('chown')).toBeLessThan(runtime.indexOf('USER node'));
  });

  it('sets only variables the code reads, serving on all interfaces of the container', () => {
    for (const name of Object.keys(imageEnv).filter((n) => n !== 'NODE_ENV')) expect(ENV_NAMES, name).toContain(name);
    const config = loadConfig(Object.fromEntries(Object.entries(imageEnv).filter(([k]) => k !== 'NODE_ENV')));
    expect(config).toMatchObject({ host: '0.0.0.0', port: 4000, dataDir: '/data', tokensFile: '/config/tokens.json' });
    expect(runtime).toMatch(new RegExp(`^EXPOSE ${config.port}$`, 'm'));
  });

  it('copies only what exists and the context does not exclude, and fetches nothing after npm ci', () => {
    for (const m of dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)) {
      const sources = m[1]!.trim().split(/\s+/).slice(0, -1);
      for (const src of sources) {
        expect(existsSync(join(root, src)), `COPY ${src}`).toBe(true);
        expect(
          dockerignore.some((rule) => src === rule.replace(/\/$/, '')),
          `COPY ${src} is in .dockerignore`,
        ).toBe(false);
      }
    }
    const afterInstall = dockerfile.slice(dockerfile.indexOf('npm ci'));
    expect(afterInstall).not.toMatch(/npm (pack|install|run assets)|curl |wget /);
  });

  it('starts the package binary and checks readiness with more time than /readyz takes', () => {
    // Node's own flags may come before the entry point (the young generation's size).
    expect(runtime).toMatch(
      new RegExp(`^ENTRYPOINT \\["node", (?:"--[a-z-]+=\\d+", )*"${pkg.bin.aitia!.replace(/^\.\//, '').replaceAll('.', '\\.')}"\\]$`, 'm'),
    );
    const hc = /^HEALTHCHECK (.*)$/m.exec(runtime)?.[1] ?? '';
    expect(hc).toContain('/readyz');
    expect(Number(/--timeout=(\d+)s/.exec(hc)?.[1]) * 1000).toBeGreaterThan(READY_TIMEOUT_MS);
  });
});

describe('.dockerignore', () => {
  it('keeps installed modules, builds, local data, tokens and secrets out of the build context', () => {
    for (const p of ['node_modules/', 'dist/', '.aitia/', '.git/', '.env']) expect(dockerignore, p).toContain(p);
  });
});

describe('docker-compose.yml', () => {
  it('runs Neo4j 5.26 community with a healthcheck the service waits for', () => {
    expect(neo4j.image).toBe('neo4j:5.26-community');
    expect((neo4j.healthcheck as { test: unknown }).test).toBeTruthy();
    expect(aitia.depends_on).toEqual({ neo4j: { condition: 'service_healthy' } });
  });

  it('restarts both services after a crash or a reboot', () => {
    expect(neo4j.restart).toBe('unless-stopped');
    expect(aitia.restart).toBe('unless-stopped');
  });

  it('requires one Neo4j password, shared by both services, instead of a default', () => {
    expect(neo4j.environment.NEO4J_AUTH).toMatch(/^neo4j\/\$\{NEO4J_PASSWORD:\?[^}]+\}$/);
    expect(aitia.environment.NEO4J_PASSWORD).toMatch(/^\$\{NEO4J_PASSWORD:\?[^}]+\}$/);
  });

  it('sets only variables the code reads and publishes the port it listens on, on loopback', () => {
    const env = aitia.environment;
    for (const name of Object.keys(env)) expect(ENV_NAMES, name).toContain(name);
    expect(env.NEO4J_URI).toBe('bolt://neo4j:7687');
    const config = loadConfig({ ...env, NEO4J_PASSWORD: 'x'.repeat(16) });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 4000 });
    expect(aitia.ports).toEqual([`127.0.0.1:${config.port}:${config.port}`]);
  });

  it('mounts writable named volumes at the tokens folder and the data dir, never a host file', () => {
    const env = aitia.environment;
    const mounts = Object.fromEntries((aitia.volumes as string[]).map((v) => v.split(':').slice(0, 2).reverse()));
    expect(mounts[posix.dirname(env.AITIA_TOKENS_FILE!)]).toBe('aitia-config');
    expect(mounts[env.AITIA_DATA_DIR!]).toBe('aitia-data');
    for (const [target, source] of Object.entries(mounts)) {
      expect(Object.keys(compose.volumes), `${source} → ${target}`).toContain(source);
      expect(
        (aitia.volumes as string[]).find((v) => v.endsWith(`:${target}`) || v.includes(`:${target}:`)),
      ).not.toMatch(/:ro$/);
    }
    // The image declares the same folders, owned by the user it runs as (see the Dockerfile test).
    expect(runtime).toMatch(/^VOLUME \["\/config", "\/data"\]$/m);
  });
});
