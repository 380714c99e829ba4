import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Config } from './config.js';
import { ConfigError } from './model/errors.js';
import { assertPrivateFile } from './model/private-files.js';

/**
 * The estate aitia polls: any number of Proxmox clusters and vCenters, from the sources file
 * (`AITIA_SOURCES_FILE`, YAML) and from the single-source variables (`AITIA_PROXMOX_*`,
 * `AITIA_VCENTER_*`), which keep working. Secrets are given inline or as a `*_file` path (read
 * here, trimmed). A source without credentials is kept, marked `missing`, so start-up says
 * "vcenter vc01: no credentials — not polled" instead of polling nothing silently.
 */

const NAME = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be letters, digits, . _ - (used in ids and logs)');
const URL_BASE = z
  .string()
  .regex(/^https?:\/\/[^\s/]+(:\d+)?(\/sdk)?\/?$/, 'must be the API base, e.g. https://host:port');
const common = {
  name: NAME,
  url: URL_BASE,
  ca_file: z.string().min(1).optional(),
  insecure: z.boolean().default(false),
  poll_seconds: z.number().int().min(5).max(86_400).default(30),
  backfill_hours: z
    .number()
    .int()
    .min(0)
    .max(24 * 366)
    .default(24),
};

const ProxmoxEntry = z.strictObject({
  ...common,
  kind: z.literal('proxmox'),
  token: z
    .string()
    .regex(/^[^@\s]+@[^!\s]+![^=\s]+=\S+$/, 'must look like user@realm!tokenid=secret')
    .optional(),
  token_file: z.string().min(1).optional(),
});

const VcenterEntry = z.strictObject({
  ...common,
  kind: z.literal('vcenter'),
  /** The name in ids (`vcenter:<server>/vm/<moref>`); default the entry's name. */
  server: NAME.optional(),
  username: z.string().min(1).optional(),
  password: z.string().min(1).optional(),
  password_file: z.string().min(1).optional(),
  /** HMAC key a broker signs pushed CloudEvents with (POST /events/cloudevents?source=<name>). */
  cloudevents_secret: z.string().min(16, 'must be at least 16 characters').optional(),
  cloudevents_secret_file: z.string().min(1).optional(),
});

const FileSchema = z.strictObject({
  sources: z.array(z.discriminatedUnion('kind', [ProxmoxEntry, VcenterEntry])),
});

/** What every source has; `missing` says why it is configured but not polled. */
interface SourceBase {
  name: string;
  url: string;
  caFile: string | undefined;
  insecure: boolean;
  pollSeconds: number;
  backfillHours: number;
  missing: string | null;
  /** Where it was configured: `AITIA_SOURCES_FILE` or the env prefix. */
  origin: string;
}

export interface ProxmoxSourceSpec extends SourceBase {
  kind: 'proxmox';
  token: string | null;
}

export interface VcenterSourceSpec extends SourceBase {
  kind: 'vcenter';
  server: string;
  username: string | null;
  password: string | null;
  /** HMAC key for pushed CloudEvents; null: only ingester tokens may push for this vCenter. */
  pushSecret: string | null;
}

export type SourceSpec = ProxmoxSourceSpec | VcenterSourceSpec;

/** A secret from inline text or a file; `what` names it in the error. */
export function readSecret(inline: string | undefined, file: string | undefined, what: string): string | null {
  if (inline !== undefined && file !== undefined) throw new Error(`${what}: give the secret or its file, not both`);
  if (file === undefined) return inline ?? null;
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (text === '') throw new Error('the file is empty');
    return text;
  } catch (err) {
    throw new Error(`${what}_file: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
}

function entryName(raw: unknown, i: number): string {
  const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? `sources[${i}] "${name}"` : `sources[${i}]`;
}

/** Reads and validates the sources file; every problem names the entry and the field. */
export function loadSourcesFile(path: string): SourceSpec[] {
  const fail = (msg: string): never => {
    throw new ConfigError(`AITIA_SOURCES_FILE ${path}: ${msg}`);
  };
  // It holds Proxmox tokens, vCenter passwords and push secrets: owner-only, as the tokens file.
  assertPrivateFile(path, 'the sources file (AITIA_SOURCES_FILE)');
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    return fail(`cannot read it as YAML: ${(err as Error).message}`);
  }
  const parsed = FileSchema.safeParse(doc);
  if (!parsed.success) {
    const list = (doc as { sources?: unknown[] } | null)?.sources;
    const problems = parsed.error.issues.map((issue) => {
      const [top, index, ...rest] = issue.path;
      if (top === 'sources' && typeof index === 'number')
        return `${entryName(Array.isArray(list) ? list[index] : undefined, index)}: ${rest.join('.') || 'entry'}: ${issue.message}`;
      return `${issue.path.join('.') || 'document'}: ${issue.message}`;
    });
    return fail(problems.join('; '));
  }
  const seen = new Set<string>();
  return parsed.data.sources.map((e, i) => {
    const where = entryName(e, i);
    if (seen.has(e.name)) fail(`${where}: name: "${e.name}" is used by an earlier entry`);
    seen.add(e.name);
    const base = {
      name: e.name,
      url: e.url.replace(/\/+$/, ''),
      caFile: e.ca_file,
      insecure: e.insecure,
      pollSeconds: e.poll_seconds,
      backfillHours: e.backfill_hours,
      origin: 'AITIA_SOURCES_FILE',
    };
    try {
      if (e.kind === 'proxmox') {
        const token = readSecret(e.token, e.token_file, 'token');
        return { ...base, kind: 'proxmox', token, missing: token ? null : 'no credentials (token or token_file)' };
      }
      const password = readSecret(e.password, e.password_file, 'password');
      const missing = e.username && password ? null : 'no credentials (username and password or password_file)';
      const pushSecret = readSecret(e.cloudevents_secret, e.cloudevents_secret_file, 'cloudevents_secret');
      const server = e.server ?? e.name;
      return { ...base, kind: 'vcenter', server, username: e.username ?? null, password, pushSecret, missing };
    } catch (err) {
      return fail(`${where}: ${(err as Error).message}`);
    }
  });
}

/** Adds the single-source ones, refusing a name used twice. */
export function mergeSources(fromEnv: SourceSpec[], fromFile: SourceSpec[]): SourceSpec[] {
  const names = new Set(fromFile.map((s) => s.name));
  for (const s of fromEnv)
    if (names.has(s.name))
      throw new ConfigError(
        `source "${s.name}" is configured twice: by ${s.origin} and in AITIA_SOURCES_FILE; rename one`,
      );
  return [...fromEnv, ...fromFile];
}

/** The sources of the single-source variables: `proxmox` (AITIA_PROXMOX_*) and the vCenter (AITIA_VCENTER_*). */
export function sourcesFromEnv(config: Config): SourceSpec[] {
  const out: SourceSpec[] = [];
  const px = config.proxmox;
  if (px.url)
    out.push({
      kind: 'proxmox',
      name: 'proxmox',
      url: px.url,
      token: px.token ?? null,
      caFile: px.caFile,
      insecure: px.insecure,
      pollSeconds: px.pollSeconds,
      backfillHours: px.backfillHours,
      missing: px.token ? null : 'no credentials (AITIA_PROXMOX_TOKEN)',
      origin: 'AITIA_PROXMOX_URL',
    });
  const vc = config.vcenter;
  if (vc.url) {
    let password: string | null;
    try {
      password = readSecret(vc.password, vc.passwordFile, 'AITIA_VCENTER_PASSWORD');
    } catch (err) {
      throw new ConfigError(
        (err as Error).message.replace('AITIA_VCENTER_PASSWORD_file', 'AITIA_VCENTER_PASSWORD_FILE'),
      );
    }
    const server = vc.server ?? new URL(vc.url).hostname;
    out.push({
      kind: 'vcenter',
      name: server,
      server,
      url: vc.url,
      username: vc.user ?? null,
      password,
      pushSecret: null,
      caFile: vc.caFile,
      insecure: vc.insecure,
      pollSeconds: vc.pollSeconds,
      backfillHours: px.backfillHours,
      missing: vc.user && password ? null : 'no credentials (AITIA_VCENTER_USER and AITIA_VCENTER_PASSWORD or _FILE)',
      origin: 'AITIA_VCENTER_URL',
    });
  }
  return out;
}

/** Every configured source: the single-source variables' and the sources file's. */
export function configuredSources(config: Config): SourceSpec[] {
  return mergeSources(sourcesFromEnv(config), config.sourcesFile ? loadSourcesFile(config.sourcesFile) : []);
}
