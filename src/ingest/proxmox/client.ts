import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import pLimit from 'p-limit';
import {
  ProxmoxApiError,
  isRetryable,
  isThrottled,
  parseRetryAfter,
  statusError,
  transportError,
} from './client-error.js';
import { boundedRequest } from '../bounded-request.js';
import { emptyRequestCounts, requestCategory, type RequestCounts } from './request-stats.js';

export { ProxmoxApiError, isRetryable, type ProxmoxErrorKind } from './client-error.js';

/** The Proxmox VE API as ingest uses it: JSON in, the envelope's `data` out, typed errors. */
export interface ProxmoxClient {
  /** The API base as configured (`https://pve1.lan:8006`), without `/api2/json`. */
  readonly baseUrl: string;
  /** GET `<base>/api2/json<path>`; retried with exponential backoff on transient failures. */
  get(path: string, query?: Record<string, string | number>): Promise<unknown>;
  /**
   * GET of a paged list (a node's task list): `data` and the envelope's `total` (every entry the
   * filters match, whatever `limit` the server honoured), null when the answer carries none.
   */
  getList(path: string, query?: Record<string, string | number>): Promise<{ data: unknown; total: number | null }>;
  /** POST, retried only on 429 (the API refused it unread): a repeated POST could act twice. */
  post(path: string, body?: Record<string, string | number>): Promise<unknown>;
  /** Requests sent since the client was made (a snapshot; diff two to count one pass). */
  requestCounts(): RequestCounts;
  /** Lets go of kept-alive sockets. */
  close(): void;
}

/** Connection settings, from AITIA_PROXMOX_* (see src/config.ts). */
export interface ProxmoxClientOptions {
  /** `https://host:8006` (`http://` only for a local stand-in). */
  baseUrl: string;
  /** `user@realm!tokenid=secret`; sent as `Authorization: PVEAPIToken=…`, never logged. */
  token: string;
  /** PEM CA bundle path (AITIA_PROXMOX_CA_FILE); read once here. */
  caFile?: string | undefined;
  /** Skip TLS verification: an explicit opt-in (AITIA_PROXMOX_INSECURE). */
  insecure?: boolean;
  /** Per attempt, from request to the last body byte. Default 10 s. */
  timeoutMs?: number;
  /** Extra attempts for GETs. Default 2. */
  retries?: number;
  /** First backoff; doubles each retry. Default 300 ms. */
  backoffMs?: number;
  /** Bodies larger than this are refused (a runaway answer must not exhaust memory). Default 64 MiB. */
  maxBodyBytes?: number;
  /** Requests in flight at once, whoever asks (AITIA_PROXMOX_MAX_CONCURRENT_REQUESTS). Default 4. */
  maxConcurrent?: number;
  /** The longest a Retry-After is honoured; a longer one waits this long. Default 30 s. */
  maxRetryAfterMs?: number;
}

interface RawAnswer {
  status: number;
  statusMessage: string;
  body: string;
  retryAfter: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Builds a client; TLS is verified unless `insecure` is set. A CA file that cannot be read fails here. */
export function createProxmoxClient(options: ProxmoxClientOptions): ProxmoxClient {
  const base = new URL(options.baseUrl.replace(/\/+$/, '') + '/api2/json');
  const isHttps = base.protocol === 'https:';
  let ca: Buffer | undefined;
  if (options.caFile) {
    try {
      ca = readFileSync(options.caFile);
    } catch (err) {
      throw new Error(`cannot read AITIA_PROXMOX_CA_FILE ${options.caFile}: ${(err as Error).message}`, { cause: err });
    }
  }
  const maxConcurrent = Math.max(1, options.maxConcurrent ?? 4);
  const agent = isHttps
    ? new https.Agent({ keepAlive: true, maxSockets: maxConcurrent, ca, rejectUnauthorized: !options.insecure })
    : new http.Agent({ keepAlive: true, maxSockets: maxConcurrent });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 300;
  const maxBody = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  // One place per attempt, first come first served (p-limit's queue): a retry waits its turn again.
  const slot = pLimit(Math.ceil(maxConcurrent));
  const counts = emptyRequestCounts();
  // After a 429/503 every request waits until then: the whole source backs off, not one call.
  let pausedUntil = 0;
  const headers = { Authorization: `PVEAPIToken=${options.token}`, Accept: 'application/json' };

  async function once(method: 'GET' | 'POST', path: string, url: URL, form: string | null): Promise<RawAnswer> {
    const extra: Record<string, string | number> =
      form === null
        ? {}
        : { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(form) };
    const answer = await boundedRequest(
      url,
      { method, agent, headers: { ...headers, ...extra }, body: form, timeoutMs, maxBodyBytes: maxBody },
      (f) => {
        if (f.kind === 'transport') return transportError(method, path, f.err);
        const [kind, detail] =
          f.kind === 'timeout'
            ? (['timeout', `no complete answer within ${timeoutMs} ms`] as const)
            : f.kind === 'too_large'
              ? (['malformed', `answer larger than ${maxBody} bytes (AITIA_PROXMOX_MAX_ANSWER_BYTES)`] as const)
              : (['network', 'connection closed before the answer was complete'] as const);
        return new ProxmoxApiError({ kind, method, path, detail });
      },
    );
    const retryAfter = answer.headers['retry-after'];
    return {
      status: answer.status,
      statusMessage: answer.statusMessage,
      body: answer.body,
      retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
    };
  }

  function parse(method: 'GET' | 'POST', path: string, answer: RawAnswer): unknown {
    return envelope(method, path, answer).data;
  }

  function envelope(method: 'GET' | 'POST', path: string, answer: RawAnswer): { data: unknown; total?: unknown } {
    if (answer.status < 200 || answer.status >= 300)
      throw statusError(
        method,
        path,
        answer.status,
        answer.statusMessage,
        answer.body,
        parseRetryAfter(answer.retryAfter, Date.now()),
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch (err) {
      const detail = `malformed JSON in the answer (${answer.body.length} bytes; ${(err as Error).message})`;
      throw new ProxmoxApiError({ kind: 'malformed', method, path, status: answer.status, detail });
    }
    if (!parsed || typeof parsed !== 'object' || !('data' in parsed)) {
      throw new ProxmoxApiError({
        kind: 'malformed',
        method,
        path,
        status: answer.status,
        detail: 'answer is not a {"data": …} envelope',
      });
    }
    return parsed as { data: unknown; total?: unknown };
  }

  async function call<T = unknown>(
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string | number> | undefined,
    read: (method: 'GET' | 'POST', path: string, answer: RawAnswer) => T = parse as never,
  ): Promise<T> {
    if (!path.startsWith('/')) throw new Error(`Proxmox API path must start with /: ${path}`);
    const url = new URL(base.href + path);
    const encoded = new URLSearchParams(Object.entries(params ?? {}).map(([k, v]) => [k, String(v)])).toString();
    if (method === 'GET' && encoded) url.search = encoded;
    const attempts = retries + 1;
    const category = requestCategory(method, path);
    for (let attempt = 1; ; attempt++) {
      try {
        return await slot(async () => {
          const wait = pausedUntil - Date.now();
          if (wait > 0) {
            counts.backoffMs += wait;
            await sleep(wait);
          }
          counts.total++;
          counts.byCategory[category]++;
          if (attempt > 1) counts.retried++;
          return read(method, path, await once(method, path, url, method === 'POST' ? encoded : null));
        });
      } catch (err) {
        const e = err instanceof ProxmoxApiError ? err : transportError(method, path, err);
        e.attempts = attempt;
        const throttled = isThrottled(e);
        if (throttled) counts.throttled++;
        // A POST is repeated only after a 429: the API refused it without acting on it.
        const mayRetry = method === 'GET' ? isRetryable(e) : e.kind === 'http' && e.status === 429;
        if (attempt >= attempts || !mayRetry) throw e;
        const backoff = backoffMs * 2 ** (attempt - 1);
        if (throttled) {
          const delay = Math.min(maxRetryAfterMs, Math.max(e.retryAfterMs ?? 0, backoff));
          pausedUntil = Math.max(pausedUntil, Date.now() + delay);
        } else await sleep(backoff);
      }
    }
  }

  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    get: (path, query) => call('GET', path, query),
    getList: (path, query) =>
      call('GET', path, query, (m, p, a) => {
        const e = envelope(m, p, a);
        // `total` as pveproxy sends it: a number (or a numeric string); anything else is no count.
        const total = typeof e.total === 'string' && /^\d+$/.test(e.total) ? Number(e.total) : e.total;
        return { data: e.data, total: typeof total === 'number' && Number.isFinite(total) ? total : null };
      }),
    post: (path, body) => call('POST', path, body),
    requestCounts: () => structuredClone(counts),
    close: () => agent.destroy(),
  };
}
