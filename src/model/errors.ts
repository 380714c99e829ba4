/**
 * Error codes clients can branch on; UPPER_SNAKE as GraphQL `extensions.code`. `UNAVAILABLE`: the
 * graph database did not answer in time (HTTP 503 with Retry-After): ask again later; a write
 * answered so may still have been applied if Neo4j froze mid-commit.
 */
export type ErrorCode = 'BAD_USER_INPUT' | 'NOT_FOUND' | 'FORBIDDEN' | 'UNAUTHENTICATED' | 'CONFLICT' | 'UNAVAILABLE';

/**
 * An expected failure: bad input, a missing resource, a refused permission. It carries the field it
 * is about so the caller can fix exactly that; anything else thrown is unexpected and gets masked.
 */
export class AitiaError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AitiaError';
    this.code = code;
    this.field = options.field;
    this.details = options.details;
  }
}

/** `BAD_USER_INPUT` naming the field and the reason: "<field>: <reason>". */
export function badInput(field: string, reason: string, details?: Record<string, unknown>): AitiaError {
  return new AitiaError('BAD_USER_INPUT', `${field}: ${reason}`, details ? { field, details } : { field });
}

/** `NOT_FOUND` for a resource or object the caller named. */
export function notFound(field: string, what: string): AitiaError {
  return new AitiaError('NOT_FOUND', `${field}: ${what} not found`, { field });
}

/** Seconds a caller is told to wait before asking again while the graph database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;

/** `UNAVAILABLE`: Neo4j did not answer in time; `retryAfterSeconds` travels to the client. */
export function unavailable(cause?: unknown): AitiaError {
  return new AitiaError(
    'UNAVAILABLE',
    `the graph database (Neo4j) is unavailable: retry after ${RETRY_AFTER_SECONDS} s`,
    { details: { retryAfterSeconds: RETRY_AFTER_SECONDS }, cause },
  );
}

/** True for an `UNAVAILABLE` AitiaError (checked by shape, as errors may cross module copies). */
export function isUnavailable(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { name?: unknown }).name === 'AitiaError' &&
    (err as { code?: unknown }).code === 'UNAVAILABLE'
  );
}

/** Turns zod issues into one readable line: "field.path: reason; other: reason". */
export function describeZodIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  prefix = '',
): string {
  return issues
    .map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.') || '(input)'}: ${i.message}`)
    .join('; ');
}

/**
 * The service cannot start as configured (a malformed variable, an invalid policy file): the
 * message names what to fix, and the CLI prints it as it is, without a stack.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
