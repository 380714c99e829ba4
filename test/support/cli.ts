import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { transpileOnce } from '../../scripts/transpile.mjs';
import { findPackageRoot } from '../../src/package-root.js';

/** The folders the `aitia` command is built from. */
const SOURCE_ROOTS = ['src', 'resolvers', 'correlator'];

/**
 * The `aitia` command as a process can run it, for tests that spawn the real CLI (`aitia mcp` over
 * stdio): every source file transpiled into dist/test-cli/<hash of the sources>/, inside this
 * repository so its package.json, node_modules, config/ and tools/ are found as they are from the
 * build's dist/src/. Returns the path of its main.js. Unchanged sources are not transpiled again.
 */
export async function builtCli(): Promise<string> {
  const root = findPackageRoot();
  const files = SOURCE_ROOTS.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => join(dir, f)),
  );
  const out = await transpileOnce({ root, files, cacheDir: join(root, 'dist', 'test-cli') });
  return join(out, 'src', 'main.js');
}

/**
 * The environment of a spawned `aitia`: PATH and the tests' Neo4j, plus `extra`, and nothing else
 * (unknown AITIA_* names are refused at start).
 */
export function cliEnv(extra: Record<string, string>): Record<string, string> {
  const neo = inject('neo4j');
  return {
    PATH: process.env.PATH ?? '',
    NEO4J_URI: neo.uri,
    ...(neo.user ? { NEO4J_USER: neo.user } : {}),
    ...(neo.password ? { NEO4J_PASSWORD: neo.password } : {}),
    ...extra,
  };
}
