import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadIntegrationsFile } from '../../../src/integrations/integrations-file.js';
import { matchersFor } from '../../../src/integrations/alertmanager/silence-plan.js';
import { alertPayload } from '../../../src/integrations/alert-notification.js';
import { notificationOf } from '../../../src/integrations/notification-events.js';
import { slackMessage } from '../../../src/integrations/slack-message.js';
import { signWebhook } from '../../../src/integrations/webhook-message.js';
import { parseAlertmanagerWebhook } from '../../../src/model/alertmanager-webhook.js';
import { checkReceiverSignature } from '../../../src/server/alertmanager-http.js';
import {
  invertLabel,
  type LabelledResource,
  matchAlert,
  probesOf,
  renderLabel,
} from '../../../src/services/alert-labels.js';

/** The receiver's pure parts: the label mapping read backwards, the payload's checks, the signature, the messages. */

const res = (
  id: string,
  name: string,
  kind = 'vm',
  attributes: Record<string, string | number> = {},
): LabelledResource => ({
  id,
  name,
  kind,
  slug: `${kind}:${name}`,
  attributes,
});
const WEB01 = res('proxmox:lab/qemu/101', 'web01', 'vm', { vmid: 101 });
const CT_WEB01 = res('proxmox:lab/lxc/201', 'web01', 'container', { vmid: 201 });
const HOST = res('proxmox:lab/node/pve1', 'pve1', 'host');

describe('inverting a label template', () => {
  it.each([
    ['{name}', 'web01', [{ field: 'name', value: 'web01' }]],
    ['{name}:9100', 'web01:9100', [{ field: 'name', value: 'web01' }]],
    ['{name}:9100', 'web01', null],
    ['{attr.vmid}', '101', [{ field: 'attr', key: 'vmid', value: '101' }]],
    ['{id}', 'proxmox:lab/qemu/101', [{ field: 'id', value: 'proxmox:lab/qemu/101' }]],
    ['vm-{kind}', 'vm-vm', [{ field: 'kind', value: 'vm' }]],
    ['node', 'node', []],
    ['node', 'db', null],
    ['a.{name}', 'aXweb01', null],
  ])('%s against %s', (template, value, want) => {
    expect(invertLabel(template, value)).toEqual(want);
  });

  it('renders a label as the silencer does, so a silenced alert and a received one name the same resource', () => {
    const mapping = { instance: '{name}:9100', vmid: '{attr.vmid}', job: 'node' };
    const m = matchersFor(WEB01, mapping);
    expect(m.ok).toBe(true);
    if (!m.ok) return;
    for (const matcher of m.matchers)
      expect(renderLabel(mapping[matcher.name as keyof typeof mapping], WEB01)).toBe(matcher.value);
    expect(renderLabel('{attr.vmid}', HOST)).toBeNull();
  });

  it('collects the probes of the mapped labels an alert carries', () => {
    expect(
      probesOf({ instance: 'web01', vmid: '101', alertname: 'X' }, { instance: '{name}', vmid: '{attr.vmid}' }),
    ).toEqual([
      { field: 'name', value: 'web01' },
      { field: 'attr', key: 'vmid', value: '101' },
    ]);
  });
});

describe('matching an alert to a resource', () => {
  const byName = { instance: '{name}' };
  const byNameAndVmid = { instance: '{name}', vmid: '{attr.vmid}' };
  it.each([
    ['one resource by name', { instance: 'web01' }, byName, [WEB01], WEB01.id],
    [
      'the most specific: name and vmid beat name alone',
      { instance: 'web01', vmid: '101' },
      byNameAndVmid,
      [WEB01, CT_WEB01],
      WEB01.id,
    ],
    [
      'a label the candidate renders otherwise rules it out',
      { instance: 'web01', vmid: '201' },
      byNameAndVmid,
      [WEB01, CT_WEB01],
      CT_WEB01.id,
    ],
    [
      'a label the candidate has no value for counts neither way',
      { instance: 'pve1', vmid: '101' },
      byNameAndVmid,
      [HOST],
      HOST.id,
    ],
    ['by id', { aitia_id: WEB01.id }, { aitia_id: '{id}' }, [WEB01], WEB01.id],
    ['by attribute alone', { vmid: '101' }, { vmid: '{attr.vmid}' }, [WEB01, CT_WEB01], WEB01.id],
  ])('%s', (_, labels, mapping, candidates, want) => {
    const m = matchAlert(labels, mapping, candidates);
    expect(m).toMatchObject({ matched: true });
    if (m.matched) expect(m.resource.id).toBe(want);
  });

  it.each([
    ['no resource has the name', { instance: 'web99' }, byName, [], /no resource aitia holds has instance="web99"/],
    [
      'two resources fit alike',
      { instance: 'web01' },
      byName,
      [WEB01, CT_WEB01],
      /ambiguous: instance="web01" fits proxmox:lab\/lxc\/201 and proxmox:lab\/qemu\/101/,
    ],
    [
      'the alert carries no mapped label',
      { job: 'x' },
      byName,
      [WEB01],
      /carries none of the mapped labels \(instance\)/,
    ],
    ['no mapping at all', { instance: 'web01' }, {}, [WEB01], /no label mapping/],
    ['only the kind agrees: names nothing', { k: 'vm' }, { k: '{kind}' }, [WEB01], /no resource aitia holds/],
    [
      'the candidate contradicts the alert',
      { instance: 'web01', vmid: '999' },
      byNameAndVmid,
      [WEB01],
      /no resource aitia holds/,
    ],
  ])('unmatched: %s', (_, labels, mapping, candidates, reason) => {
    const m = matchAlert(labels, mapping, candidates);
    expect(m.matched).toBe(false);
    if (!m.matched) expect(m.reason).toMatch(reason);
  });
});

const alert = {
  status: 'firing',
  labels: { alertname: 'InstanceDown', instance: 'web01' },
  annotations: {},
  startsAt: '2026-05-14T02:09:10Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: 'http://prom/graph',
  fingerprint: 'abc123',
};
const hook = {
  version: '4',
  groupKey: '{}:{}',
  truncatedAlerts: 0,
  status: 'firing',
  receiver: 'aitia',
  groupLabels: {},
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://am:9093',
  alerts: [alert],
};

describe('the webhook payload', () => {
  it('accepts Alertmanager version 4, keeping fields it does not read', () => {
    const parsed = parseAlertmanagerWebhook({ ...hook, future: 1 });
    expect(parsed.ok).toBe(true);
  });
  it.each([
    ['version', { ...hook, version: '3' }, 'version', /must be "4"/],
    ['alerts missing', { ...hook, alerts: undefined }, 'alerts', /./],
    ['no alerts', { ...hook, alerts: [] }, 'alerts', /at least one alert/],
    ['an alert status', { ...hook, alerts: [{ ...alert, status: 'pending' }] }, 'alerts[0].status', /./],
    [
      'a label value that is not a string',
      { ...hook, alerts: [{ ...alert, labels: { instance: 1 } }] },
      'alerts[0].labels.instance',
      /./,
    ],
    ['startsAt', { ...hook, alerts: [{ ...alert, startsAt: 'yesterday' }] }, 'alerts[0].startsAt', /RFC 3339/],
    ['the group status', { ...hook, status: 'ok' }, 'status', /./],
    ['not an object', [], 'body', /./],
  ])('refuses %s, naming the field', (_, body, field, reason) => {
    const parsed = parseAlertmanagerWebhook(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.field).toBe(field);
      expect(parsed.reason).toMatch(reason);
    }
  });
});

describe('the receiver signature', () => {
  const secret = 'receiver-secret-0123456789';
  const body = Buffer.from(JSON.stringify(hook));
  const now = 1_778_724_600;
  it('holds for aitia’s own webhook signature (v0 over "v0:{ts}:{body}")', () => {
    const sig = signWebhook(secret, String(now), body.toString());
    expect(checkReceiverSignature(secret, { timestamp: String(now), signature: sig }, body, now + 10)).toBeNull();
  });
  it.each([
    [
      'another key',
      { timestamp: String(now), signature: signWebhook('another-secret-0123456', String(now), body.toString()) },
      now,
      /does not match/,
    ],
    [
      'another body',
      { timestamp: String(now), signature: signWebhook(secret, String(now), '{}') },
      now,
      /does not match/,
    ],
    [
      'a stale timestamp',
      { timestamp: String(now - 301), signature: signWebhook(secret, String(now - 301), body.toString()) },
      now,
      /301 s before/,
    ],
    [
      'no timestamp',
      { timestamp: undefined, signature: signWebhook(secret, String(now), body.toString()) },
      now,
      /X-Aitia-Timestamp/,
    ],
    ['the old scheme', { timestamp: String(now), signature: 'sha256=00' }, now, /v0=<64 hex digits>/],
  ])('refuses %s', (_, headers, at, why) => {
    expect(checkReceiverSignature(secret, headers, body, at)).toMatch(why);
  });
});

describe('alert.received', () => {
  const stored = {
    alert: { ...alert, endsAt: null },
    receiver: 'aitia',
    groupKey: '{}',
    externalURL: 'http://am:9093',
    matched: true,
    resource: { id: WEB01.id, name: 'web01', kind: 'vm' },
    matchedBy: ['instance'],
    unmatchedReason: null,
    narrative:
      'Alert InstanceDown (firing since 02:09:10 UTC) on vm web01 (…): stopped by alice@pve — task qmstop UPID:x at 02:08:31 UTC, high confidence.',
    enrichmentError: null,
    receivedAt: '2026-05-14T02:09:12Z',
  };
  const entry = (payload: unknown) => ({
    seq: 9,
    topic: 'alert' as const,
    resourceId: WEB01.id,
    change: 'received',
    at: '2026-05-14T02:09:12Z',
    payload,
  });

  it('an alert feed entry is the event with the alert, the resource and the narrative', () => {
    const m = notificationOf(entry(stored));
    expect(m?.event).toBe('alert.received');
    expect(m?.payload).toMatchObject({
      status: 'firing',
      alertname: 'InstanceDown',
      labels: alert.labels,
      startsAt: alert.startsAt,
      fingerprint: 'abc123',
      matched: true,
      resource: { id: WEB01.id, name: 'web01', kind: 'vm' },
      narrative: expect.stringMatching(/stopped by alice@pve/),
    });
  });

  it('an unmatched one carries matched false, no resource and the reason', () => {
    expect(
      alertPayload({
        ...stored,
        matched: false,
        resource: null,
        unmatchedReason: 'no resource aitia holds has instance="x"',
        narrative: null,
      }),
    ).toMatchObject({
      matched: false,
      resource: null,
      unmatchedReason: 'no resource aitia holds has instance="x"',
    });
  });

  it('Slack: the summary and narrative, a plain_text button to the resource page; an unmatched alert links to Alertmanager', () => {
    const matched = slackMessage(notificationOf(entry(stored))!, 'https://aitia.lan');
    const text = JSON.stringify(matched);
    expect(text).toContain('*Alert InstanceDown firing* on vm web01');
    expect(text).toContain('stopped by alice@pve');
    const actions = (matched.blocks as any[]).find((b) => b.type === 'actions');
    expect(actions.elements[0].text.type).toBe('plain_text');
    expect(actions.elements[0].url).toBe(`https://aitia.lan/console#/resource/${encodeURIComponent(WEB01.id)}`);
    const unmatched = slackMessage(
      notificationOf({
        ...entry({ ...stored, matched: false, resource: null, unmatchedReason: 'no resource', narrative: null }),
        resourceId: 'alertmanager:unmatched',
      })!,
      'https://aitia.lan',
    );
    expect(JSON.stringify(unmatched)).toContain('unmatched: no resource');
    const button = (unmatched.blocks as any[]).find((b) => b.type === 'actions').elements[0];
    expect(button).toMatchObject({ url: 'http://am:9093', text: { type: 'plain_text', text: 'Open in Alertmanager' } });
  });
});

describe('alertmanager.receiver_secret in the integrations file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aitia-receiver-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = (extra: string) => {
    const p = join(dir, `i${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(p, `alertmanager: { url: "http://am.lan", labels: { instance: "{name}" }${extra} }`, { mode: 0o600 });
    return () => loadIntegrationsFile(p);
  };
  it('is read inline or from its file, and is null without either', () => {
    writeFileSync(join(dir, 'rx'), 'from-a-file-0123456789\n', { mode: 0o600 });
    expect(load(', receiver_secret: "inline-secret-0123456"')().alertmanager?.receiverSecret).toBe(
      'inline-secret-0123456',
    );
    expect(load(`, receiver_secret_file: ${join(dir, 'rx')}`)().alertmanager?.receiverSecret).toBe(
      'from-a-file-0123456789',
    );
    expect(load('')().alertmanager?.receiverSecret).toBeNull();
  });
  it('refuses a short one, or both, naming the field', () => {
    expect(load(', receiver_secret: short')).toThrow(/alertmanager\.receiver_secret: must be at least 16 characters/);
    expect(load(`, receiver_secret: "inline-secret-0123456", receiver_secret_file: ${join(dir, 'rx')}`)).toThrow(
      /receiver_secret: give the secret or its file, not both/,
    );
  });
});
