import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { findPackageRoot } from '../../src/package-root.js';

/**
 * The operator console's browser tests: Debian's Chromium through playwright-core (as the GraphiQL
 * test drives it), a page that logs every request, console error and CSP violation, sign-in, and
 * screenshots under test-artifacts/console/. The console is built first when dist/console is
 * missing or older than its sources, so `npm test` works from a fresh clone.
 */
export const CHROMIUM = process.env.AITIA_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = findPackageRoot();
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'console');

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((n) => newestMtime(join(path, n))));
}

/** Builds the console (console/build.mjs) unless dist/console is newer than everything in console/. */
export function ensureConsoleBuilt(): void {
  const index = join(ROOT, 'dist', 'console', 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestMtime(join(ROOT, 'console'))) return;
  execFileSync(process.execPath, [join(ROOT, 'console', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (as .ci/run does) or set AITIA_CHROMIUM`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in CI needs --no-sandbox; the closed network needs background networking off.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export interface ConsolePage {
  page: Page;
  /** Every request the page made, by URL. */
  requests: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** CSP violations the page reported. */
  violations: string[];
  /** Fails naming any request that went anywhere but the server under test. */
  assertLocalOnly(): void;
  close(): Promise<void>;
}

/** Opens /console of the server at `base` (http://127.0.0.1:<port>) with the logs attached. */
export async function openConsole(
  browser: Browser,
  base: string,
  options: { width?: number; height?: number } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
  });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  const violations: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    else if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`Refused to load: ${e.violatedDirective} ${e.blockedURI}`),
    ),
  );
  await page.goto(`${base}/console`);
  const origin = new URL(base).origin;
  return {
    page,
    requests,
    errors,
    violations,
    assertLocalOnly() {
      const away = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
      if (!origin.startsWith('http://127.0.0.1:') || away.length)
        throw new Error(`requests left ${origin}: ${away.join(', ') || origin}`);
    },
    close: () => context.close(),
  };
}

/** Pastes the token into the sign-in form and waits for the shell to show who is signed in. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Bearer token').fill(token);
  await page.getByTestId('sign-in').click();
  await page.getByTestId('who').waitFor({ timeout: 10_000 });
}

/** Saves a full-page screenshot to test-artifacts/console/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
