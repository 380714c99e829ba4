import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { findPackageRoot } from '../../src/package-root.js';
import { addToken } from '../../src/services/token-store.js';
import { builtCli, cliEnv } from '../support/cli.js';
import { useGraph } from '../support/graph.js';
import { until as waitUntil } from '../support/until.js';

/**
 * `aitia serve` (the real process) with an integrations file: an owner-only YAML naming a webhook
 * target on a receiver this file runs on 127.0.0.1. An agent's requestApproval over GraphQL
 * arrives signed as `approval.requested` (checked by the code block docs/notifications.md shows); the
 * request's expiry passing arrives as `approval.expired` (serve's expiry sweep); an operator's halt
 * over GraphQL arrives as `autonomy.changed`. A bad integrations file makes serve exit naming the field.
 */
const { driver, scope } = useGraph();
const SECRET = `whsec-${scope}-0123456789abcdef`;
const TARGET = `hook-${scope}`;
const vm = `proxmox:${scope}/qemu/101`;
let dir: string;
let child: ChildProcess;
let out = '';
let port: number;
let agent: string;
let operator: string;
let receiver: Server;
let receiverUrl: string;

interface Arrival {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; event: string; resource: string; payload: Record<string, unknown> };
}
const arrivals: Arrival[] = [];

/** The receiver check docs/notifications.md shows: its own code block, run as written. */
const verify = (() => {
  const page = readFileSync(join(findPackageRoot(), 'docs', 'notifications.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(page)![1]!.replace(/^import .*\n/m, '');
  return new Function('createHmac', 'timingSafeEqual', `${code}\nreturn verifyAitia;`)(createHmac, timingSafeEqual) as (
    secret: string,
    headers: IncomingHttpHeaders,
    body: string,
  ) => boolean;
})();

async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const p = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return p;
}

/** Waits like test/support/until.ts, and on a timeout shows what the server printed. */
const until = (what: string, ms: number, probe: () => boolean | Promise<boolean>) =>
  waitUntil(what, ms, probe, { context: () => out.slice(-3000) });

function serve(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [cliPath, 'serve'], {
    env: cliEnv({
      AITIA_HOST: '127.0.0.1',
      AITIA_DATA_DIR: dir,
      AITIA_TOKENS_FILE: join(dir, 'tokens.json'),
      AITIA_LOG_LEVEL: 'info',
      AITIA_REPLICA_ID: `notify-e2e-${scope}`,
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
let cliPath: string;

async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data!;
}

beforeAll(async () => {
  cliPath = await builtCli();
  dir = mkdtempSync(join(tmpdir(), 'aitia-notify-serve-'));
  agent = addToken(join(dir, 'tokens.json'), `${scope}-agent`, 'agent');
  operator = addToken(join(dir, 'tokens.json'), `${scope}-operator`, 'operator');
  await upsertResources(driver, [
    { id: vm, kind: 'vm', provider: 'proxmox', name: `web01-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      arrivals.push({ headers: req.headers, body, json: JSON.parse(body) as Arrival['json'] });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const integrations = join(dir, 'integrations.yaml');
  writeFileSync(
    integrations,
    [
      'notifications:',
      `  - name: ${TARGET}`,
      '    kind: webhook',
      `    url: "${receiverUrl}"`,
      `    secret: "${SECRET}"`,
      '    events: [approval.requested, approval.expired, autonomy.changed]',
      '',
    ].join('\n'),
  );
  chmodSync(integrations, 0o600);
  port = await freePort();
  child = serve({ AITIA_PORT: String(port), AITIA_INTEGRATIONS_FILE: integrations });
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  await until('aitia serve ready', 90_000, async () => {
    if (child.exitCode !== null) throw new Error(`aitia serve exited ${child.exitCode}:\n${out}`);
    return fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  });
  // The notifier places its new target's cursor at the feed's newest entry once it leads: what
  // follows is this target's to deliver.
  await until('the notifier leading with its cursor', 90_000, async () => {
    const { records } = await driver.executeQuery('MATCH (c:NotificationCursor {target: $t}) RETURN c', { t: TARGET });
    return records.length > 0;
  });
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  await gqlReset().catch(() => undefined);
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval AND n.targetId = $vm) OR (n:FeedEntry AND n.resourceId = $vm)
       OR (n:NotificationCursor AND n.target = $t) DETACH DELETE n`,
    { vm, t: TARGET },
  );
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function gqlReset() {
  await driver.executeQuery(`MATCH (k:AutonomySwitch {id: 'global'}) SET k.mode = 'normal' REMOVE k.breakerOpenedAt`);
}

const mine = (event: string) => arrivals.filter((a) => a.json.event === event);

describe('aitia serve delivers notifications from its integrations file', () => {
  let approvalId: string;

  it('an agent asks for approval over GraphQL → the receiver gets a signed approval.requested', async () => {
    const data = await gql(
      agent,
      'mutation($input: RequestApprovalInput!) { requestApproval(input: $input) { id status } }',
      { input: { target: vm, action: 'restart', reason: `wedged ${scope}` } },
    );
    approvalId = (data.requestApproval as Array<{ id: string }>)[0]!.id;
    await until('approval.requested', 30_000, () => mine('approval.requested').length > 0);
    const got = mine('approval.requested').find((a) => (a.json.payload.approval as { id: string }).id === approvalId)!;
    expect(got.json).toMatchObject({
      event: 'approval.requested',
      resource: vm,
      payload: { approval: { id: approvalId, action: 'restart', targetId: vm, reason: `wedged ${scope}` } },
    });
    expect(got.headers['x-aitia-timestamp']).toMatch(/^\d+$/);
    expect(got.headers['idempotency-key']).toBe(got.json.id);
    expect(verify(SECRET, got.headers, got.body)).toBe(true);
    expect(verify(`${SECRET}-not`, got.headers, got.body)).toBe(false);
    expect(verify(SECRET, got.headers, got.body.replace('wedged', 'wedgex'))).toBe(false);
  });

  it('the request expiring undecided → approval.expired, once, from serve’s expiry sweep', async () => {
    // Its expiry, moved into the past: what an hour without an operator does.
    await driver.executeQuery('MATCH (a:Approval {id: $id}) SET a.expiresAt = datetime() - duration({seconds: 1})', {
      id: approvalId,
    });
    await until('approval.expired', 30_000, () => mine('approval.expired').length > 0);
    const got = mine('approval.expired');
    expect(got.map((a) => (a.json.payload.approval as { id: string }).id)).toEqual([approvalId]);
    expect(got[0]!.json.payload).toMatchObject({ change: 'expired', actor: 'aitia' });
    expect(verify(SECRET, got[0]!.headers, got[0]!.body)).toBe(true);
  });

  it('an operator halts over GraphQL → autonomy.changed with who and why', async () => {
    await gql(operator, 'mutation { setAutonomy(mode: halt, reason: "storage incident") { mode } }');
    try {
      await until('autonomy.changed', 30_000, () => mine('autonomy.changed').length > 0);
      const got = mine('autonomy.changed')[0]!;
      expect(got.json).toMatchObject({
        event: 'autonomy.changed',
        payload: { change: 'halted', actor: `${scope}-operator`, reason: 'storage incident', after: { mode: 'halt' } },
      });
      expect(verify(SECRET, got.headers, got.body)).toBe(true);
    } finally {
      await gql(operator, 'mutation { setAutonomy(mode: normal, reason: "incident over") { mode } }');
    }
  });

  it('a bad integrations file: serve exits naming the field', async () => {
    const bad = join(dir, 'bad-integrations.yaml');
    writeFileSync(
      bad,
      `notifications:\n  - { name: bad-hook, kind: webhook, url: "${receiverUrl}", secret: short, events: [approval.requested] }\n`,
    );
    chmodSync(bad, 0o600);
    const p = serve({ AITIA_PORT: String(await freePort()), AITIA_INTEGRATIONS_FILE: bad });
    let said = '';
    p.stdout!.on('data', (b: Buffer) => (said += b.toString()));
    p.stderr!.on('data', (b: Buffer) => (said += b.toString()));
    const code = await new Promise<number | null>((r) => p.once('exit', r));
    expect(code, said).not.toBe(0);
    expect(said).toMatch(/notifications\[0\] "bad-hook": secret: must be at least 16 characters/);
    expect(said).toContain('AITIA_INTEGRATIONS_FILE');
  });
});
