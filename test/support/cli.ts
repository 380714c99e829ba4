import { readdirSync } from 'node:fs';
import { join } from 'node:path';
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
