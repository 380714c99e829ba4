import { z } from 'zod';
import type { Kind } from './kinds.js';
import type { StateOf } from './states.js';

/**
 * Health checks: what the scheduler probes. `http` and `tcp` probe an address; `proxmox_agent`
 * reads the `qemu_guest_agent` attribute the Proxmox ingest records (running | not_running |
 * not_configured); `provider_state` reads the resource's own state. Specs are closed: an unknown
 * key is an error, not ignored.
 */
export const CHECK_KINDS = ['http', 'tcp', 'proxmox_agent', 'provider_state'] as const;
export const CheckKindSchema = z
  .enum(CHECK_KINDS)
  .describe(
    "What a check probes. http/tcp probe an address; proxmox_agent reads the qemu_guest_agent the Proxmox ingest records; provider_state reads the resource's own state.",
  );
export type CheckKind = z.infer<typeof CheckKindSchema>;

/** One probe's verdict. A timeout or a garbage answer is `fail` (with the reason), never `unknown`. */
export const CHECK_RESULT_STATUSES = ['pass', 'fail', 'unknown'] as const;
export const CheckResultStatusSchema = z
  .enum(CHECK_RESULT_STATUSES)
  .describe('A timeout or a garbage answer is a fail (with the reason); unknown means nothing could be concluded.');
export type CheckResultStatus = z.infer<typeof CheckResultStatusSchema>;

/** Per-probe timeout: the whole exchange must finish within it, or the check fails. */
const TimeoutMs = z
  .number()
  .int()
  .min(100, 'must be at least 100 ms')
  .max(60_000, 'must be at most 60000 ms')
  .default(5000);

/** Query parameters that carry credentials by name. */
const SECRET_PARAM = /(token|passw|pwd|secret|key|auth|credential|signature|sig$|session)/i;

/** http: GET the URL on a fresh connection; pass when the status is the expected one. */
export const HttpCheckSpecSchema = z.strictObject({
  url: z
    .string()
    .max(2048)
    .refine(
      (u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol),
      'must be an absolute http:// or https:// URL',
    )
    // Every agent reads a check's URL: credentials do not belong in it.
    .refine(
      (u) => !URL.canParse(u) || (new URL(u).username === '' && new URL(u).password === ''),
      'must not carry credentials (user:password@): every agent can read a check URL',
    )
    .refine(
      (u) => !URL.canParse(u) || ![...new URL(u).searchParams.keys()].some((k) => SECRET_PARAM.test(k)),
      'must not carry a secret in its query (token, password, secret, key, …): every agent can read a check URL',
    ),
  expectedStatus: z
    .number()
    .int()
    .min(100, 'must be an HTTP status (100–599)')
    .max(599, 'must be an HTTP status (100–599)')
    .default(200),
  timeoutMs: TimeoutMs,
});
export type HttpCheckSpec = z.infer<typeof HttpCheckSpecSchema>;

/** tcp: open a connection to host:port; pass when it is accepted. */
export const TcpCheckSpecSchema = z.strictObject({
  host: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9.:\-[\]]+$/, 'must be a host name or an IP address'),
  port: z.number().int().min(1, 'must be a port (1–65535)').max(65535, 'must be a port (1–65535)'),
  timeoutMs: TimeoutMs,
});
export type TcpCheckSpec = z.infer<typeof TcpCheckSpecSchema>;

/** A check's definition: its kind and the spec that kind needs (the state checks need none). */
export const CheckDefinitionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('http'), spec: HttpCheckSpecSchema }),
  z.strictObject({ kind: z.literal('tcp'), spec: TcpCheckSpecSchema }),
  z.strictObject({ kind: z.literal('proxmox_agent'), spec: z.strictObject({}) }),
  z.strictObject({ kind: z.literal('provider_state'), spec: z.strictObject({}) }),
]);
export type CheckDefinition = z.infer<typeof CheckDefinitionSchema>;

/** Seconds between runs of one check: at least 5 (the scheduler ticks every few seconds), at most a day. */
export const CheckIntervalSchema = z
  .number()
  .int()
  .min(5, 'must be at least 5 seconds')
  .max(86_400, 'must be at most 86400 seconds (a day)')
  .default(60);

/** What an operator reads as the check's target: the URL, host:port, or the property read. */
export function checkTarget(definition: { kind: string; spec: Record<string, unknown> }): string {
  if (definition.kind === 'http') return String(definition.spec.url);
  if (definition.kind === 'tcp') return `${String(definition.spec.host)}:${String(definition.spec.port)}`;
  if (definition.kind === 'proxmox_agent') return 'qemu_guest_agent';
  return 'state';
}

/** One stored result. `unreachable`: the address did not answer at all (see the probes). */
export const CheckResultSchema = z.object({
  status: CheckResultStatusSchema,
  at: z.string(),
  durationMs: z.number().int().min(0),
  reason: z.string().nullable(),
  unreachable: z.boolean(),
});
export type CheckResult = z.infer<typeof CheckResultSchema>;

/** What a state check concludes from one value: the status, and whether it means "unreachable". */
export interface StateVerdict {
  status: CheckResultStatus;
  unreachable: boolean;
}

const pass: StateVerdict = { status: 'pass', unreachable: false };
const fail: StateVerdict = { status: 'fail', unreachable: false };
const unknown: StateVerdict = { status: 'unknown', unreachable: false };
const unreachable: StateVerdict = { status: 'fail', unreachable: true };

/**
 * provider_state: each kind's states as pass/fail/unknown. Serving states pass (a migrating VM is
 * still running); states where the resource is not serving fail, deliberate ones too (maintenance,
 * disabled: the thing is not available, whoever did it); `unreachable` fails and says so; `unknown`
 * stays unknown. Exhaustive per kind, so a new state cannot be forgotten.
 */
export const PROVIDER_STATE_VERDICTS: { [K in Kind]: Record<StateOf<K>, StateVerdict> } = {
  cluster: { online: pass, degraded: fail, offline: fail, unreachable, unknown },
  host: { online: pass, offline: fail, maintenance: fail, unreachable, unknown },
  vm: {
    running: pass,
    migrating: pass,
    stopped: fail,
    paused: fail,
    suspended: fail,
    paused_io_error: fail,
    crashed: fail,
    unreachable,
    unknown,
  },
  lxc: { running: pass, stopped: fail, frozen: fail, unknown },
  storage: { available: pass, unavailable: fail, disabled: fail, unknown },
  network: { up: pass, down: fail, unknown },
  service: { up: pass, down: fail, unknown },
};

/** The values of the Proxmox ingest's `qemu_guest_agent` attribute (src/ingest/proxmox/guest-agent.ts). */
export const GUEST_AGENT_STATES = ['running', 'not_running', 'not_configured'] as const;

/**
 * proxmox_agent: `running` passes; `not_running` fails (also when the VM itself is stopped: the
 * agent cannot answer); `not_configured` fails too: whoever added the check expects an agent.
 * An absent or unrecognised value is unknown: the ingest has not reported it.
 */
export const GUEST_AGENT_VERDICTS: Record<(typeof GUEST_AGENT_STATES)[number], StateVerdict> = {
  running: pass,
  not_running: fail,
  not_configured: fail,
};

/** The stored state of one debouncing machine (mirrors scheduler/flap-state.ts). */
export interface FlapCounters {
  active: boolean;
  failStreak: number;
  passStreak: number;
}

/** A Check as reads return it. */
export interface CheckRecord {
  id: string;
  resourceId: string;
  kind: CheckKind;
  spec: Record<string, unknown>;
  intervalSeconds: number;
  critical: boolean;
  createdBy: string;
  createdAt: string;
  nextDueAt: string | null;
  lastRunAt: string | null;
  /** Newest first, at most the history size. */
  results: CheckResult[];
  failing: FlapCounters;
  unreachable: FlapCounters;
}
