import { child, type XmlElement, xsiType } from './xml.js';

/**
 * Why a vSphere API call failed. `auth` (HTTP 401, InvalidLogin, NotAuthenticated after a re-login,
 * NoPermission) needs an operator; `fault` is any other SOAP fault (its vim25 type kept);
 * `timeout`, `network`, `tls`, `http` and `malformed` are about reaching and reading the API.
 */
export type VsphereErrorKind = 'auth' | 'fault' | 'http' | 'timeout' | 'network' | 'malformed' | 'tls';

/** One failed call: the SOAP method, what came back and why. */
export class VsphereApiError extends Error {
  readonly kind: VsphereErrorKind;
  readonly method: string;
  readonly status: number | null;
  /** The vim25 fault type (`NotAuthenticated`, `InvalidLogin`, `InvalidProperty` …) of a SOAP fault. */
  readonly faultType: string | null;

  constructor(init: {
    kind: VsphereErrorKind;
    method: string;
    status?: number | null;
    faultType?: string | null;
    detail: string;
    cause?: unknown;
  }) {
    const status = init.status ?? null;
    super(
      `vSphere ${init.method}: ${status !== null ? `HTTP ${status}: ` : ''}${init.detail}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.name = 'VsphereApiError';
    this.kind = init.kind;
    this.method = init.method;
    this.status = status;
    this.faultType = init.faultType ?? null;
  }
}

/** Fault types that say the credentials or the session are not good enough. */
const AUTH_FAULTS = new Set(['NotAuthenticated', 'InvalidLogin', 'NoPermission', 'NotAuthorized']);

/**
 * The fault in a SOAP Body, if it holds one: the vim25 type from `detail` (its child's `xsi:type`,
 * or its element name without the `Fault` suffix) and the faultstring. Pure.
 */
export function soapFault(body: XmlElement | null, method: string, status: number): VsphereApiError | null {
  const fault = body ? child(body, 'Fault') : null;
  if (!fault) return null;
  const message = child(fault, 'faultstring')?.text.trim() || 'no message';
  const detail = child(fault, 'detail')?.children[0];
  const faultType = detail ? (xsiType(detail) ?? detail.name.replace(/Fault$/, '')) : null;
  return new VsphereApiError({
    kind: faultType !== null && AUTH_FAULTS.has(faultType) ? 'auth' : 'fault',
    method,
    status,
    faultType,
    detail: `${faultType ?? 'SOAP fault'}: ${message}`,
  });
}

/** Node TLS error codes that mean "the certificate was not trusted", not "the network failed". */
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME/;

/** Classifies a transport error (no HTTP status) from node:http(s). */
export function vsphereTransportError(method: string, err: unknown): VsphereApiError {
  const code = String((err as { code?: unknown }).code ?? '');
  if (TLS_CODES.test(code))
    return new VsphereApiError({
      kind: 'tls',
      method,
      detail: `TLS verification failed (${code}): give the source a CA file (caFile) or, knowingly, insecure: true`,
      cause: err,
    });
  const text = err instanceof Error ? err.message : String(err);
  return new VsphereApiError({ kind: 'network', method, detail: `${code ? code + ': ' : ''}${text}`, cause: err });
}
