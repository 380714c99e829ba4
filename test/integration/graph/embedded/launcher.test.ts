import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import neo4j from 'neo4j-driver';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createDriver } from '../../../../src/graph/db/driver.js';
import { EmbeddedNeo4jError } from '../../../../src/graph/embedded/errors.js';
import { freePort } from '../../../../src/graph/embedded/ports.js';
import { resolveClasspath } from '../../../../src/graph/embedded/classpath.js';
import { startEmbeddedNeo4j } from '../../../../src/graph/embedded/launcher.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'aitia-launcher-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs `fn` with PATH pointing at an empty directory, so neither java nor mvn can be found. */
async function withoutPath<T>(fn: () => Promise<T> | T): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = tempDir();
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

describe('embedded Neo4j launcher failures say what is wrong', () => {
  it('java not found', async () => {
    const err = await withoutPath(() => startEmbeddedNeo4j({ dataDir: tempDir() }).catch((e: unknown) => e));
    expect(err).toBeInstanceOf(EmbeddedNeo4jError);
    expect(err).toMatchObject({ code: 'JAVA_NOT_FOUND', message: expect.stringMatching(/^java not found on PATH/) });
  });

  it('mvn not found', async () => {
    const err = await withoutPath(() => {
      try {
        return resolveClasspath({ force: true });
      } catch (e) {
        return e;
      }
    });
    expect(err).toMatchObject({ code: 'MVN_NOT_FOUND', message: expect.stringMatching(/^mvn not found on PATH/) });
  });

  it('port in use', async () => {
    const port = await freePort();
    const blocker: Server = createServer().listen(port, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      await expect(startEmbeddedNeo4j({ dataDir: tempDir(), port })).rejects.toMatchObject({
        code: 'PORT_IN_USE',
        message: expect.stringContaining(`port in use: 127.0.0.1:${port}`),
      });
    } finally {
      blocker.close();
    }
  });

  it('not ready after N s, with the tail of its log', async () => {
    const err = (await startEmbeddedNeo4j({ dataDir: tempDir(), readyTimeoutSeconds: 0.2 }).catch(
      (e: unknown) => e,
    )) as EmbeddedNeo4jError;
    expect(err.code).toBe('NOT_READY');
    expect(err.message).toMatch(/^embedded Neo4j not ready after 0.2 s \(log .*neo4j-embedded\.log\):\n/);
  }, 60_000);
});

/** The answer to `RETURN 1` over Bolt with these credentials, or the error code Neo4j refused them with. */
async function tryBolt(uri: string, auth: ReturnType<typeof neo4j.auth.basic> | undefined): Promise<string> {
  const driver = neo4j.driver(uri, auth);
  try {
    const { records } = await driver.executeQuery('RETURN 1 AS one');
    return `ok ${String(records[0]!.get('one'))}`;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await driver.close();
  }
}

const REFUSED = 'Neo.ClientError.Security.Unauthorized';

// One store for both tests (each start costs a minute on a busy machine): the second starts the
// store the first one created, with a password file that does not exist yet.
describe('embedded Neo4j lifecycle and authentication', () => {
  const home = mkdtempSync(join(tmpdir(), 'aitia-launcher-auth-'));
  const store = join(home, 'neo4j');
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('prints one ready line, asks for the password, and shuts down cleanly when its stdin closes (its parent is gone)', async () => {
    const { spawn } = await import('node:child_process');
    const { NEO4J_JVM_FLAGS } = await import('../../../../src/graph/embedded/launcher.js');
    const port = await freePort();
    const passwordFile = join(home, 'first.password');
    writeFileSync(passwordFile, 'lifecycle-test-password\n', { mode: 0o600 });
    const child = spawn(
      'java',
      [
        ...NEO4J_JVM_FLAGS,
        '-cp',
        resolveClasspath(),
        'dev.aitia.neo4j.EmbeddedNeo4j',
        store,
        String(port),
        '64',
        passwordFile,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await expect.poll(() => out, { timeout: 120_000, interval: 200 }).toContain('AITIA_NEO4J_READY');
    expect(out.trim().split('\n')).toEqual([`AITIA_NEO4J_READY bolt://127.0.0.1:${port}`]);
    const uri = `bolt://127.0.0.1:${port}`;
    expect(await tryBolt(uri, undefined)).toBe(REFUSED);
    expect(await tryBolt(uri, neo4j.auth.basic('neo4j', 'lifecycle-test-password'))).toBe('ok 1');
    child.stdin.end();
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))])).toBe(0);
  }, 200_000);

  it('generates a private password where none exists and applies it to the store; Bolt without it is refused', async () => {
    const passwordFile = join(home, 'secrets', 'neo4j.password');
    const neo = await startEmbeddedNeo4j({ dataDir: store, passwordFile, pageCacheMb: 64, readyTimeoutSeconds: 180 });
    try {
      expect(neo).toMatchObject({ user: 'neo4j', passwordFile });
      expect(neo.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(home, 'secrets')).mode & 0o777).toBe(0o700);
      expect(await tryBolt(neo.uri, undefined)).toBe(REFUSED);
      expect(await tryBolt(neo.uri, neo4j.auth.basic('neo4j', 'neo4j'))).toBe(REFUSED);
      expect(await tryBolt(neo.uri, neo4j.auth.basic('neo4j', 'lifecycle-test-password'))).toBe(REFUSED);
      const driver = createDriver(neo);
      try {
        expect((await driver.executeQuery('RETURN 1 AS one')).records[0]!.get('one').toNumber()).toBe(1);
      } finally {
        await driver.close();
      }
    } finally {
      await neo.stop();
    }
  }, 240_000);
});
