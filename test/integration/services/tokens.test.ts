import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expiryFromDuration } from '../../../src/cli/tokens.js';
import { type AitiaError } from '../../../src/model/index.js';
import { TokenStore } from '../../../src/services/token-store.js';
import {
  createToken,
  listTokens,
  parseCreateTokenInput,
  refuseExpiredToken,
  revokeToken,
} from '../../../src/services/tokens.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';
import { tempDirs } from '../../support/temp.js';
import { useGraph } from '../../support/graph.js';

const NOW = new Date('2026-05-14T02:00:00Z');

/** Service deps over a fresh tokens file, recording audit lines and warnings. */
const { driver, scope } = useGraph();
const tempDir = tempDirs();
const operator = principalOf(scope, 'operator');
const agent = principalOf(scope, 'agent');
/** Token names hold the file's scope, so the audit lines written under them go with its data. */
const claude = `claude-${scope}`;
const temp = `temp-${scope}`;

function tokenDeps(now: () => Date = () => NOW) {
  const deps = serviceDeps(driver);
  const warnings: Array<Record<string, unknown>> = [];
  deps.log = { ...deps.log, warn: (obj: Record<string, unknown>) => warnings.push(obj) } as never;
  deps.tokens = new TokenStore(join(tempDir('aitia-tokens-svc'), 'tokens.json'), { now });
  return { deps, warnings, store: deps.tokens };
}

/** Every audit line of this file's principals and tokens since `from`, oldest first. */
async function auditSince(from: string) {
  const lines = [
    ...(await auditOf(driver, operator)),
    ...(await auditOf(driver, agent)),
    ...(await auditOf(driver, { name: temp, role: 'agent' })),
  ];
  // Compared as times, not as text: ISO-8601 from Neo4j drops trailing zeros of the fraction
  // ("…:01.4Z" is 01.400), so "…:01.4Z" >= "…:01.450Z" as text, though it is earlier.
  const ms = (iso: string) => Date.parse(iso);
  return lines.filter((a) => ms(a.at) >= ms(from)).sort((a, b) => ms(a.at) - ms(b.at));
}

function refusal(fn: () => unknown): AitiaError {
  try {
    fn();
  } catch (e) {
    return e as AitiaError;
  }
  throw new Error('not refused');
}

describe('createToken input', () => {
  it.each([
    [{ name: 'has space', role: 'agent' }, 'input.name', /"has space" is not a token name/],
    [{ name: '', role: 'agent' }, 'input.name', /is not a token name/],
    [{ name: 'x'.repeat(129), role: 'agent' }, 'input.name', /is not a token name/],
    [{ name: 'claude', role: 'root' }, 'input.role', /must be one of agent, scheduler, ingester, operator/],
    [{ name: 'claude', role: 'agent', expiresAt: 'tomorrow' }, 'input.expiresAt', /"tomorrow" is not ISO-8601/],
    [
      { name: 'claude', role: 'agent', expiresAt: '2026-05-14T01:59:59Z' },
      'input.expiresAt',
      /must be in the future \(it is 2026-05-14T02:00:00Z now\)/,
    ],
  ])('%j is refused naming %s', (input, field, message) => {
    const err = refusal(() => parseCreateTokenInput(input, NOW));
    expect(err).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(err.message).toMatch(message);
  });

  it('an expiry in any offset is kept in UTC', () => {
    expect(
      parseCreateTokenInput({ name: 'ci.bot@lab', role: 'ingester', expiresAt: '2026-06-01T12:00:00+02:00' }, NOW),
    ).toEqual({ name: 'ci.bot@lab', role: 'ingester', expiresAt: '2026-06-01T10:00:00Z' });
  });

  it('the CLI reads --expires-in 90d and 12h', () => {
    expect(expiryFromDuration('90d', NOW)).toBe('2026-08-12T02:00:00Z');
    expect(expiryFromDuration('12h', NOW)).toBe('2026-05-14T14:00:00Z');
    expect(expiryFromDuration('1d', new Date('2026-05-14T02:00:00.999Z'))).toBe('2026-05-15T02:00:00Z');
    expect(expiryFromDuration('0d', NOW)).toBeNull();
    expect(expiryFromDuration('soon', NOW)).toBeNull();
  });
});

describe('token operations', () => {
  it('createToken returns the token once, stores its hash, and audits without the token', async () => {
    const from = new Date().toISOString();
    const { deps, store } = tokenDeps();
    const { token, tokenInfo } = await createToken(deps, operator, {
      name: claude,
      role: 'agent',
      expiresAt: '2026-06-01T00:00:00Z',
    });
    expect(token).toMatch(/^aitia_agent_/);
    expect(tokenInfo).toEqual({
      name: claude,
      role: 'agent',
      owner: claude,
      createdBy: operator.name,
      createdAt: '2026-05-14T02:00:00Z',
      expiresAt: '2026-06-01T00:00:00Z',
      expired: false,
      expiredRefusals: 0,
      lastExpiredRefusalAt: null,
    });
    expect(store.authenticate(token)).toEqual({ name: claude, role: 'agent' });
    expect(await auditSince(from)).toEqual([
      expect.objectContaining({
        principal: operator.name,
        operation: 'createToken',
        targetIds: [`token:${claude}`],
        outcome: 'ok',
        detail: 'role agent, expires 2026-06-01T00:00:00Z',
      }),
    ]);
    expect(JSON.stringify(await auditSince(from))).not.toContain(token);
  });

  it('a second token with the same name is a CONFLICT naming input.name; the first keeps working', async () => {
    const { deps, store } = tokenDeps();
    const { token } = await createToken(deps, operator, { name: claude, role: 'agent' });
    await expect(createToken(deps, operator, { name: claude, role: 'operator' })).rejects.toMatchObject({
      code: 'CONFLICT',
      field: 'input.name',
    });
    expect(store.authenticate(token)).toEqual({ name: claude, role: 'agent' });
  });

  it('agents may not list, create or revoke tokens; the attempts are audited as refused', async () => {
    const from = new Date().toISOString();
    const { deps } = tokenDeps();
    expect(() => listTokens(deps, agent)).toThrow('lacks permission token:read; it is held by: operator');
    await expect(createToken(deps, agent, { name: 'mine', role: 'operator' })).rejects.toThrow(
      'lacks permission token:manage',
    );
    await expect(revokeToken(deps, agent, { name: 'mine' })).rejects.toThrow('lacks permission token:manage');
    expect((await auditSince(from)).map((a) => [a.operation, a.outcome])).toEqual([
      ['createToken', 'refused'],
      ['revokeToken', 'refused'],
    ]);
  });

  it('revokeToken removes the token (audited); an unknown name is NOT_FOUND naming the field', async () => {
    const from = new Date().toISOString();
    const { deps, store } = tokenDeps();
    const { token } = await createToken(deps, operator, { name: claude, role: 'agent' });
    expect(await revokeToken(deps, operator, { name: claude })).toMatchObject({ name: claude, role: 'agent' });
    expect(store.authenticate(token)).toBeNull();
    expect(listTokens(deps, operator)).toEqual([]);
    await expect(revokeToken(deps, operator, { name: claude })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      field: 'name',
    });
    expect((await auditSince(from)).map((a) => [a.operation, a.outcome, a.detail])).toEqual([
      ['createToken', 'ok', 'role agent, no expiry'],
      ['revokeToken', 'ok', 'role agent'],
      ['revokeToken', 'refused', `NOT_FOUND: name: no token named ${claude} (known: none)`],
    ]);
  });

  it('an expired token: every refusal is logged and counted, the first one audited', async () => {
    let now = NOW;
    const from = new Date().toISOString();
    const { deps, warnings, store } = tokenDeps(() => now);
    const { token } = await createToken(deps, operator, {
      name: temp,
      role: 'agent',
      expiresAt: '2026-05-14T03:00:00Z',
    });
    now = new Date('2026-05-14T04:00:00Z');
    const checked = store.check(token);
    if (checked.ok || checked.reason !== 'expired') throw new Error('expected an expired token');
    const message = await refuseExpiredToken(deps, checked.entry);
    await refuseExpiredToken(deps, checked.entry);
    expect(message).toBe(`bearer token ${temp} expired at 2026-05-14T03:00:00Z; ask an operator for a new one`);
    expect(warnings).toEqual([
      { token: temp, role: 'agent', expiresAt: '2026-05-14T03:00:00Z', refusals: 1 },
      { token: temp, role: 'agent', expiresAt: '2026-05-14T03:00:00Z', refusals: 2 },
    ]);
    expect((await auditSince(from)).filter((a) => a.operation === 'authenticate')).toEqual([
      expect.objectContaining({
        principal: temp,
        role: 'agent',
        targetIds: [`token:${temp}`],
        outcome: 'refused',
        detail: expect.stringMatching(
          new RegExp(`^UNAUTHENTICATED: bearer token ${temp} expired at 2026-05-14T03:00:00Z`),
        ),
      }),
    ]);
    expect(listTokens(deps, operator)).toEqual([
      expect.objectContaining({
        name: temp,
        expired: true,
        expiredRefusals: 2,
        lastExpiredRefusalAt: '2026-05-14T04:00:00Z',
      }),
    ]);
  });
});
