// `npm run screenshot`: regenerates docs/console.png, the README's picture of the console. Starts
// the demo (`aitia serve --demo`, on its own embedded Neo4j in a throwaway data dir) on a free port,
// signs in with the operator token it prints, and photographs the approvals inbox at 1280×800 with
// the demo's pending request (the agent asking to start build02). Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'console.png');
const chromiumPath = process.env.AITIA_CHROMIUM ?? '/usr/bin/chromium';
const main = join(root, 'dist', 'src', 'main.js');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts the demo and resolves with its console URL and operator token once it prints them. */
function startDemo(port, dataDir) {
  const env = { ...process.env, AITIA_HOST: '127.0.0.1', AITIA_PORT: String(port), AITIA_DATA_DIR: dataDir };
  delete env.NEO4J_URI;
  delete env.AITIA_TOKENS_FILE;
  const child = spawn(process.execPath, [main, 'serve', '--demo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`demo did not print its console URL in 180 s:\n${output}`)),
      180_000,
    );
    const onData = (chunk) => {
      output += chunk.toString();
      const m = /console at (http:\/\/\S+\/console) — sign in with the operator token: (\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], token: m[2] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`demo exited (${code}) before it was ready:\n${output}`));
    });
  });
  return { child, ready };
}

async function run() {
  if (!existsSync(main) || !existsSync(join(root, 'dist', 'console', 'index.html')))
    throw new Error('run `npm run build` first (dist/src/main.js and dist/console/ are needed)');
  const dataDir = mkdtempSync(join(tmpdir(), 'aitia-screenshot-'));
  const demo = startDemo(await freePort(), dataDir);
  let browser;
  try {
    const { url, token } = await demo.ready;
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-quic'],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page.getByLabel('Bearer token').fill(token);
    await page.getByTestId('sign-in').click();
    await page.getByTestId('approval').first().waitFor({ timeout: 15_000 });
    await page.getByTestId('live').filter({ hasText: 'live' }).waitFor({ timeout: 15_000 });
    // The inputs open, so the picture shows what the agent asked for exactly.
    await page.locator('[data-testid="approval"] details summary').first().click();
    await page.screenshot({ path: out });
    console.log(`screenshot: ${out}`);
  } finally {
    await browser?.close();
    demo.child.kill('SIGTERM');
    await new Promise((r) => (demo.child.exitCode === null ? demo.child.once('exit', r) : r()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

run().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
