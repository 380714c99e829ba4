import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { configuredSources, loadSourcesFile } from '../../../src/sources-file.js';

const dir = mkdtempSync(join(tmpdir(), 'aitia-sources-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const p = join(dir, `s${n++}.yaml`);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};

describe('the sources file', () => {
  it('reads Proxmox and vCenter entries with defaults and secrets from files', () => {
    writeFileSync(join(dir, 'pw'), 'hunter2\n');
    const specs = loadSourcesFile(
      file(
        [
          'sources:',
          '  - { name: lab, kind: proxmox, url: "https://pve1.lan:8006", token: "a@pve!t=s" }',
          `  - { name: vc01, kind: vcenter, url: "https://vc01.lan", username: ro, password_file: ${join(dir, 'pw')}, poll_seconds: 120 }`,
        ].join('\n'),
      ),
    );
    expect(specs[0]).toMatchObject({ kind: 'proxmox', name: 'lab', token: 'a@pve!t=s', pollSeconds: 30, missing: null });
    expect(specs[1]).toMatchObject({ kind: 'vcenter', server: 'vc01', password: 'hunter2', pollSeconds: 120, insecure: false });
  });

  it.each([
    ['  - { name: vc01, kind: vcenter, url: "ftp://x" }', /sources\[0\] "vc01": url: must be the API base/],
    ['  - { name: vc01, kind: vcenter, url: "https://x", colour: red }', /sources\[0\] "vc01": .*colour/],
    ['  - { name: lab, kind: proxmox, url: "https://x", token: secret }', /sources\[0\] "lab": token: must look like/],
    ['  - { name: x, kind: hyperv, url: "https://x" }', /sources\[0\] "x": kind/],
    ['  - { name: vc01, kind: vcenter, url: "https://x", username: u, password_file: /nonexistent/pw }', /sources\[0\] "vc01": password_file: cannot read \/nonexistent\/pw/],
    ['  - { name: a, kind: vcenter, url: "https://x" }\n  - { name: a, kind: vcenter, url: "https://y" }', /sources\[1\] "a": name: "a" is used by an earlier entry/],
  ])('refuses %s naming the entry', (entry, message) => {
    expect(() => loadSourcesFile(file(`sources:\n${entry}`))).toThrow(message);
  });

  it('the single-source variables keep working beside it; a name used twice is refused', () => {
    const env = { AITIA_PROXMOX_URL: 'https://pve1.lan:8006', AITIA_VCENTER_URL: 'https://vc02.lan' };
    const specs = configuredSources(loadConfig(env));
    expect(specs.map((s) => `${s.kind} ${s.name} ${s.missing ?? 'ok'}`)).toEqual([
      'proxmox proxmox no credentials (AITIA_PROXMOX_TOKEN)',
      'vcenter vc02.lan no credentials (AITIA_VCENTER_USER and AITIA_VCENTER_PASSWORD or _FILE)',
    ]);
    const twice = file('sources:\n  - { name: vc02.lan, kind: vcenter, url: "https://vc02.lan" }');
    expect(() => configuredSources(loadConfig({ ...env, AITIA_SOURCES_FILE: twice }))).toThrow(/configured twice/);
  });
});
