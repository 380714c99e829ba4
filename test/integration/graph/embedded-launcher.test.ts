import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedNeo4jError } from '../../../src/graph/embedded/errors.js';
import { freePort } from '../../../src/graph/embedded/ports.js';
import { resolveClasspath } from '../../../src/graph/embedded/classpath.js';
import { startEmbeddedNeo4j } from '../../../src/graph/embedded/launcher.js';

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

describe('embedded Neo4j lifecycle', () => {
  it('prints one ready line and shuts down cleanly when its stdin closes (its parent is gone)', async () => {
    const { spawn } = await import('node:child_process');
    const { NEO4J_JVM_FLAGS } = await import('../../../src/graph/embedded/launcher.js');
    const port = await freePort();
    const child = spawn(
      'java',
      [...NEO4J_JVM_FLAGS, '-cp', resolveClasspath(), 'dev.aitia.neo4j.EmbeddedNeo4j', tempDir(), String(port), '64'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await expect.poll(() => out, { timeout: 90_000, interval: 200 }).toContain('AITIA_NEO4J_READY');
    expect(out.trim().split('\n')).toEqual([`AITIA_NEO4J_READY bolt://127.0.0.1:${port}`]);
    child.stdin.end();
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))])).toBe(0);
  }, 150_000);
});
