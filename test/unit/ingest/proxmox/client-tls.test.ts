import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxmoxClient, ProxmoxApiError } from '../../../../src/ingest/proxmox/client.js';

/** A self-signed certificate for 127.0.0.1, made with openssl (skipped without it, except under CI=true). */
function makeCert(dir: string): { key: string; cert: string } | null {
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=pve-standin',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: join(dir, 'key.pem'), cert: join(dir, 'cert.pem') };
  } catch (err) {
    // As for vcsim (test/support/vcsim.ts): in CI a missing or failing openssl fails, never skips.
    if (process.env.CI === 'true')
      throw new Error(
        `openssl could not make the test certificate (${String(err)}) — CI needs it (.ci/run installs it)`,
        { cause: err },
      );
    console.warn(`proxmox-client-tls: skipped, openssl could not make the test certificate (${String(err)})`);
    return null;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'aitia-tls-'));
const pems = makeCert(dir);
let server: Server;
let url = '';

beforeAll(async () => {
  if (!pems) return;
  server = createServer({ key: readFileSync(pems.key), cert: readFileSync(pems.cert) }, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ data: { version: '8.4.1' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if (server) await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

// Skipped only outside CI where openssl is missing (it makes the test certificate); .ci/run installs it.
describe.skipIf(!pems)('ProxmoxClient TLS', () => {
  const token = 'aitia@pve!inventory=secret';

  it('verifies the certificate by default and says how to fix a failure', async () => {
    const err = await createProxmoxClient({ baseUrl: url, token, retries: 0 })
      .get('/version')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProxmoxApiError);
    expect(err).toMatchObject({ kind: 'tls', attempts: 1 });
    expect((err as Error).message).toMatch(/AITIA_PROXMOX_CA_FILE .* AITIA_PROXMOX_INSECURE=true/);
  });

  it('trusts the CA file it is given', async () => {
    const client = createProxmoxClient({ baseUrl: url, token, caFile: pems!.cert });
    expect(await client.get('/version')).toEqual({ version: '8.4.1' });
    client.close();
  });

  it('skips verification only when told to', async () => {
    const client = createProxmoxClient({ baseUrl: url, token, insecure: true });
    expect(await client.get('/version')).toEqual({ version: '8.4.1' });
    client.close();
  });
});
