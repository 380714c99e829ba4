/**
 * Why a Proxmox API call failed. `auth` (401) and `forbidden` (403) need an operator; `timeout`,
 * `network`, `malformed` and the proxy statuses 502–504/595/596 may pass on a retry; `http` carries
 * the provider's own message (HTTP 500 bodies are `{"data": null, "message": "…"}`).
 */
export type ProxmoxErrorKind = 'auth' | 'forbidden' | 'http' | 'timeout' | 'network' | 'malformed' | 'tls';

/** One failed call: what was asked (method, path), what came back (status, message) and why. */
export class ProxmoxApiError extends Error {
  readonly kind: ProxmoxErrorKind;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly status: number | null;
  /** The provider's message (trimmed), when it sent one. */
  readonly providerMessage: string | null;
  /** How many times the call was tried (GETs are retried on transient failures). */
  attempts: number;
  /** The answer's `Retry-After`, in milliseconds, when it sent one (429, 503). */
  readonly retryAfterMs: number | null;

  constructor(init: {
    kind: ProxmoxErrorKind;
    method: 'GET' | 'POST';
    path: string;
    status?: number | null;
    providerMessage?: string | null;
    detail: string;
    attempts?: number;
    retryAfterMs?: number | null;
    cause?: unknown;
  }) {
    const status = init.status ?? null;
    super(
      `${init.method} ${init.path}: ${status !== null ? `HTTP ${status}: ` : ''}${init.detail}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = 'ProxmoxApiError';
    this.kind = init.kind;
    this.method = init.method;
    this.path = init.path;
    this.status = status;
    this.providerMessage = init.providerMessage ?? null;
    this.attempts = init.attempts ?? 1;
    this.retryAfterMs = init.retryAfterMs ?? null;
  }
}

/**
 * Statuses a GET may retry: 429 (too many requests), gateway errors and pveproxy's 595 (no
 * connection) / 596 (timeout) to another node.
 */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504, 595, 596]);

/** 429 and 503: the API (or a proxy in front of it) asks the client to slow down. */
export function isThrottled(err: ProxmoxApiError): boolean {
  return err.kind === 'http' && (err.status === 429 || err.status === 503);
}

/**
 * A `Retry-After` header in milliseconds: delta-seconds (`120`) or an HTTP date, relative to
 * `nowMs`; null when absent or unreadable. Negative waits are zero. Pure.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  const v = (value ?? '').trim();
  if (v === '') return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (!Number.isFinite(at) || !/[a-z]/i.test(v)) return null;
  return Math.max(0, at - nowMs);
}

/** True when repeating the same GET could succeed. POSTs are never retried, whatever this says. */
export function isRetryable(err: ProxmoxApiError): boolean {
  if (err.kind === 'timeout' || err.kind === 'network' || err.kind === 'malformed') return true;
  return err.kind === 'http' && err.status !== null && RETRYABLE_STATUS.has(err.status);
}

/** Node TLS error codes that mean "the certificate was not trusted", not "the network failed". */
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME/;

/** Classifies a transport error (no HTTP status) from node:http(s). */
export function transportError(method: 'GET' | 'POST', path: string, err: unknown): ProxmoxApiError {
  const code = String((err as { code?: unknown }).code ?? '');
  const text = err instanceof Error ? err.message : String(err);
  if (TLS_CODES.test(code)) {
    return new ProxmoxApiError({
      kind: 'tls',
      method,
      path,
      detail: `TLS verification failed (${code}): set AITIA_PROXMOX_CA_FILE to the cluster CA (/etc/pve/pve-root-ca.pem) or, knowingly, AITIA_PROXMOX_INSECURE=true`,
      cause: err,
    });
  }
  return new ProxmoxApiError({
    kind: 'network',
    method,
    path,
    detail: `${code ? code + ': ' : ''}${text}`,
    cause: err,
  });
}

/** Reads `message` from a Proxmox error body, if the body is the usual JSON envelope. */
function bodyMessage(text: string): string | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { message?: unknown }).message === 'string') {
      const m = (parsed as { message: string }).message.trim();
      return m === '' ? null : m;
    }
  } catch {
    // Not JSON: pveproxy error pages are HTML; the status line carries the message then.
  }
  return null;
}

/** Builds the error for a non-2xx answer; 401 and 403 say what to check. */
export function statusError(
  method: 'GET' | 'POST',
  path: string,
  status: number,
  statusMessage: string,
  body: string,
  retryAfterMs: number | null = null,
): ProxmoxApiError {
  const reason = statusMessage.trim();
  const providerMessage = bodyMessage(body) ?? (reason !== '' ? reason : null);
  if (status === 401) {
    return new ProxmoxApiError({
      kind: 'auth',
      method,
      path,
      status,
      providerMessage,
      detail: 'authentication failed: check AITIA_PROXMOX_TOKEN',
    });
  }
  if (status === 403) {
    return new ProxmoxApiError({
      kind: 'forbidden',
      method,
      path,
      status,
      providerMessage,
      detail: `permission denied: the token lacks a privilege for this path (e.g. PVEAuditor on /)${providerMessage ? ` — ${providerMessage}` : ''}`,
    });
  }
  return new ProxmoxApiError({
    kind: 'http',
    method,
    path,
    status,
    providerMessage,
    retryAfterMs,
    detail: providerMessage ?? 'no message',
  });
}
