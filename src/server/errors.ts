import { createGraphQLError } from 'graphql-yoga';
import type { AitiaError } from '../model/index.js';
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
 * field; validation errors (including graphql-armor refusals) pass as they are; anything else is
 * masked as an internal error and logged with its cause.
 */
export function makeMaskError(log: Logger) {
  return (error: unknown, message: string): Error => {
    let original: unknown = error;
    let path: ReadonlyArray<string | number> | undefined;
    while (isGraphQLError(original) && original.originalError) {
      path ??= original.path;
      original = original.originalError;
    }
    if (isAitiaError(original)) {
      return createGraphQLError(original.message, {
        ...(path ? { path } : {}),
        extensions: {
          code: original.code,
          ...(original.field ? { field: original.field } : {}),
          ...(original.details ?? {}),
        },
      });
    }
    if (isGraphQLError(original)) return original as unknown as Error;
    log.error({ err: original }, 'unexpected error in a resolver');
    return createGraphQLError(message, { ...(path ? { path } : {}), extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  };
}
