import { describe, expect, it } from 'vitest';
import { CheckDefinitionSchema, CheckIntervalSchema, parseCreateCheckInput } from '../../../src/model/index.js';

describe('CheckDefinitionSchema', () => {
  it('fills defaults: expectedStatus 200, timeoutMs 5000', () => {
    expect(CheckDefinitionSchema.parse({ kind: 'http', spec: { url: 'http://127.0.0.1:8080/health' } })).toEqual({
      kind: 'http',
      spec: { url: 'http://127.0.0.1:8080/health', expectedStatus: 200, timeoutMs: 5000 },
    });
    expect(CheckDefinitionSchema.parse({ kind: 'tcp', spec: { host: '10.0.0.5', port: 22 } }).spec).toEqual({
      host: '10.0.0.5',
      port: 22,
      timeoutMs: 5000,
    });
    expect(CheckDefinitionSchema.parse({ kind: 'provider_state', spec: {} })).toEqual({
      kind: 'provider_state',
      spec: {},
    });
  });

  const bad: Array<[string, unknown, string]> = [
    ['non-http URL', { kind: 'http', spec: { url: 'ftp://x/' } }, 'spec.url'],
    ['relative URL', { kind: 'http', spec: { url: '/health' } }, 'spec.url'],
    ['status out of range', { kind: 'http', spec: { url: 'http://x/', expectedStatus: 700 } }, 'spec.expectedStatus'],
    ['timeout too small', { kind: 'http', spec: { url: 'http://x/', timeoutMs: 5 } }, 'spec.timeoutMs'],
    ['port 0', { kind: 'tcp', spec: { host: 'h', port: 0 } }, 'spec.port'],
    ['host with a space', { kind: 'tcp', spec: { host: 'a b', port: 1 } }, 'spec.host'],
    ['unknown spec key', { kind: 'tcp', spec: { host: 'h', port: 1, retries: 3 } }, 'spec'],
    ['spec for a state check', { kind: 'provider_state', spec: { url: 'http://x/' } }, 'spec'],
    ['unknown kind', { kind: 'icmp', spec: {} }, 'kind'],
  ];
  it.each(bad)('refuses %s, naming %s', (_n, input, path) => {
    const r = CheckDefinitionSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path.join('.')).toBe(path);
  });

  it('bounds the interval: 5 s to a day, default 60', () => {
    expect(CheckIntervalSchema.parse(undefined)).toBe(60);
    expect(CheckIntervalSchema.safeParse(4).success).toBe(false);
    expect(CheckIntervalSchema.safeParse(86_401).success).toBe(false);
    expect(CheckIntervalSchema.safeParse(7.5).success).toBe(false);
  });
});

describe('parseCreateCheckInput (createCheck’s input → definition, or the field and reason)', () => {
  const table: Array<[string, Record<string, unknown>, string | null, RegExp | null]> = [
    ['http with defaults', { kind: 'http', http: { url: 'http://127.0.0.1/' } }, null, null],
    [
      'GraphQL nulls take the defaults',
      { kind: 'http', http: { url: 'http://127.0.0.1/', timeoutMs: null }, intervalSeconds: null },
      null,
      null,
    ],
    ['state check without a spec', { kind: 'provider_state' }, null, null],
    ['http without http', { kind: 'http' }, 'input.http', /required for a http check/],
    [
      'http with a tcp spec too',
      { kind: 'http', http: { url: 'http://x/' }, tcp: { host: 'h', port: 1 } },
      'input.tcp',
      /not used by a http check/,
    ],
    ['state check with a spec', { kind: 'proxmox_agent', http: { url: 'http://x/' } }, 'input.http', /give no spec/],
    ['bad url', { kind: 'http', http: { url: 'nope' } }, 'input.http.url', /absolute http/],
    ['bad port', { kind: 'tcp', tcp: { host: 'h', port: 0 } }, 'input.tcp.port', /port/],
    [
      'bad interval',
      { kind: 'tcp', tcp: { host: 'h', port: 22 }, intervalSeconds: 3 },
      'input.intervalSeconds',
      /at least 5/,
    ],
    ['unknown kind', { kind: 'ping' }, 'input.kind', /one of http, tcp/],
  ];
  it.each(table)('%s', (_n, input, field, reason) => {
    const r = parseCreateCheckInput(input as never);
    if (field === null) {
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.intervalSeconds).toBe(60);
    } else {
      expect(r).toMatchObject({ ok: false, field });
      if (!r.ok) expect(r.reason).toMatch(reason!);
    }
  });
});
