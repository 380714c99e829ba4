// The console's own small build: one esbuild bundle (preact, cytoscape and the pages), the one
// stylesheet their CSS imports make (app.css) and the warm-up's documents (queries.json) into dist/console/, beside the service's build. Run by `npm run build` (console:build)
// and by the browser tests when the bundle is older than its sources. Fails past the size budget.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');
/** JS and CSS together, gzip-compressed (issue 31). */
const BUDGET_GZIP_BYTES = 300 * 1024;

/**
 * dist/console/queries.json: the documents a first visit asks (console/src/queries.ts WARM_UP), for
 * the server's warm-up — evaluated from the same module the pages import, so the two cannot differ.
 */
async function writeWarmUp(dir) {
  const bundled = await build({
    entryPoints: [join(here, 'src', 'queries.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    logLevel: 'error',
  });
  const source = bundled.outputFiles[0].text;
  const { WARM_UP } = await import(`data:text/javascript;base64,${globalThis.Buffer.from(source).toString('base64')}`);
  writeFileSync(join(dir, 'queries.json'), `${JSON.stringify({ warmUp: WARM_UP }, null, 1)}\n`);
}

export async function buildConsole({ quiet = false } = {}) {
  // Built beside the old build and swapped in, so a running server never reads a half-written file.
  const next = `${out}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  await build({
    entryPoints: { app: join(here, 'src', 'main.tsx') },
    outdir: next,
    entryNames: '[name]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: quiet ? 'error' : 'warning',
  }).catch((err) => {
    rmSync(next, { recursive: true, force: true });
    throw err;
  });
  copyFileSync(join(here, 'src', 'index.html'), join(next, 'index.html'));
  await writeWarmUp(next);
  let gzipTotal = 0;
  const sizes = ['app.js', 'app.css'].map((name) => {
    const body = readFileSync(join(next, name));
    const gz = gzipSync(body, { level: 9 }).length;
    gzipTotal += gz;
    return `${name} ${(body.length / 1024).toFixed(1)} KB (gzip ${(gz / 1024).toFixed(1)} KB)`;
  });
  if (!quiet) console.log(`console: ${sizes.join(', ')} -> ${out}`);
  if (gzipTotal > BUDGET_GZIP_BYTES) {
    rmSync(next, { recursive: true, force: true });
    throw new Error(`console: JS+CSS gzip ${gzipTotal} bytes is over the ${BUDGET_GZIP_BYTES}-byte budget`);
  }
  rmSync(out, { recursive: true, force: true });
  renameSync(next, out);
  return { out, gzipBytes: gzipTotal };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildConsole().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
