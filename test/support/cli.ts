import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { findPackageRoot } from '../../src/package-root.js';

/** The folders the `aitia` command is built from. */
const SOURCE_ROOTS = ['src', 'resolvers', 'correlator'];

/**
 * The `aitia` command as a process can run it, for tests that spawn the real CLI (`aitia mcp` over
 * stdio): every source file compiled by TypeScript (transpiled one by one: `npm run typecheck`
 * checks the types) into dist/test-cli/<hash of the sources>/, inside this repository so its
 * package.json, node_modules, config/ and tools/ are found as they are from the build's dist/src/.
 * Returns the path of main.js. Unchanged sources are not compiled again.
 */
export function builtCli(): string {
  const root = findPackageRoot();
  const files = SOURCE_ROOTS.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => join(dir, f)),
  ).sort();
  const hash = createHash('sha256').update(ts.version);
  for (const file of files) hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  const cache = join(root, 'dist', 'test-cli');
  const out = join(cache, hash.digest('hex').slice(0, 32));
  const main = join(out, 'src', 'main.js');
  if (existsSync(main)) return main;
  const tmp = join(cache, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  for (const file of files) {
    const { outputText } = ts.transpileModule(readFileSync(join(root, file), 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    const target = join(tmp, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  try {
    renameSync(tmp, out);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(main)) throw err;
  }
  // Earlier sources' builds go; so do leftovers of interrupted runs (another run's are young).
  for (const old of readdirSync(cache)) {
    const path = join(cache, old);
    if (path === out || (old.startsWith('tmp-') && Date.now() - statSync(path).mtimeMs < 600_000)) continue;
    rmSync(path, { recursive: true, force: true });
  }
  return main;
}
