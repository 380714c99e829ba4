import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyCommand } from '../../../src/cli/notify.js';
import type { CliContext } from '../../../src/cli/context.js';
import { loadConfig } from '../../../src/config.js';
import { verifyWebhook } from '../../../src/integrations/webhook-message.js';
import { createLogger } from '../../../src/log.js';

/** `aitia notify test <target>` against a real receiver on 127.0.0.1 that checks the signature. */
const SECRET = 'notify-test-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'aitia-notify-cli-'));
const seen: Array<{ key: string | undefined; body: Record<string, unknown> }> = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const ok = verifyWebhook(
      req.url === '/wrong-key' ? 'another-secret-0123456789' : SECRET,
      { timestamp: req.headers['x-aitia-timestamp'] as string, signature: req.headers['x-aitia-signature'] as string },
      body,
      Date.now(),
    );
    seen.push({
      key: req.headers['idempotency-key'] as string | undefined,
      body: JSON.parse(body) as Record<string, unknown>,
    });
    res.writeHead(ok ? 202 : 401, { 'content-type': 'text/plain' }).end(ok ? 'accepted' : 'bad signature');
  });
});
let file = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  file = join(dir, 'integrations.yaml');
  writeFileSync(
    file,
    [
      'notifications:',
      `  - { name: ops, kind: webhook, url: "http://127.0.0.1:${port}/hook", secret: "${SECRET}", events: [condition.opened] }`,
      `  - { name: wrong, kind: webhook, url: "http://127.0.0.1:${port}/wrong-key", secret: "${SECRET}", events: [condition.opened] }`,
      '  - { name: gone, kind: webhook, url: "http://127.0.0.1:1/hook", secret: "' +
        SECRET +
        '", events: [condition.opened] }',
    ].join('\n'),
    { mode: 0o600 },
  );
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const ctx: CliContext = {
    config: loadConfig({ AITIA_INTEGRATIONS_FILE: file }),
    log: createLogger('silent'),
    openGraph: () => Promise.reject(new Error('notify test needs no graph')),
    print: (l) => out.push(l),
  };
  return { code: await notifyCommand.run(args, ctx), out };
}

describe('aitia notify test <target>', () => {
  it('sends one signed sample and prints the status and the answer', async () => {
    const { code, out } = await run('test', 'ops');
    expect(code).toBe(0);
    expect(out[0]).toMatch(
      /^ops \(webhook http:\/\/127\.0\.0\.1:\d+\/hook\): HTTP 202 — Idempotency-Key ops:test-\d+$/,
    );
    expect(out[1]).toBe('accepted');
    const last = seen.at(-1)!;
    expect(last.body).toMatchObject({ event: 'condition.opened', id: last.key, payload: { sample: true } });
  });

  it('a refusal prints its status and body and exits 1; an unreachable target says why', async () => {
    expect(await run('test', 'wrong')).toMatchObject({
      code: 1,
      out: [expect.stringMatching(/HTTP 401/), 'bad signature'],
    });
    const gone = await run('test', 'gone');
    expect(gone.code).toBe(1);
    expect(gone.out[0]).toMatch(/gone .*: not delivered: cannot reach 127\.0\.0\.1:1/);
  });

  it('an unknown target names the known ones; bad arguments print the usage', async () => {
    expect(await run('test', 'nope')).toMatchObject({
      code: 2,
      out: [expect.stringMatching(/targets: ops, wrong, gone/)],
    });
    expect(await run('send', 'ops')).toMatchObject({ code: 2, out: ['usage: aitia notify test <target>'] });
  });
});
