import { describe, expect, it } from 'vitest';
import {
  classifyAddress,
  classifyHostName,
  CheckDefinitionSchema,
  judgeCheckTarget,
  literalTargetRefusal,
  parseCheckAllow,
  parseIp,
  STRICT_CHECK_POLICY,
  type CheckNetworkPolicy,
} from '../../../src/model/index.js';
import { loadConfig } from '../../../src/config.js';
import { vetTarget } from '../../../src/scheduler/probes/vet-target.js';

const ip = (t: string) => {
  const p = parseIp(t);
  if (!p) throw new Error(`not an address: ${t}`);
  return p;
};

describe('classifyAddress: what a check may not reach unless allowed', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.3.4', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['017700000001', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['127.1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['0xa9fea9fe', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    // IPv6 forms that carry an IPv4 address elsewhere than the last 32 bits, or obfuscated.
    ['::ffff:0:7f00:1', 'loopback'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['2002:a9fe:1:1::1', 'link-local'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata'],
    ['64:ff9b:1:7f00:1::', 'loopback'],
    ['64:ff9b:1:a9:fe:a9fe::', 'metadata'],
    ['64:ff9b:1:0:7f:0:1::', 'loopback'],
    ['64:ff9b:1::7f00:1', 'loopback'],
  ])('%s is %s', (text, category) => {
    expect(classifyAddress(ip(text))).toBe(category);
  });

  it.each([
    '10.20.0.53',
    '192.168.1.10',
    '172.16.0.1',
    '100.64.0.1',
    '8.8.8.8',
    '2001:db8::1',
    'fd12:3456::1',
    'fec0::1',
    '::ffff:10.0.0.1',
    '2002:c000:201::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '64:ff9b:1:c000:2::',
    '169.253.255.255',
    '128.0.0.1',
  ])('%s is an ordinary address', (text) => {
    expect(classifyAddress(ip(text))).toBeNull();
  });

  it.each(['web01.lan', '1.2.3', '999.1.1.1', '1::2::3', 'gggg::1', '', '::ffff:999.0.0.1'])(
    '%s is not an address',
    (t) => {
      if (t === '1.2.3') expect(parseIp(t)).toMatchObject({ family: 4, bytes: [1, 2, 0, 3] });
      else expect(parseIp(t)).toBeNull();
    },
  );

  it.each([
    ['localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
    ['api.localhost', 'loopback'],
    ['metadata.google.internal', 'metadata'],
    ['metadata.goog', 'metadata'],
    ['web01.lan', null],
    ['localhost.lan', null],
  ])('the name %s is %s', (name, category) => {
    expect(classifyHostName(name)).toBe(category);
  });
});

describe('AITIA_CHECK_ALLOW', () => {
  it('parses addresses, CIDRs, host names and ports', () => {
    const parsed = parseCheckAllow('127.0.0.1, 127.0.0.0/8:8080, [::1]:9000, [fe80::/10], localhost:8080, web.lan');
    expect(parsed.ok && parsed.entries.map((e) => [e.kind, e.port])).toEqual([
      ['cidr', null],
      ['cidr', 8080],
      ['cidr', 9000],
      ['cidr', null],
      ['host', 8080],
      ['host', null],
    ]);
  });

  it.each(['127.0.0.1:0', '127.0.0.1:99999', '10.0.0.0/33', '[::1]:x', 'a b', '::1/200', 'http://x'])(
    'refuses %s naming the entry',
    (entry) => {
      const parsed = parseCheckAllow(entry);
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.reason).toContain(`"${entry}"`);
      expect(() => loadConfig({ AITIA_CHECK_ALLOW: entry })).toThrow(/AITIA_CHECK_ALLOW: entry/);
    },
  );

  it('loadConfig carries the entries', () => {
    expect(loadConfig({ AITIA_CHECK_ALLOW: '127.0.0.1' }).checkAllow).toHaveLength(1);
    expect(loadConfig({}).checkAllow).toEqual([]);
  });
});

describe('judging a target', () => {
  const allow = (
    text: string,
    protectedEndpoints: CheckNetworkPolicy['protectedEndpoints'] = [],
  ): CheckNetworkPolicy => ({
    allow: loadConfig({ AITIA_CHECK_ALLOW: text }).checkAllow,
    protectedEndpoints,
  });

  it('refuses loopback by default and says how to allow it', () => {
    expect(judgeCheckTarget(STRICT_CHECK_POLICY, { host: '127.0.0.1', address: ip('127.0.0.1'), port: 80 })).toBe(
      'refused: address 127.0.0.1 is loopback; allow it with AITIA_CHECK_ALLOW',
    );
  });

  it('allows what the list names, and only on the port it names', () => {
    const target = { host: '127.0.0.1', address: ip('127.0.0.1'), port: 8080 };
    expect(judgeCheckTarget(allow('127.0.0.0/8'), target)).toBeNull();
    expect(judgeCheckTarget(allow('127.0.0.1:8080'), target)).toBeNull();
    expect(judgeCheckTarget(allow('127.0.0.1:9090'), target)).toMatch(/^refused/);
    expect(judgeCheckTarget(allow('::1'), target)).toMatch(/^refused/);
    // A mapped form of an allowed address is not an allowed address: the list names what it means.
    expect(
      judgeCheckTarget(allow('169.254.0.0/16'), { host: 'x', address: ip('169.254.169.254'), port: 80 }),
    ).toBeNull();
  });

  it("aitia's own Neo4j is refused even when loopback is allowed, unless named with its port", () => {
    const neo4j = [{ host: '127.0.0.1', port: 7687 }];
    for (const address of ['127.0.0.1', '127.0.0.2', '0.0.0.0', '::1', '::ffff:127.0.0.1'])
      expect(
        judgeCheckTarget(allow('127.0.0.0/8,::/0,0.0.0.0/8', neo4j), {
          host: address,
          address: ip(address),
          port: 7687,
        }),
      ).toMatch(/aitia's own Neo4j/);
    expect(
      judgeCheckTarget(allow('127.0.0.1:7687', neo4j), { host: '127.0.0.1', address: ip('127.0.0.1'), port: 7687 }),
    ).toBeNull();
    expect(
      judgeCheckTarget(allow('127.0.0.0/8', neo4j), { host: '127.0.0.1', address: ip('127.0.0.1'), port: 7688 }),
    ).toBeNull();
    const remote = [{ host: 'db.lan', port: 7687 }];
    expect(
      judgeCheckTarget(allow('', remote), { host: 'other.lan', address: ip('10.0.0.5'), port: 7687 }, [ip('10.0.0.5')]),
    ).toMatch(/Neo4j/);
    expect(judgeCheckTarget(allow('', remote), { host: 'DB.lan.', address: ip('10.0.0.9'), port: 7687 })).toMatch(
      /Neo4j/,
    );
  });

  it('creation refuses literal forbidden targets, in every spelling, and names as written', () => {
    for (const host of [
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '017700000001',
      '[::1]',
      '::ffff:127.0.0.1',
      '169.254.169.254',
      'localhost',
      'metadata.google.internal',
      '0.0.0.0',
    ])
      expect(literalTargetRefusal(STRICT_CHECK_POLICY, host, 80), host).toMatch(/^refused: address .* is /);
    expect(literalTargetRefusal(STRICT_CHECK_POLICY, 'web01.lan', 80)).toBeNull();
    expect(literalTargetRefusal(STRICT_CHECK_POLICY, '10.20.0.53', 80)).toBeNull();
  });
});

describe('vetTarget resolves once and judges every address', () => {
  const fake = (answers: Record<string, string[]>) => async (host: string) => {
    const a = answers[host];
    if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return a;
  };

  it('refuses a name that resolves to loopback, or to a mix with one forbidden address', async () => {
    const resolve = fake({
      'evil.example': ['93.184.216.34', '127.0.0.1'],
      'ok.lan': ['10.0.0.7'],
      'meta.example': ['::ffff:169.254.169.254'],
    });
    expect(await vetTarget(STRICT_CHECK_POLICY, 'evil.example', 80, resolve)).toEqual({
      ok: false,
      refused: true,
      reason: 'refused: address 127.0.0.1 is loopback; allow it with AITIA_CHECK_ALLOW',
    });
    expect(await vetTarget(STRICT_CHECK_POLICY, 'meta.example', 80, resolve)).toMatchObject({
      refused: true,
      reason: expect.stringMatching(/metadata/),
    });
    expect(await vetTarget(STRICT_CHECK_POLICY, 'ok.lan', 80, resolve)).toEqual({
      ok: true,
      address: '10.0.0.7',
      family: 4,
    });
    expect(await vetTarget(STRICT_CHECK_POLICY, 'nowhere.lan', 80, resolve)).toMatchObject({
      ok: false,
      refused: false,
    });
  });

  it('localhost is refused without asking the resolver', async () => {
    let asked = 0;
    const resolve = async () => {
      asked++;
      return ['10.0.0.1'];
    };
    expect(await vetTarget(STRICT_CHECK_POLICY, 'localhost', 80, resolve)).toMatchObject({ refused: true });
    expect(asked).toBe(0);
  });
});

describe('check URLs carry no credentials', () => {
  it.each([
    'http://user:pw@web01.lan/',
    'http://user@web01.lan/',
    'https://web01.lan/health?token=abc',
    'https://web01.lan/health?api_key=abc',
    'https://web01.lan/health?Password=abc',
  ])('%s is refused', (url) => {
    const parsed = CheckDefinitionSchema.safeParse({ kind: 'http', spec: { url } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.message).toMatch(/must not carry/);
  });

  it('an ordinary URL with a query passes', () => {
    expect(
      CheckDefinitionSchema.safeParse({ kind: 'http', spec: { url: 'https://web01.lan/health?verbose=1' } }).success,
    ).toBe(true);
  });
});
