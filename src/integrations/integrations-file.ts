import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ACTOR_PROVIDERS, actorKey, type ActorMappingEntry } from '../model/actors.js';
import { ConfigError } from '../model/errors.js';
import { assertPrivateFile } from '../model/private-files.js';
import { readSecret } from '../sources-file.js';

/**
 * The integrations file (`AITIA_INTEGRATIONS_FILE`, YAML): where aitia tells people and the alerting
 * they already run. `notifications` are the targets the stored feed is delivered to (a signed
 * generic webhook or a Slack incoming webhook), `alertmanager` is the Alertmanager aitia silences
 * for intentional changes, `actors` maps provider identities to aitia principals (src/model/actors.ts). It holds webhook keys and
 * Alertmanager credentials, so it is owner-only like the sources and tokens files; secrets come
 * inline or from a `*_file` (read here, trimmed). Every problem names the field.
 */

export const NOTIFICATION_EVENTS = [
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'grant.redeemed',
  'grant.refused',
  'autonomy.changed',
  'condition.opened',
  'condition.resolved',
  'condition.reattributed',
  'transition.unexplained',
  'transition.reexplained',
  'alert.received',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

const NAME = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be letters, digits, . _ - (used in ids and logs)');
const HTTP_URL = z.string().regex(/^https?:\/\/[^\s/?#]+[^\s#]*$/, 'must be an http:// or https:// URL');

/** `{name}`, `{id}`, `{kind}` or `{attr.<key>}` placeholders among literal text. */
const PLACEHOLDER = /\{([^{}]*)\}/g;
const KNOWN_PLACEHOLDER = /^(name|id|kind|attr\.[A-Za-z0-9_.-]+)$/;
const LABEL_TEMPLATE = z.string().superRefine((v, ctx) => {
  for (const m of v.matchAll(PLACEHOLDER))
    if (!KNOWN_PLACEHOLDER.test(m[1]!))
      ctx.addIssue({
        code: 'custom',
        message: `unknown placeholder {${m[1]}} (known: {name}, {id}, {kind}, {attr.<key>})`,
      });
  if (/[{}]/.test(v.replace(PLACEHOLDER, ''))) ctx.addIssue({ code: 'custom', message: 'has an unmatched { or }' });
});

const NotificationEntry = z
  .strictObject({
    name: NAME,
    kind: z.enum(['webhook', 'slack']),
    url: HTTP_URL,
    /** HMAC-SHA256 key of the generic webhook's X-Aitia-Signature. */
    secret: z.string().min(16, 'must be at least 16 characters').optional(),
    secret_file: z.string().min(1).optional(),
    events: z.array(z.enum(NOTIFICATION_EVENTS)).min(1, 'must list at least one event'),
  })
  .superRefine((e, ctx) => {
    if (e.kind === 'webhook' && e.secret === undefined && e.secret_file === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['secret'],
        message: 'a webhook needs secret or secret_file (its HMAC key)',
      });
    if (e.kind === 'slack' && (e.secret !== undefined || e.secret_file !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['secret'],
        message: 'a slack target is not signed; its URL is the secret',
      });
  });

const AlertmanagerEntry = z
  .strictObject({
    url: HTTP_URL,
    basic_auth: z
      .strictObject({
        username: z.string().min(1),
        password: z.string().min(1).optional(),
        password_file: z.string().min(1).optional(),
      })
      .optional(),
    bearer_token_file: z.string().min(1).optional(),
    labels: z.record(z.string(), LABEL_TEMPLATE).superRefine((r, ctx) => {
      if (Object.keys(r).length === 0) ctx.addIssue({ code: 'custom', message: 'must map at least one alert label' });
      for (const key of Object.keys(r))
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
          ctx.addIssue({ code: 'custom', path: [key], message: 'must be an alert label name' });
    }),
    silence_dependents: z.boolean().default(true),
    /** HMAC-SHA256 key of X-Aitia-Signature on POST /integrations/alertmanager (relays; Alertmanager itself sends a bearer token). */
    receiver_secret: z.string().min(16, 'must be at least 16 characters').optional(),
    receiver_secret_file: z.string().min(1).optional(),
  })
  .superRefine((e, ctx) => {
    if (e.basic_auth && e.bearer_token_file)
      ctx.addIssue({
        code: 'custom',
        path: ['bearer_token_file'],
        message: 'give basic_auth or bearer_token_file, not both',
      });
  });

/** A provider identity and the aitia principal (a token name) behind it; see src/model/actors.ts for the matching. */
const ActorEntry = z
  .strictObject({
    provider: z.enum(ACTOR_PROVIDERS),
    user: z.string(),
    principal: z.string().min(1, 'must name a token of the tokens file').max(128, 'at most 128 characters'),
  })
  .superRefine((e, ctx) => {
    const k = actorKey(e.provider, e.user);
    if (!k.ok) ctx.addIssue({ code: 'custom', path: ['user'], message: k.reason });
  });

const FileSchema = z.strictObject({
  notifications: z.array(NotificationEntry).default([]),
  alertmanager: AlertmanagerEntry.optional(),
  actors: z.array(ActorEntry).default([]),
});

export interface NotificationTarget {
  name: string;
  kind: 'webhook' | 'slack';
  url: string;
  /** The webhook's HMAC key; null for Slack. */
  secret: string | null;
  events: NotificationEvent[];
}

export interface AlertmanagerSpec {
  /** API base without a trailing slash; `/api/v2/...` is appended. */
  url: string;
  basicAuth: { username: string; password: string } | null;
  bearerToken: string | null;
  /** alert label → template over the resource (`{name}`, `{id}`, `{kind}`, `{attr.<key>}`). */
  labels: Record<string, string>;
  silenceDependents: boolean;
  /** The key a signed POST /integrations/alertmanager is checked with; null: bearer tokens only. */
  receiverSecret: string | null;
}

export interface IntegrationsSpec {
  notifications: NotificationTarget[];
  alertmanager: AlertmanagerSpec | null;
  /** Provider identities → principals; each principal is checked against the tokens at use. */
  actors: ActorMappingEntry[];
}

export const NO_INTEGRATIONS: IntegrationsSpec = { notifications: [], alertmanager: null, actors: [] };

function where(doc: unknown, path: readonly PropertyKey[]): string {
  const [top, index, ...rest] = path;
  if (top === 'notifications' && typeof index === 'number') {
    const list = (doc as { notifications?: unknown } | null)?.notifications;
    const raw: unknown = Array.isArray(list) ? list[index] : undefined;
    const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
    const entry = typeof name === 'string' ? `notifications[${index}] "${name}"` : `notifications[${index}]`;
    return `${entry}: ${rest.map(String).join('.') || 'entry'}`;
  }
  if (top === 'actors' && typeof index === 'number')
    return `actors[${index}]: ${rest.map(String).join('.') || 'entry'}`;
  return path.map(String).join('.') || 'document';
}

/** Reads and validates the integrations file; every problem names the field. */
export function loadIntegrationsFile(path: string): IntegrationsSpec {
  const fail = (msg: string): never => {
    throw new ConfigError(`AITIA_INTEGRATIONS_FILE ${path}: ${msg}`);
  };
  assertPrivateFile(path, 'the integrations file (AITIA_INTEGRATIONS_FILE)');
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8')) ?? {};
  } catch (err) {
    return fail(`cannot read it as YAML: ${(err as Error).message}`);
  }
  const parsed = FileSchema.safeParse(doc);
  if (!parsed.success) return fail(parsed.error.issues.map((i) => `${where(doc, i.path)}: ${i.message}`).join('; '));
  const seen = new Set<string>();
  const notifications = parsed.data.notifications.map((e, i): NotificationTarget => {
    const at = `notifications[${i}] "${e.name}"`;
    if (seen.has(e.name)) fail(`${at}: name: "${e.name}" is used by an earlier entry`);
    seen.add(e.name);
    try {
      const secret = readSecret(e.secret, e.secret_file, 'secret');
      return { name: e.name, kind: e.kind, url: e.url, secret, events: [...new Set(e.events)] };
    } catch (err) {
      return fail(`${at}: ${(err as Error).message}`);
    }
  });
  const am = parsed.data.alertmanager;
  let alertmanager: AlertmanagerSpec | null = null;
  if (am) {
    try {
      const password = am.basic_auth
        ? readSecret(am.basic_auth.password, am.basic_auth.password_file, 'basic_auth.password')
        : null;
      if (am.basic_auth && password === null) throw new Error('basic_auth: needs password or password_file');
      const bearerToken = am.bearer_token_file ? readSecret(undefined, am.bearer_token_file, 'bearer_token') : null;
      const receiverSecret = readSecret(am.receiver_secret, am.receiver_secret_file, 'receiver_secret');
      alertmanager = {
        url: am.url.replace(/\/+$/, ''),
        basicAuth: am.basic_auth && password !== null ? { username: am.basic_auth.username, password } : null,
        bearerToken,
        labels: am.labels,
        silenceDependents: am.silence_dependents,
        receiverSecret,
      };
    } catch (err) {
      return fail(`alertmanager: ${(err as Error).message}`);
    }
  }
  return { notifications, alertmanager, actors: actorsOf(parsed.data.actors, fail) };
}

/** The entries in order; one identity mapped twice is an error naming both entries. */
function actorsOf(list: z.infer<typeof ActorEntry>[], fail: (msg: string) => never): ActorMappingEntry[] {
  const seen = new Map<string, number>();
  return list.map((e, i) => {
    const k = actorKey(e.provider, e.user);
    const id = k.ok ? `${e.provider} ${k.key.user}!${k.key.tokenId ?? ''}` : `${e.provider} ${e.user}`;
    const earlier = seen.get(id);
    if (earlier !== undefined)
      fail(`actors[${i}]: user: ${e.provider} ${JSON.stringify(e.user)} is already mapped by actors[${earlier}]`);
    seen.set(id, i);
    return { provider: e.provider, user: e.user, principal: e.principal };
  });
}

/** The configured integrations, or none when the variable is unset. */
export function configuredIntegrations(config: { integrationsFile: string | undefined }): IntegrationsSpec {
  return config.integrationsFile ? loadIntegrationsFile(config.integrationsFile) : NO_INTEGRATIONS;
}
