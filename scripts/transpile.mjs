// TypeScript that Node 20 cannot run, made runnable: used by `npm run codegen` (src/model and the
// SDL generator) and by the tests that spawn the real `aitia` command (test/support/cli.ts).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Transpiles `files` (paths relative to `root`) one by one with TypeScript's transpileModule (no
 * type check: `tsc` does that) into `<cacheDir>/<hash of the sources and the compiler version>/`,
 * keeping their relative paths, and returns that directory. Unchanged sources are not transpiled
 * again (the compiler takes a second or two to load). With `moduleType`, a package.json marks the
 * output as ES modules (needed under node_modules, where the repository's own does not apply).
 * Earlier outputs in `cacheDir` are removed.
 */
export async function transpileOnce({ root, files, cacheDir, moduleType = false }) {
  const sources = [...files].sort();
  const hash = createHash('sha256').update(createRequire(import.meta.url)('typescript/package.json').version);
  for (const file of sources) hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  const out = join(cacheDir, hash.digest('hex').slice(0, 32));
  if (existsSync(out)) return out;
  const { default: ts } = await import('typescript');
  const tmp = join(cacheDir, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp, { recursive: true });
  for (const file of sources) {
    const { outputText } = ts.transpileModule(readFileSync(join(root, file), 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    const target = join(tmp, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  if (moduleType) writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');
  // Earlier sources' outputs go; so do leftovers of interrupted runs (another run's are young).
  for (const old of readdirSync(cacheDir)) {
    const path = join(cacheDir, old);
    if (old.startsWith('tmp-') && (path === tmp || Date.now() - statSync(path).mtimeMs < 600_000)) continue;
    rmSync(path, { recursive: true, force: true });
  }
  try {
    renameSync(tmp, out);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(out)) throw err; // else a parallel run wrote the same output first
  }
  return out;
}
