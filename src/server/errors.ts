import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { type AitiaError, RETRY_AFTER_SECONDS } from '../model/index.js';
import type { Logger } from '../log.js';

interface GraphQLErrorLike {
  name: 'GraphQLError';
  message: string;
  originalError?: unknown;
  path?: ReadonlyArray<string | number>;
  extensions?: Record<string, unknown>;
}

// Checked by shape, not instanceof: graphql can be loaded twice (its CJS and ESM builds), and
// then one copy's GraphQLError is not an instance of the other's.
function isGraphQLError(e: unknown): e is GraphQLErrorLike {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'GraphQLError';
}

function isAitiaError(e: unknown): e is AitiaError {
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { name?: unknown }).name === 'AitiaError' &&
    typeof (e as { code?: unknown }).code === 'string'
  );
}

/**
 * Two channels: expected failures (AitiaError) become GraphQL errors with `extensions.code` and the
 * field; request errors (validation, graphql-armor refusals, variables; they have no path) pass as
 * they are; anything else is masked as an internal error and logged with its cause. That includes
 * every other error raised while completing a field: a resolver's bug, a null where the schema
 * promises a value, a scalar or enum that cannot serialise what it got — whether graphql-js wraps
 * it around the cause or graphql-jit raises it itself (with a path and no cause).
 */
export function makeMaskError(log: Logger) {
  return (error: unknown, message: string): Error => {
    let original: unknown = error;
    let path: ReadonlyArray<string | number> | undefined;
    while (isGraphQLError(original)) {
      path ??= original.path;
      if (!original.originalError) break;
      original = original.originalError;
    }
    if (isAitiaError(original)) {
      return createGraphQLError(original.message, {
        ...(path ? { path } : {}),
        extensions: {
          code: original.code,
          ...(original.field ? { field: original.field } : {}),
          ...(original.details ?? {}),
          ...(original.code === 'UNAVAILABLE' ? { http: unavailableHttp(original.details) } : {}),
        },
      });
    }
    if (isGraphQLError(original) && path === undefined) return original as unknown as Error;
    log.error({ err: original, path }, 'unexpected error completing a field');
    return createGraphQLError(message, { ...(path ? { path } : {}), extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  };
}

/**
 * Neo4j did not answer: the whole response is HTTP 503 with Retry-After (yoga reads `http` from an
 * error's extensions and leaves it out of the body).
 */
function unavailableHttp(details: Record<string, unknown> | undefined) {
  const seconds = typeof details?.retryAfterSeconds === 'number' ? details.retryAfterSeconds : RETRY_AFTER_SECONDS;
  return { status: 503, headers: { 'Retry-After': String(seconds) } };
}

/** graphql-armor's refusals, by message, and the code each answers with. */
const LIMIT_CODES: ReadonlyArray<[RegExp, string]> = [
  [/depth limit/i, 'QUERY_TOO_DEEP'],
  [/aliases limit/i, 'TOO_MANY_ALIASES'],
  [/token limit/i, 'TOO_MANY_TOKENS'],
  [/directives limit/i, 'TOO_MANY_DIRECTIVES'],
  [/cost limit/i, 'QUERY_TOO_COMPLEX'],
];

/** The code an error without one answers with: a named limit, else a request the schema refused. */
export function codeFor(message: string, path: unknown): string {
  for (const [re, code] of LIMIT_CODES) if (re.test(message)) return code;
  return path === undefined ? 'GRAPHQL_VALIDATION_FAILED' : 'INTERNAL_SERVER_ERROR';
}

/**
 * Every error leaves with an `extensions.code` and without internal detail: graphql-armor's limit
 * refusals and variable coercion errors come without a code, yoga's request-parsing errors echo the
 * parser's `originalError`. Applied to each result just before it is serialised.
 */
export const codedErrors: Plugin = {
  onResultProcess({ result }) {
    const results = Array.isArray(result) ? result : [result];
    for (const r of results) {
      const errors = (r as { errors?: unknown } | null)?.errors;
      if (!Array.isArray(errors)) continue;
      for (const e of errors as Array<{ message?: string; path?: unknown; extensions?: Record<string, unknown> }>) {
        if (!e || typeof e !== 'object') continue;
        const ext = e.extensions ?? {};
        if (ext.originalError !== undefined) {
          // yoga keeps a request error's HTTP status (400) only while originalError is there; it
          // reads `http.spec: false` the same way.
          const http = ext.http as Record<string, unknown> | undefined;
          if (http?.spec) ext.http = { ...http, spec: false };
          delete ext.originalError;
        }
        if (typeof ext.code !== 'string') ext.code = codeFor(String(e.message ?? ''), e.path);
        if (!e.extensions) Object.assign(e, { extensions: ext });
      }
    }
  },
};
