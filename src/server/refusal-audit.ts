import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { auditRefusal } from '../services/audit.js';
import type { ServiceDeps } from '../services/deps.js';
import { principals } from './auth.js';

/** Codes that are not a refusal of the request itself: no audit line for them here. */
const NOT_REFUSALS = new Set(['UNAVAILABLE', 'UNAUTHENTICATED', 'INTERNAL_SERVER_ERROR']);

/** The mutation a document asks for (its first root field), or null for anything else or an unparsable one. */
function mutationOf(query: string, operationName: string | undefined): string | null {
  try {
    const ops = parse(query).definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
    if (op?.operation !== 'mutation') return null;
    const first = op.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
    return first?.kind === Kind.FIELD ? first.name.value : 'mutation';
  } catch {
    return null;
  }
}

/**
 * An authenticated mutation refused before any resolver ran (unknown field, a limit, a bad enum
 * in the variables) leaves an audit line `refused` with its code, as a refusal by a service does.
 */
export function refusalAudit(deps: ServiceDeps): Plugin {
  const asked = new WeakMap<Request, { query: string; operationName: string | undefined }>();
  return {
    onParams({ params, request }) {
      if (typeof params.query === 'string')
        asked.set(request, { query: params.query, operationName: params.operationName ?? undefined });
    },
    onResultProcess({ request, result }) {
      if (Array.isArray(result) || !result || typeof result !== 'object' || 'data' in result) return;
      const errors = (result as { errors?: Array<{ message?: string; extensions?: { code?: unknown } }> }).errors;
      const principal = principals.get(request);
      const query = asked.get(request);
      const first = errors?.[0];
      const code = typeof first?.extensions?.code === 'string' ? first.extensions.code : null;
      if (!principal || !query || !first || !code || NOT_REFUSALS.has(code)) return;
      const operation = mutationOf(query.query, query.operationName);
      if (!operation) return;
      void auditRefusal(deps, { ...principal, via: 'graphql' }, operation, `${code}: ${first.message ?? ''}`);
    },
  };
}
