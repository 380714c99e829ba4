/** Error codes clients can branch on; UPPER_SNAKE as GraphQL `extensions.code`. */
export type ErrorCode = 'BAD_USER_INPUT' | 'NOT_FOUND' | 'FORBIDDEN' | 'UNAUTHENTICATED' | 'CONFLICT';

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
