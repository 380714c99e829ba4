import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedNeo4jError } from './errors.js';

/** Where the launcher's Maven project lives, found by walking up from this file to the repo root. */
export function launcherProjectDir(): string {
  let dir = new URL('.', import.meta.url).pathname;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'tools', 'neo4j-embedded');
    if (existsSync(join(candidate, 'pom.xml'))) return candidate;
    dir = join(dir, '..');
  }
  throw new EmbeddedNeo4jError('MAVEN_FAILED', 'tools/neo4j-embedded/pom.xml not found above ' + import.meta.url);
}

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((e) => newestMtime(join(path, e))));
}

/** True when `cmd --version` runs. */
export function commandExists(cmd: string, args: string[] = ['-version']): boolean {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return !r.error;
}

/**
 * Compiles the launcher and resolves its classpath with Maven once; later calls reuse the cached
 * `target/classpath.txt` until pom.xml or the Java source changes. Returns the full classpath.
 */
export function resolveClasspath(options: { log?: (msg: string) => void; force?: boolean } = {}): string {
  const dir = launcherProjectDir();
  const cacheFile = join(dir, 'target', 'classpath.txt');
  const classes = join(dir, 'target', 'classes');
  const fresh =
    !options.force &&
    existsSync(cacheFile) &&
    existsSync(join(classes, 'dev', 'aitia', 'neo4j', 'EmbeddedNeo4j.class')) &&
    statSync(cacheFile).mtimeMs >= Math.max(newestMtime(join(dir, 'pom.xml')), newestMtime(join(dir, 'src')));
  if (!fresh) {
    if (!commandExists('mvn', ['-v'])) {
      throw new EmbeddedNeo4jError(
        'MVN_NOT_FOUND',
        'mvn not found on PATH: the embedded Neo4j is built with Maven (install maven, or set NEO4J_URI to an existing Neo4j)',
      );
    }
    options.log?.('resolving the embedded Neo4j classpath with Maven (first run downloads ~145 MB)');
    const r = spawnSync(
      'mvn',
      ['-B', '-q', 'compile', 'dependency:build-classpath', `-Dmdep.outputFile=${cacheFile}`],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.status !== 0) {
      const tail = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
      throw new EmbeddedNeo4jError(
        'MAVEN_FAILED',
        `Maven could not build tools/neo4j-embedded (exit ${r.status}):\n${tail}`,
      );
    }
  }
  return `${classes}:${readFileSync(cacheFile, 'utf8').trim()}`;
}
