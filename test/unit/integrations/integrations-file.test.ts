import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { configuredIntegrations, loadIntegrationsFile } from '../../../src/integrations/integrations-file.js';

const dir = mkdtempSync(join(tmpdir(), 'aitia-integrations-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const p = join(dir, `i${n++}.yaml`);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};
const KEY = 'k'.repeat(32);

describe('the integrations file', () => {
  it('reads webhook and Slack targets, the Alertmanager with secrets from files, and maps the actors', () => {
    writeFileSync(join(dir, 'key'), `${KEY}\n`);
    writeFileSync(join(dir, 'am-pw'), 'hunter2\n');
    const spec = loadIntegrationsFile(
      file(
        [
          'notifications:',
          `  - { name: ops, kind: webhook, url: "https://hooks.lan/aitia", secret_file: ${join(dir, 'key')}, events: [approval.requested, condition.opened] }`,
          '  - { name: chat, kind: slack, url: "https://hooks.slack.com/services/T/B/x", events: [transition.unexplained] }',
          'alertmanager:',
          '  url: "http://127.0.0.1:9093/"',
          `  basic_auth: { username: aitia, password_file: ${join(dir, 'am-pw')} }`,
          '  labels: { instance: "{name}", vmid: "{attr.vmid}", job: "pve-{kind}" }',
          'actors:',
          '  - { provider: proxmox, user: "rhodes@pve!ops", principal: rhodes }',
          '  - { provider: vcenter, user: "VSPHERE.LOCAL\\\\svc-rhodes", principal: rhodes }',
        ].join('\n'),
      ),
    );
    expect(spec.notifications).toEqual([
      {
        name: 'ops',
        kind: 'webhook',
        url: 'https://hooks.lan/aitia',
        secret: KEY,
        events: ['approval.requested', 'condition.opened'],
      },
      {
        name: 'chat',
        kind: 'slack',
        url: 'https://hooks.slack.com/services/T/B/x',
        secret: null,
        events: ['transition.unexplained'],
      },
    ]);
    expect(spec.alertmanager).toEqual({
      url: 'http://127.0.0.1:9093',
      basicAuth: { username: 'aitia', password: 'hunter2' },
      bearerToken: null,
      labels: { instance: '{name}', vmid: '{attr.vmid}', job: 'pve-{kind}' },
      silenceDependents: true,
      receiverSecret: null,
    });
    expect(spec.actors).toEqual([
      { provider: 'proxmox', user: 'rhodes@pve!ops', principal: 'rhodes' },
      { provider: 'vcenter', user: 'VSPHERE.LOCAL\\svc-rhodes', principal: 'rhodes' },
    ]);
  });

  it('an empty file and an unset variable mean no integrations', () => {
    expect(loadIntegrationsFile(file(''))).toEqual({ notifications: [], alertmanager: null, actors: [] });
    expect(configuredIntegrations(loadConfig({}))).toEqual({ notifications: [], alertmanager: null, actors: [] });
  });

  it('reads a bearer token from its file', () => {
    writeFileSync(join(dir, 'bearer'), 'tok\n');
    const spec = loadIntegrationsFile(
      file(
        `alertmanager: { url: "https://am.lan", bearer_token_file: ${join(dir, 'bearer')}, labels: { instance: "{name}" }, silence_dependents: false }`,
      ),
    );
    expect(spec.alertmanager).toMatchObject({ bearerToken: 'tok', basicAuth: null, silenceDependents: false });
  });

  const hook = (extra: string) => `notifications:\n  - { name: ops, kind: webhook, url: "https://h.lan", ${extra} }`;
  it.each([
    [hook(`secret: "${KEY}", events: [approval.sent]`), /notifications\[0\] "ops": events\.0: Invalid option/],
    [hook(`secret: "${KEY}", events: []`), /notifications\[0\] "ops": events: must list at least one event/],
    [hook('events: [grant.redeemed]'), /notifications\[0\] "ops": secret: a webhook needs secret or secret_file/],
    [
      hook('secret: short, events: [grant.redeemed]'),
      /notifications\[0\] "ops": secret: must be at least 16 characters/,
    ],
    [
      hook(`secret: "${KEY}", secret_file: /x, events: [grant.redeemed]`),
      /notifications\[0\] "ops": secret: give the secret or its file, not both/,
    ],
    [
      hook('secret_file: /nonexistent/key, events: [grant.redeemed]'),
      /notifications\[0\] "ops": secret_file: cannot read \/nonexistent\/key/,
    ],
    [hook(`secret: "${KEY}", events: [grant.redeemed], colour: red`), /notifications\[0\] "ops": entry: .*colour/],
    [
      'notifications:\n  - { name: ops, kind: email, url: "https://h.lan", events: [grant.redeemed] }',
      /notifications\[0\] "ops": kind/,
    ],
    [
      'notifications:\n  - { name: ops, kind: slack, url: "ftp://h.lan", events: [grant.redeemed] }',
      /notifications\[0\] "ops": url: must be an http/,
    ],
    [
      'notifications:\n  - { name: ops, kind: slack, url: "https://h.lan", secret: "' +
        KEY +
        '", events: [grant.redeemed] }',
      /"ops": secret: a slack target is not signed/,
    ],
    [
      'notifications:\n  - { name: a, kind: slack, url: "https://h.lan", events: [grant.redeemed] }\n  - { name: a, kind: slack, url: "https://i.lan", events: [grant.redeemed] }',
      /notifications\[1\] "a": name: "a" is used by an earlier entry/,
    ],
    [
      'alertmanager: { url: "https://am.lan", labels: { instance: "{nom}" } }',
      /alertmanager\.labels\.instance: unknown placeholder \{nom\}/,
    ],
    [
      'alertmanager: { url: "https://am.lan", labels: { instance: "{name" } }',
      /alertmanager\.labels\.instance: has an unmatched/,
    ],
    ['alertmanager: { url: "https://am.lan", labels: {} }', /alertmanager\.labels: must map at least one alert label/],
    [
      'alertmanager: { url: "https://am.lan", labels: { "bad-label": "{name}" } }',
      /alertmanager\.labels\.bad-label: must be an alert label name/,
    ],
    [
      'alertmanager: { url: "https://am.lan", labels: { i: "{name}" }, basic_auth: { username: u } }',
      /alertmanager: basic_auth: needs password or password_file/,
    ],
    [
      'alertmanager: { url: "https://am.lan", labels: { i: "{name}" }, basic_auth: { username: u, password: p }, bearer_token_file: /x }',
      /alertmanager\.bearer_token_file: give basic_auth or bearer_token_file, not both/,
    ],
    ['actors:\n  - { email: alice@lan }', /actors\[0\]: (provider|entry)/],
    ['actors:\n  - { provider: xen, user: a, principal: b }', /actors\[0\]: provider: Invalid option/],
    [
      'actors:\n  - { provider: proxmox, user: rhodes, principal: b }',
      /actors\[0\]: user: "rhodes" is not a Proxmox user@realm/,
    ],
    ['actors:\n  - { provider: proxmox, user: "a@pve!", principal: b }', /actors\[0\]: user: .*not a Proxmox/],
    ['actors:\n  - { provider: vcenter, user: "A\\\\b@c", principal: b }', /actors\[0\]: user: .*not a vCenter/],
    ['actors:\n  - { provider: vcenter, user: "", principal: b }', /actors\[0\]: user: must not be empty/],
    ['actors:\n  - { provider: proxmox, user: a@pve, principal: "" }', /actors\[0\]: principal: must name a token/],
    ['actors:\n  - { provider: proxmox, user: a@pve }', /actors\[0\]: principal/],
    [
      'actors:\n  - { provider: vcenter, user: "CORP\\\\Bob", principal: bob }\n  - { provider: vcenter, user: bob@corp, principal: eve }',
      /actors\[1\]: user: vcenter "bob@corp" is already mapped by actors\[0\]/,
    ],
    ['slack: {}', /document: .*slack/],
    ['notifications: [', /cannot read it as YAML/],
  ])('refuses %s naming the field', (text, message) => {
    expect(() => loadIntegrationsFile(file(text))).toThrow(message);
  });

  it('refuses a file group or others can read, naming the chmod', () => {
    const p = file('notifications: []');
    chmodSync(p, 0o644);
    expect(() => loadIntegrationsFile(p)).toThrow(/not private.*chmod 600/);
  });

  it('AITIA_PUBLIC_URL sets the console links; default the bound address', () => {
    expect(loadConfig({}).publicUrl).toBe('http://127.0.0.1:4000');
    expect(loadConfig({ AITIA_HOST: '::1', AITIA_PORT: '4100' }).publicUrl).toBe('http://[::1]:4100');
    expect(loadConfig({ AITIA_PUBLIC_URL: 'https://aitia.lan/' }).publicUrl).toBe('https://aitia.lan');
    expect(() => loadConfig({ AITIA_PUBLIC_URL: 'aitia.lan' })).toThrow(/AITIA_PUBLIC_URL: must be a base URL/);
  });
});
