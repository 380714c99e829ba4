import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDirs } from '../../support/temp.js';

/**
 * Issue 30 item 4: Neo4j's healthcheck passes the password in cypher-shell's environment, taken
 * from the container's NEO4J_AUTH, never in a command line (`ps`, `docker top`). The shell line
 * is run here with a stand-in cypher-shell that writes what it received.
 */
const root = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as {
  services: { neo4j: { healthcheck: { test: string[] } } };
};
const test = compose.services.neo4j.healthcheck.test;
const tempDir = tempDirs();

describe('docker-compose.yml Neo4j healthcheck', () => {
  it('is one shell line with no password literal or password flag', () => {
    expect(test[0]).toBe('CMD-SHELL');
    expect(test).toHaveLength(2);
    expect(test[1]).not.toMatch(/(^|\s)(-p|--password)(\s|=|$)/);
    expect(test[1]).not.toMatch(/NEO4J_PASSWORD:\?|\$\{NEO4J_PASSWORD\}/);
  });

  it('hands cypher-shell the password from NEO4J_AUTH in its environment, not its arguments', () => {
    const dir = tempDir('aitia-hc');
    const out = join(dir, 'seen');
    // A stand-in cypher-shell on PATH: a real exec, so argv and environment are what Neo4j's would get.
    writeFileSync(
      join(dir, 'cypher-shell'),
      `#!/bin/sh\nprintf 'ARGS %s\\n' "$*" > "${out}"\nprintf 'ENV %s\\n' "$NEO4J_PASSWORD" >> "${out}"\n`,
    );
    chmodSync(join(dir, 'cypher-shell'), 0o755);
    // Compose turns `$$` into `$` before the shell sees the line.
    execFileSync('sh', ['-c', test[1]!.replaceAll('$$', '$')], {
      env: { PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`, NEO4J_AUTH: 'neo4j/s3cret-pass' },
    });
    const seen = readFileSync(out, 'utf8').split('\n');
    expect(seen[0]).toMatch(/^ARGS /);
    expect(seen[0]).not.toContain('s3cret-pass');
    expect(seen[0]).toContain('-u neo4j');
    expect(seen[0]).toContain('RETURN 1');
    expect(seen[1]).toBe('ENV s3cret-pass');
  });
});
