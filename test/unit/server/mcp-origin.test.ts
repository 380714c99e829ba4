import { describe, expect, it } from 'vitest';
import { originRefusal, originSet } from '../../../src/server/mcp-origin.js';

const allowed = originSet(['https://ops.lan', 'http://Tools.Lan:8080/']);

describe('/mcp Origin check (DNS rebinding protection)', () => {
  it.each([
    ['no Origin: not a browser', undefined, '127.0.0.1:4000'],
    ['no Origin under any Host (compose service names)', undefined, 'aitia:4000'],
    ['a listed origin', 'https://ops.lan', 'aitia.lan:4000'],
    ['a listed origin, compared as an origin', 'http://tools.lan:8080', 'aitia.lan:4000'],
    ['the server’s own origin on loopback', 'http://127.0.0.1:4000', '127.0.0.1:4000'],
    ['the server’s own origin as localhost', 'http://localhost:4000', 'localhost:4000'],
    ['the server’s own origin on IPv6 loopback', 'http://[::1]:4000', '[::1]:4000'],
    ['the server’s own origin on a LAN address', 'http://192.168.1.20:4000', '192.168.1.20:4000'],
  ])('allows %s', (_name, origin, host) => {
    expect(originRefusal(origin, host, allowed)).toBeNull();
  });

  it.each([
    ['another site', 'https://evil.example', '127.0.0.1:4000'],
    [
      'a rebound name: Host and Origin agree, but a DNS answer stands behind them',
      'http://evil.example:4000',
      'evil.example:4000',
    ],
    ['loopback on another port', 'http://127.0.0.1:5173', '127.0.0.1:4000'],
    ['localhost while Host says 127.0.0.1', 'http://localhost:4000', '127.0.0.1:4000'],
    ['another scheme of a listed origin', 'http://ops.lan', '127.0.0.1:4000'],
    ['a listed host on another port', 'https://ops.lan:8443', '127.0.0.1:4000'],
    ['the opaque origin null (sandboxed frames, files)', 'null', '127.0.0.1:4000'],
    ['no origin at all', '', '127.0.0.1:4000'],
    ['not http', 'chrome-extension://abcdef', '127.0.0.1:4000'],
    ['file', 'file://', '127.0.0.1:4000'],
    ['a suffix of a listed origin', 'https://ops.lan.evil.example', '127.0.0.1:4000'],
  ])('refuses %s', (_name, origin, host) => {
    const refusal = originRefusal(origin, host, allowed);
    expect(refusal).toMatch(/Origin/);
    expect(refusal).toMatch(/AITIA_CORS_ORIGINS/);
  });
});
