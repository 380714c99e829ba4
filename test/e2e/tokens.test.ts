import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { tokensCommand } from '../../src/cli/tokens.js';
import { loadConfig } from '../../src/config.js';
import { TokenStore } from '../../src/services/token-store.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
let srv: TestServer;
/** What the service logged, as JSON objects. */
const logged: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  srv = await startTestServer(driver, { log });
});
afterAll(async () => srv?.close());

const ABOUT = '{ about { principal role } }';
const CREATE = `mutation($input: CreateTokenInput!) {
  createToken(input: $input) { token tokenInfo { name role createdAt expiresAt expired expiredRefusals } } }`;
const REVOKE = 'mutation($name: String!) { revokeToken(name: $name) { name role } }';
const LIST = '{ tokens { name role createdAt expiresAt expired expiredRefusals lastExpiredRefusalAt } }';

async function create(input: Record<string, unknown>): Promise<string> {
  const { status, body } = await srv.gql(srv.tokens.operator, CREATE, { input });
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.errors).toBeUndefined();
  return body.data.createToken.token as string;
}

async function auditOf(name: string): Promise<Array<{ principal: string; operation: string; outcome: string }>> {
  const { body } = await srv.gql(
    srv.tokens.operator,
    'query($t: ID) { auditLog(filter: {targetId: $t}) { nodes { principal role operation outcome detail } } }',
    { t: `token:${name}` },
  );
  return [...body.data.auditLog.nodes].reverse();
}

describe('tokens managed live over GraphQL', () => {
  it('an operator creates a token (returned once), it works at once, and the list never shows a hash', async () => {
    const name = `claude-${scope}`;
    const token = await create({ name, role: 'agent' });
    expect(token).toMatch(/^aitia_agent_/);
    expect((await srv.gql(token, ABOUT)).body.data.about).toEqual({ principal: name, role: 'agent' });
    const { body } = await srv.gql(srv.tokens.operator, LIST);
    const listed = body.data.tokens.find((t: { name: string }) => t.name === name);
    expect(listed).toMatchObject({ name, role: 'agent', expiresAt: null, expired: false, expiredRefusals: 0 });
    expect(Date.parse(listed.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.stringify(body)).not.toMatch(/[0-9a-f]{64}/);
    expect(readFileSync(srv.tokensFile, 'utf8')).not.toContain(token);
  });

  it('revoked: the next request with the token is HTTP 401, without a restart; both changes audited', async () => {
    const name = `revoked-${scope}`;
    const token = await create({ name, role: 'agent' });
    expect((await srv.gql(token, ABOUT)).status).toBe(200);
    const revoked = await srv.gql(srv.tokens.operator, REVOKE, { name });
    expect(revoked.body).toEqual({ data: { revokeToken: { name, role: 'agent' } } });
    const refused = await srv.gql(token, ABOUT);
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0]).toMatchObject({
      message: 'unknown bearer token',
      extensions: { code: 'UNAUTHENTICATED' },
    });
    expect(await auditOf(name)).toEqual([
      {
        principal: 'test-operator',
        role: 'operator',
        operation: 'createToken',
        outcome: 'ok',
        detail: 'role agent, no expiry',
      },
      { principal: 'test-operator', role: 'operator', operation: 'revokeToken', outcome: 'ok', detail: 'role agent' },
    ]);
  });

  it('revoked by another process (as `aitia tokens revoke` does): refused within a second, no restart', async () => {
    const name = `cli-revoked-${scope}`;
    const token = await create({ name, role: 'agent' });
    expect((await srv.gql(token, ABOUT)).status).toBe(200);
    const revokedAt = Date.now();
    new TokenStore(srv.tokensFile).revoke(name);
    await expect.poll(async () => (await srv.gql(token, ABOUT)).status, { timeout: 1000, interval: 50 }).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'tokens file changed: re-read', removed: [name] }));
  });

  it('expired: HTTP 401 naming the expiry; logged and counted each time, audited once', async () => {
    const name = `expiring-${scope}`;
    const expiresAt = new Date(Date.now() + 1500).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const token = await create({ name, role: 'agent', expiresAt });
    await new Promise((r) => setTimeout(r, Date.parse(expiresAt) - Date.now() + 50));
    for (let i = 0; i < 2; i++) {
      const { status, body } = await srv.gql(token, ABOUT);
      expect(status).toBe(401);
      expect(body.errors[0]).toEqual({
        message: `bearer token ${name} expired at ${expiresAt}; ask an operator for a new one`,
        extensions: { code: 'UNAUTHENTICATED' },
      });
    }
    expect(logged.filter((l) => l.msg === 'expired bearer token refused' && l.token === name)).toEqual([
      expect.objectContaining({ level: 40, role: 'agent', expiresAt, refusals: 1 }),
      expect.objectContaining({ level: 40, role: 'agent', expiresAt, refusals: 2 }),
    ]);
    const { body } = await srv.gql(srv.tokens.operator, LIST);
    expect(body.data.tokens.find((t: { name: string }) => t.name === name)).toMatchObject({
      expiresAt,
      expired: true,
      expiredRefusals: 2,
    });
    expect((await auditOf(name)).map((a) => [a.principal, a.operation, a.outcome])).toEqual([
      ['test-operator', 'createToken', 'ok'],
      [name, 'authenticate', 'refused'],
    ]);
  });

  it('only operators manage tokens; bad input names the field', async () => {
    const asAgent = await srv.gql(srv.tokens.agent, LIST);
    expect(asAgent.body.errors[0]).toMatchObject({
      message: expect.stringContaining('lacks permission token:read'),
      extensions: { code: 'FORBIDDEN' },
    });
    const mint = await srv.gql(srv.tokens.agent, CREATE, { input: { name: `x-${scope}`, role: 'operator' } });
    expect(mint.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const bad = await srv.gql(srv.tokens.operator, CREATE, { input: { name: 'two words', role: 'agent' } });
    expect(bad.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^input\.name: "two words" is not a token name/),
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const past = await srv.gql(srv.tokens.operator, CREATE, {
      input: { name: `past-${scope}`, role: 'agent', expiresAt: '2020-01-01T00:00:00Z' },
    });
    expect(past.body.errors[0].message).toMatch(/^input\.expiresAt: must be in the future/);
    const unknown = await srv.gql(srv.tokens.operator, REVOKE, { name: `nobody-${scope}` });
    expect(unknown.body.errors[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
  });
});

describe('aitia tokens add|list|revoke', () => {
  function cli(): { ctx: CliContext; lines: string[] } {
    const lines: string[] = [];
    const ctx: CliContext = {
      config: loadConfig({ AITIA_TOKENS_FILE: srv.tokensFile }),
      log: pino({ level: 'silent' }),
      openGraph: async () => ({ driver, uri: 'test', via: 'NEO4J_URI', close: async () => {} }),
      print: (line) => void lines.push(line),
    };
    return { ctx, lines };
  }

  it('adds a token the running service accepts at once, lists it without its hash, revokes it (audited as cli:<user>)', async () => {
    const name = `cli-${scope}`;
    const add = cli();
    expect(await tokensCommand.run(['add', '--name', name, '--role', 'agent', '--expires-in', '30d'], add.ctx)).toBe(0);
    const token = add.lines[1]!;
    expect(add.lines[0]).toMatch(new RegExp(`^added ${name} \\(agent, expires \\S+Z\\) to ${srv.tokensFile}`));
    await expect.poll(async () => (await srv.gql(token, ABOUT)).status, { timeout: 1000, interval: 50 }).toBe(200);

    const list = cli();
    expect(await tokensCommand.run(['list'], list.ctx)).toBe(0);
    expect(list.lines[1]).toMatch(/^NAME +ROLE +OWNER +CREATED +EXPIRES$/);
    expect(list.lines.find((l) => l.startsWith(`${name} `))).toMatch(
      new RegExp(`^${name} +agent +${name} +\\S+Z +\\S+Z$`),
    );
    expect(list.lines.join('\n')).not.toMatch(/[0-9a-f]{64}|aitia_agent_/);

    const revoke = cli();
    expect(await tokensCommand.run(['revoke', '--name', name], revoke.ctx)).toBe(0);
    await expect.poll(async () => (await srv.gql(token, ABOUT)).status, { timeout: 1000, interval: 50 }).toBe(401);
    const who = `cli:${userInfo().username}`;
    expect((await auditOf(name)).map((a) => [a.principal, a.operation, a.outcome])).toEqual([
      [who, 'createToken', 'ok'],
      [who, 'revokeToken', 'ok'],
    ]);
  });

  it('a bad flag is answered before the graph opens, naming the flag', async () => {
    const { ctx } = cli();
    await expect(
      tokensCommand.run(['add', '--name', 'x', '--role', 'agent', '--expires-at', 'someday'], ctx),
    ).rejects.toThrow(/^--expires-at: "someday" is not ISO-8601/);
    await expect(tokensCommand.run(['add', '--name', 'x y', '--role', 'agent'], ctx)).rejects.toThrow(
      /^--name: "x y" is not a token name/,
    );
    await expect(tokensCommand.run(['revoke', '--name', `nobody-${scope}`], ctx)).rejects.toThrow(
      /^--name: no token named nobody-/,
    );
  });
});
