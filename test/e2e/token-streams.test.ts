import { request } from 'node:http';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedEntry, Role } from '../../src/model/index.js';
import { TokenStore } from '../../src/services/token-store.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribeSse, type SseSubscription } from '../support/sse.js';

/*
 * A token is checked for as long as a stream it opened stays open: SSE subscriptions and MCP
 * streams end within a few seconds of the token's revocation or expiry, and deliver nothing after.
 */

const { driver, scope } = useGraph();
let srv: TestServer;
let n = 0;

beforeAll(async () => {
  srv = await startTestServer(driver, { tokenPrefix: scope });
}, 120_000);
afterAll(async () => {
  await srv?.close();
});

/** A new token made by the operator through createToken; its name is unique in this file. */
async function newToken(role: Role, expiresAt?: string): Promise<{ name: string; token: string }> {
  const name = `${scope}-${role}-${++n}`;
  const { body } = await srv.gql(
    srv.tokens.operator,
    'mutation($i: CreateTokenInput!) { createToken(input: $i) { token } }',
    { i: { name, role, ...(expiresAt ? { expiresAt } : {}) } },
  );
  expect(body.errors).toBeUndefined();
  return { name, token: body.data.createToken.token };
}

async function revoke(name: string): Promise<void> {
  const { body } = await srv.gql(srv.tokens.operator, 'mutation($n: String!) { revokeToken(name: $n) { name } }', {
    n: name,
  });
  expect(body.errors).toBeUndefined();
}

/** How long until the stream ends, in ms, or Infinity when it is still open after `withinMs`. */
async function endsWithin(sub: SseSubscription, withinMs: number): Promise<number> {
  const started = Date.now();
  const ended = await Promise.race([
    sub.ended.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), withinMs)),
  ]);
  return ended ? Date.now() - started : Infinity;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let seq = 2_000_000_000;
/** A feed entry of `topic` as the feed tail would publish it. */
function publish(topic: Extract<FeedEntry['topic'], 'health' | 'condition' | 'transition' | 'approval'>): void {
  const at = DateTime.utc().toISO();
  const resourceId = `manual:service/${scope}-x`;
  const payload =
    topic === 'health'
      ? { from: 'healthy', to: 'unhealthy' }
      : topic === 'condition'
        ? { id: `${scope}-c${seq}`, type: 'state_unexpected', status: 'open', resourceId, openedAt: at }
        : topic === 'approval'
          ? {
              approval: { id: `${scope}-a${seq}`, targetId: resourceId, status: 'pending' },
              actor: scope,
              redeem: null,
            }
          : { id: `${scope}-t${seq}`, resourceId, kind: 'service', from: 'up', to: 'down', observedAt: at };
  srv.bus.publish({
    seq: ++seq,
    topic,
    resourceId,
    change: { health: 'changed', condition: 'opened', transition: 'observed', approval: 'requested' }[topic],
    at,
    payload,
  });
}

const SUBSCRIPTIONS = [
  { field: 'healthChanged', topic: 'health', query: 'subscription { healthChanged { sequence to } }' },
  { field: 'conditionChanged', topic: 'condition', query: 'subscription { conditionChanged { sequence change } }' },
  { field: 'transitionObserved', topic: 'transition', query: 'subscription { transitionObserved { sequence to } }' },
  { field: 'approvalChanged', topic: 'approval', query: 'subscription { approvalChanged { sequence change } }' },
] as const;

describe('SSE subscriptions end when their token no longer holds', () => {
  it.each(SUBSCRIPTIONS)(
    '$field: revoked → a last UNAUTHENTICATED result within 5 s, nothing delivered after',
    async ({ topic, query }) => {
      const { name, token } = await newToken('agent');
      const sub = await subscribeSse(srv.url, token, query);
      publish(topic);
      const first = await sub.next();
      expect(first.errors).toBeUndefined();
      await revoke(name);
      // Published after the revocation, before the periodic check: it must not be delivered.
      publish(topic);
      const elapsed = await endsWithin(sub, 5000);
      expect(elapsed).toBeLessThan(5000);
      expect(sub.received).toHaveLength(2);
      const last = sub.received[1];
      expect(last.data ?? null).toBeNull();
      expect(last.errors[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
      expect(last.errors[0].message).toMatch(new RegExp(`${name} was revoked`));
    },
  );

  it('ends without any event too, and a stream of another token stays open and delivering', async () => {
    const gone = await newToken('scheduler');
    const kept = await newToken('agent');
    const query = 'subscription { healthChanged { sequence } }';
    const [quiet, other] = await Promise.all([
      subscribeSse(srv.url, gone.token, query),
      subscribeSse(srv.url, kept.token, query),
    ]);
    await revoke(gone.name);
    expect(await endsWithin(quiet, 5000)).toBeLessThan(5000);
    expect(quiet.received.map((r) => r.errors?.[0]?.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    // Two periodic checks later the other token's stream still delivers.
    await new Promise((r) => setTimeout(r, 2200));
    publish('health');
    expect((await other.next()).errors).toBeUndefined();
    other.close();
  });

  it('a token revoked in the tokens file by another process (aitia tokens revoke) ends its stream', async () => {
    const { name, token } = await newToken('ingester');
    const sub = await subscribeSse(srv.url, token, 'subscription { conditionChanged { sequence } }');
    new TokenStore(srv.tokensFile).revoke(name);
    expect(await endsWithin(sub, 5000)).toBeLessThan(5000);
    expect(sub.received.at(-1).errors[0].message).toMatch(/was revoked/);
  });

  it('an expiring token: delivers while valid, ends within 5 s of its expiry naming it', async () => {
    const expiresAt = DateTime.utc().plus({ seconds: 3 }).startOf('second').plus({ seconds: 1 });
    const { name, token } = await newToken('agent', expiresAt.toISO({ suppressMilliseconds: true })!);
    const sub = await subscribeSse(srv.url, token, 'subscription { healthChanged { sequence } }');
    publish('health');
    expect((await sub.next()).errors).toBeUndefined();
    expect(await endsWithin(sub, expiresAt.diffNow().toMillis() + 5000)).toBeLessThan(Infinity);
    expect(Date.now() - expiresAt.toMillis()).toBeLessThan(5000);
    const last = sub.received.at(-1);
    expect(last.errors[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(last.errors[0].message).toMatch(new RegExp(`${name} expired at`));
    expect(sub.received).toHaveLength(2);
  }, 20_000);

  it('a token that is revoked before the subscription opens is refused with HTTP 401', async () => {
    const { name, token } = await newToken('agent');
    await revoke(name);
    await expect(subscribeSse(srv.url, token, 'subscription { healthChanged { sequence } }')).rejects.toThrow(/401/);
  });
});

/**
 * A POST whose body is sent in two parts: headers and the first part now (the token is checked),
 * the rest after `between()` (the token is revoked meanwhile). Resolves with the status and body,
 * or `closed` when the server cut the connection without an answer.
 */
function slowPost(
  path: string,
  token: string,
  body: string,
  between: () => Promise<void>,
): Promise<{ status: number; body: string } | 'closed'> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      ['ECONNRESET', 'EPIPE', 'ERR_STREAM_DESTROYED'].includes(err.code ?? '') ? resolve('closed') : reject(err),
    );
    req.write(body.slice(0, 10));
    between().then(
      () => {
        if (!req.destroyed) req.end(body.slice(10));
      },
      (err: unknown) => reject(err as Error),
    );
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'slow', version: '1' } },
});

describe('a request whose token is revoked while its body is still arriving', () => {
  it('/mcp: the connection is cut within 5 s, nothing is answered; the next request is 401', async () => {
    const { name, token } = await newToken('agent');
    let revokedAt = 0;
    const answer = await slowPost('/mcp', token, initialize, async () => {
      await pause(300); // the server has the headers and checked the token
      await revoke(name);
      revokedAt = Date.now();
      await new Promise((r) => setTimeout(r, 5000));
    });
    expect(answer).toBe('closed');
    expect(revokedAt).toBeGreaterThan(0);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    const next = await fetch(`${srv.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: initialize,
    });
    expect(next.status).toBe(401);
  }, 20_000);

  it('/mcp: the same slow body with a token that holds is answered', async () => {
    const answer = await slowPost('/mcp', srv.tokens.agent, initialize, () => new Promise((r) => setTimeout(r, 1500)));
    expect(answer).not.toBe('closed');
    expect((answer as { status: number }).status).toBe(200);
  });

  it('/graphql: an operation whose body completes after the revocation is refused UNAUTHENTICATED', async () => {
    const { name, token } = await newToken('agent');
    const body = JSON.stringify({ query: '{ about { principal } }' });
    const answer = await slowPost('/graphql', token, body, async () => {
      await pause(300);
      await revoke(name);
      await new Promise((r) => setTimeout(r, 1200));
    });
    expect(answer).not.toBe('closed');
    const { status, body: text } = answer as { status: number; body: string };
    expect(status).toBe(401);
    const parsed = JSON.parse(text);
    expect(parsed.data ?? null).toBeNull();
    expect(parsed.errors[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(parsed.errors[0].message).toMatch(/was revoked/);
    // The same slow body with a token that holds runs.
    const ok = await slowPost('/graphql', srv.tokens.agent, body, () => new Promise((r) => setTimeout(r, 1200)));
    expect(JSON.parse((ok as { body: string }).body).data.about.principal).toBe(`${scope}-agent`);
  });
});
