import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { type CheckAllowEntry, parseCheckAllow } from './model/check-address.js';
import { ConfigError } from './model/errors.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A duration in milliseconds, from `min` to 10 minutes. */
const ms = (min: number, dflt: number) => z.coerce.number().int().min(min).max(600_000).default(dflt);

/**
 * Every environment variable aitia reads, parsed once at start. Names are fixed by DESIGN.md
 * "Conventions"; the configuration table in docs/operations.md is checked against this schema by a test.
 */
export const ENV_SCHEMA = z.object({
  NEO4J_URI: z
    .string()
    .regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\/\S+$/, 'must be a bolt:// or neo4j:// URI')
    .optional()
    .describe('Neo4j to use. Unset: aitia starts its embedded Neo4j 5.26 under AITIA_DATA_DIR.'),
  NEO4J_USER: z
    .string()
    .min(1)
    .default('neo4j')
    .describe('Neo4j user for NEO4J_URI (the embedded Neo4j has one user, neo4j, with a generated password).'),
  NEO4J_PASSWORD: z
    .string()
    .optional()
    .describe(
      'Neo4j password for NEO4J_URI; unset means no authentication. The embedded Neo4j reads its own from $AITIA_DATA_DIR/neo4j.password.',
    ),
  AITIA_NEO4J_CONNECT_TIMEOUT_MS: ms(100, 2000).describe('Milliseconds to open a connection to Neo4j.'),
  AITIA_NEO4J_ACQUIRE_TIMEOUT_MS: ms(100, 3000).describe(
    'Milliseconds a call waits for a free pooled Neo4j connection before answering UNAVAILABLE.',
  ),
  AITIA_NEO4J_RETRY_MS: ms(0, 2000).describe(
    'Milliseconds the driver retries a lost connection or a transient Neo4j error within one call.',
  ),
  AITIA_NEO4J_STALL_MS: ms(500, 3000).describe(
    'A call Neo4j has not answered after this many milliseconds makes aitia ask Neo4j whether it answers at all; a long query on a live Neo4j goes on.',
  ),
  AITIA_NEO4J_PROBE_MS: ms(100, 1500).describe(
    'Milliseconds that question may take; unanswered, the call answers UNAVAILABLE (HTTP 503, Retry-After).',
  ),
  AITIA_HOST: z.string().min(1).default('127.0.0.1').describe('Address the HTTP server binds.'),
  AITIA_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .default(4000)
    .describe('HTTP port: GraphQL at /graphql, /healthz, /readyz.'),
  AITIA_DATA_DIR: z
    .string()
    .min(1)
    .default('./.aitia')
    .describe('Embedded Neo4j data and password, and the dev tokens file (created 0700).'),
  AITIA_TOKENS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Bearer tokens file (JSON array of {name, role, tokenSha256, createdAt, expiresAt}), owner-only (0600); re-read when it changes. Default $AITIA_DATA_DIR/tokens.json.',
    ),
  AITIA_POLICY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('Policy YAML for the gate. Default: the shipped config/policy.yaml.'),
  AITIA_PROXMOX_URL: z
    .string()
    .regex(/^https?:\/\/[^\s/]+(:\d+)?\/?$/, 'must be the API base, e.g. https://pve1.lan:8006')
    .optional()
    .describe('Proxmox VE API base; the client appends /api2/json. Unset: no Proxmox polling.'),
  AITIA_PROXMOX_TOKEN: z
    .string()
    .regex(/^[^@\s]+@[^!\s]+![^=\s]+=\S+$/, 'must look like user@realm!tokenid=secret')
    .optional()
    .describe('Proxmox API token, user@realm!tokenid=secret.'),
  AITIA_PROXMOX_CA_FILE: z.string().min(1).optional().describe('PEM CA bundle to verify the Proxmox TLS certificate.'),
  AITIA_PROXMOX_INSECURE: bool.default(false).describe('Skip TLS verification for Proxmox (explicit opt-in only).'),
  AITIA_PROXMOX_POLL_SECONDS: z.coerce
    .number()
    .int()
    .min(5)
    .max(86_400)
    .default(30)
    .describe('Seconds between Proxmox polls.'),
  AITIA_PROXMOX_BACKFILL_HOURS: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 366)
    .default(24)
    .describe('Hours of Proxmox task history the first poll of a node reads; later polls continue from its cursor.'),
  AITIA_PROXMOX_CONFIG_REFRESH_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .default(3600)
    .describe(
      'Every guest config is re-read within this many seconds, spread over the polls (besides first sight and config-changing tasks).',
    ),
  AITIA_PROXMOX_AGENT_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(86_400)
    .default(300)
    .describe('Seconds between QEMU guest-agent pings of a running VM whose config enables the agent.'),
  AITIA_PROXMOX_MAX_CONCURRENT_REQUESTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(4)
    .describe('Proxmox API requests in flight at once per cluster; 429/503 answers back off (Retry-After honoured).'),
  AITIA_VCENTER_URL: z
    .string()
    .regex(/^https?:\/\/[^\s/]+(:\d+)?(\/sdk)?\/?$/, 'must be the vCenter base, e.g. https://vc01.lan')
    .optional()
    .describe(
      'vCenter to poll through the vSphere API (/sdk is appended). Unset: no vCenter polling from the environment.',
    ),
  AITIA_VCENTER_SERVER: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be letters, digits, . _ -')
    .optional()
    .describe('Name of that vCenter in ids (vcenter:<server>/vm/<moref>) and logs. Default: the URL host name.'),
  AITIA_VCENTER_USER: z.string().min(1).optional().describe('vCenter user (a read-only role is enough).'),
  AITIA_VCENTER_PASSWORD: z.string().min(1).optional().describe('vCenter password (or AITIA_VCENTER_PASSWORD_FILE).'),
  AITIA_VCENTER_PASSWORD_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('File holding the vCenter password (read at start, trimmed).'),
  AITIA_VCENTER_CA_FILE: z.string().min(1).optional().describe('PEM CA bundle to verify the vCenter TLS certificate.'),
  AITIA_VCENTER_INSECURE: bool.default(false).describe('Skip TLS verification for vCenter (explicit opt-in only).'),
  AITIA_VCENTER_POLL_SECONDS: z.coerce
    .number()
    .int()
    .min(5)
    .max(86_400)
    .default(60)
    .describe('Seconds between vCenter polls.'),
  AITIA_SOURCES_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'YAML file listing any number of Proxmox clusters and vCenters to poll, each with its own URL, credentials, TLS and interval (see "Connect your estate").',
    ),
  AITIA_INTEGRATIONS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'YAML file of the notification targets (signed webhooks, Slack) and the Alertmanager aitia silences, owner-only (0600). Unset: none.',
    ),
  AITIA_PUBLIC_URL: z
    .string()
    .regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be a base URL, e.g. https://aitia.lan')
    .optional()
    .describe(
      'Base URL people reach aitia at, used in the console links notifications carry. Default http://AITIA_HOST:AITIA_PORT.',
    ),
  AITIA_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(1024 * 1024)
    .describe('Largest request body /graphql and /mcp accept; larger answers 413 PAYLOAD_TOO_LARGE.'),
  AITIA_CORS_ORIGINS: z
    .string()
    .regex(
      /^https?:\/\/[^\s,]+(,\s*https?:\/\/[^\s,]+)*$/,
      'must be a comma-separated list of origins, e.g. https://ops.lan',
    )
    .optional()
    .describe(
      'Origins allowed to call /graphql and /mcp from a browser (comma-separated). Unset: none (GraphiQL is same-origin).',
    ),
  AITIA_PROXMOX_MAX_ANSWER_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 * 1024 * 1024)
    .default(64 * 1024 * 1024)
    .describe(
      'Largest Proxmox API answer read; a larger one is a failed call (the pass is partial, nothing marked missing).',
    ),
  AITIA_CLOCK_SKEW_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600)
    .default(5)
    .describe('Tolerance for provider clocks (Proxmox nodes, vCenter) when matching events to changes.'),
  AITIA_TOKEN: z
    .string()
    .min(1)
    .optional()
    .describe('Bearer token `aitia query` sends and `aitia mcp` (stdio) serves as (aitia serve never reads it).'),
  AITIA_REPLICA_ID: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'This process among replicas sharing one Neo4j: the holder name on the leases it takes. Default <hostname>-<pid>.',
    ),
  AITIA_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(2)
    .max(600)
    .default(15)
    .describe(
      'Lease of each leader-only loop (a source poller, the health scheduler): renewed every third of it; another replica takes over within twice it.',
    ),
  AITIA_CHECK_ALLOW: z
    .string()
    .superRefine((v, ctx) => {
      const parsed = parseCheckAllow(v);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.reason });
    })
    .optional()
    .describe(
      "Addresses health checks may probe although they are loopback, link-local, metadata or unspecified (comma-separated: 127.0.0.1, 127.0.0.0/8, [::1]:8080, host:port). Neo4j's own port only when named with it. Unset: none.",
    ),
  AITIA_LOG_LEVEL: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
    .default('info')
    .describe('Log level of the JSON logs on stdout.'),
});

/** The parsed configuration, with the derived defaults filled in. */
export interface Config {
  neo4j: {
    uri: string | undefined;
    user: string;
    password: string | undefined;
    /** The driver's bounds (src/graph/guarded-driver.ts `DriverBounds`). */
    bounds: { connectTimeoutMs: number; acquireTimeoutMs: number; retryMs: number; stallMs: number; probeMs: number };
  };
  host: string;
  port: number;
  dataDir: string;
  tokensFile: string;
  policyFile: string | undefined;
  proxmox: {
    url: string | undefined;
    token: string | undefined;
    caFile: string | undefined;
    insecure: boolean;
    pollSeconds: number;
    /** Task history read on a node's first poll, in hours. */
    backfillHours: number;
    /** Every guest config is re-read within this period (rolling refresh). */
    configRefreshSeconds: number;
    /** Guest-agent ping cadence per running VM. */
    agentSeconds: number;
    /** Requests in flight at once toward the API. */
    maxConcurrentRequests: number;
    /** Largest answer body read. */
    maxAnswerBytes: number;
  };
  vcenter: {
    url: string | undefined;
    server: string | undefined;
    user: string | undefined;
    password: string | undefined;
    passwordFile: string | undefined;
    caFile: string | undefined;
    insecure: boolean;
    pollSeconds: number;
  };
  /** The sources file, resolved; read by `aitia serve` (src/sources-file.ts). */
  sourcesFile: string | undefined;
  /** The integrations file, resolved (src/integrations/integrations-file.ts). */
  integrationsFile: string | undefined;
  /** Base URL of the console links in notifications, no trailing slash. */
  publicUrl: string;
  /** Largest request body accepted on /graphql and /mcp. */
  maxBodyBytes: number;
  /** Origins allowed cross-origin (none by default). */
  corsOrigins: string[];
  logLevel: z.infer<typeof ENV_SCHEMA>['AITIA_LOG_LEVEL'];
  /** Seconds of provider clock disagreement the correlator tolerates. */
  clockSkewSeconds: number;
  /** Only for `aitia query` and `aitia mcp`. */
  token: string | undefined;
  /** Holder name on this process's leases (AITIA_REPLICA_ID, default hostname-pid). */
  replicaId: string;
  /** Lease length of the leader-only loops, in seconds. */
  leaseSeconds: number;
  /** What health checks may probe although local (AITIA_CHECK_ALLOW). */
  checkAllow: CheckAllowEntry[];
}

export { ConfigError };

/** Parses the environment once. Unknown AITIA_* names fail too: a typo must not silently default. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = new Set(Object.keys(ENV_SCHEMA.shape));
  const unknown = Object.keys(env).filter((k) => k.startsWith('AITIA_') && !known.has(k));
  const problems: string[] = unknown.map(
    (k) => `${k}: unknown variable (known: ${[...known].filter((n) => n.startsWith('AITIA_')).join(', ')})`,
  );
  const picked = Object.fromEntries([...known].map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = ENV_SCHEMA.safeParse(picked);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  const e = parsed.data;
  const dataDir = resolve(e.AITIA_DATA_DIR);
  return {
    neo4j: {
      uri: e.NEO4J_URI,
      user: e.NEO4J_USER,
      password: e.NEO4J_PASSWORD,
      bounds: {
        connectTimeoutMs: e.AITIA_NEO4J_CONNECT_TIMEOUT_MS,
        acquireTimeoutMs: e.AITIA_NEO4J_ACQUIRE_TIMEOUT_MS,
        retryMs: e.AITIA_NEO4J_RETRY_MS,
        stallMs: e.AITIA_NEO4J_STALL_MS,
        probeMs: e.AITIA_NEO4J_PROBE_MS,
      },
    },
    host: e.AITIA_HOST,
    port: e.AITIA_PORT,
    dataDir,
    tokensFile: resolve(e.AITIA_TOKENS_FILE ?? `${dataDir}/tokens.json`),
    policyFile: e.AITIA_POLICY_FILE ? resolve(e.AITIA_POLICY_FILE) : undefined,
    proxmox: {
      url: e.AITIA_PROXMOX_URL?.replace(/\/$/, ''),
      token: e.AITIA_PROXMOX_TOKEN,
      caFile: e.AITIA_PROXMOX_CA_FILE,
      insecure: e.AITIA_PROXMOX_INSECURE,
      pollSeconds: e.AITIA_PROXMOX_POLL_SECONDS,
      backfillHours: e.AITIA_PROXMOX_BACKFILL_HOURS,
      configRefreshSeconds: e.AITIA_PROXMOX_CONFIG_REFRESH_SECONDS,
      agentSeconds: e.AITIA_PROXMOX_AGENT_SECONDS,
      maxConcurrentRequests: e.AITIA_PROXMOX_MAX_CONCURRENT_REQUESTS,
      maxAnswerBytes: e.AITIA_PROXMOX_MAX_ANSWER_BYTES,
    },
    vcenter: {
      url: e.AITIA_VCENTER_URL?.replace(/\/$/, ''),
      server: e.AITIA_VCENTER_SERVER,
      user: e.AITIA_VCENTER_USER,
      password: e.AITIA_VCENTER_PASSWORD,
      passwordFile: e.AITIA_VCENTER_PASSWORD_FILE,
      caFile: e.AITIA_VCENTER_CA_FILE,
      insecure: e.AITIA_VCENTER_INSECURE,
      pollSeconds: e.AITIA_VCENTER_POLL_SECONDS,
    },
    sourcesFile: e.AITIA_SOURCES_FILE ? resolve(e.AITIA_SOURCES_FILE) : undefined,
    integrationsFile: e.AITIA_INTEGRATIONS_FILE ? resolve(e.AITIA_INTEGRATIONS_FILE) : undefined,
    publicUrl: (
      e.AITIA_PUBLIC_URL ?? `http://${e.AITIA_HOST.includes(':') ? `[${e.AITIA_HOST}]` : e.AITIA_HOST}:${e.AITIA_PORT}`
    ).replace(/\/+$/, ''),
    maxBodyBytes: e.AITIA_MAX_BODY_BYTES,
    corsOrigins: (e.AITIA_CORS_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim().replace(/\/$/, ''))
      .filter(Boolean),
    logLevel: e.AITIA_LOG_LEVEL,
    clockSkewSeconds: e.AITIA_CLOCK_SKEW_SECONDS,
    token: e.AITIA_TOKEN,
    replicaId: e.AITIA_REPLICA_ID ?? `${hostname()}-${process.pid}`,
    leaseSeconds: e.AITIA_LEASE_SECONDS,
    checkAllow: (parseCheckAllow(e.AITIA_CHECK_ALLOW) as { entries: CheckAllowEntry[] }).entries ?? [],
  };
}
