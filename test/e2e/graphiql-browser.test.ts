import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { launchBrowser } from '../support/console-browser.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SCREENSHOT = join(process.cwd(), 'test-results', 'graphiql.png');

const { driver, scope } = useGraph();
let srv: TestServer;
let browser: Browser;
const vmName = `browser-${scope}`;

beforeAll(async () => {
  srv = await startTestServer(driver);
  await upsertResources(driver, [
    {
      id: `proxmox:${scope}/qemu/321`,
      kind: 'vm',
      provider: 'proxmox',
      name: vmName,
      state: 'paused_io_error',
      rawState: 'running/io-error',
    },
  ]);
  // Debian's Chromium, installed by .ci/run, launched as the console's browser tests launch it.
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

describe('GraphiQL in a real browser', () => {
  it('loads offline from our own assets, runs a query with a bearer token, and shows the answer', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(srv.url) && !r.url().startsWith('blob:') && !r.url().startsWith('data:'))
        external.push(r.url());
    });
    // The page runs under its Content-Security-Policy (no inline script): nothing it does may be refused.
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`Refused to load: ${e.violatedDirective} ${e.blockedURI}`),
      ),
    );
    const query = `{ resource(slug: "vm:${vmName}") { id ... on Vm { state } rawState } }`;
    await page.goto(`${srv.url}/graphql?query=${encodeURIComponent(query)}`, { waitUntil: 'networkidle' });
    // The token goes where a person would put it: the Headers tab.
    await page.getByText('Headers', { exact: true }).click();
    await page.locator('.graphiql-editor-tool .monaco-editor').last().click();
    // The tab opens holding the placeholder `Bearer <token>`: clear it, then paste the token.
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${srv.tokens.agent}` }));
    const answered = page.waitForResponse(
      (r) =>
        r.url().startsWith(`${srv.url}/graphql`) &&
        r.request().method() === 'POST' &&
        (r.request().postData() ?? '').includes(vmName),
    );
    await page.getByRole('button', { name: /Execute query/ }).click();
    const body = await (await answered).json();
    expect(body).toEqual({
      data: { resource: { id: `proxmox:${scope}/qemu/321`, state: 'paused_io_error', rawState: 'running/io-error' } },
    });
    // And the page shows it (the result viewer wraps long lines, so compare without whitespace).
    const response = page.locator('.graphiql-response');
    await expect
      .poll(async () => (await response.innerText()).replace(/\s+/g, ''), { timeout: 20_000 })
      .toContain(`"state":"paused_io_error"`);
    expect((await response.innerText()).replace(/\s+/g, '')).toContain(`"id":"proxmox:${scope}/qemu/321"`);
    mkdirSync(join(process.cwd(), 'test-results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(external).toEqual([]);
    expect(violations).toEqual([]);
  });
});
