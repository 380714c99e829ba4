import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createGraphQLError, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { createRequestContext, type RequestContext } from '../../resolvers/context.js';
import { withNeo4jDeadline } from '../services/deadline.js';
import type { ServiceDeps } from '../services/deps.js';
import { isUnavailable } from '../model/index.js';
import { authPlugin, principals } from './auth.js';
import { codedErrors, makeMaskError } from './errors.js';
import { createExecutor } from './executor.js';
import { refusalAudit } from './refusal-audit.js';
import { GRAPHIQL_DEFAULTS, renderLocalGraphiQL } from './graphiql.js';
import { buildSchema } from './graphql-schema.js';
import type { TokenStore } from '../services/token-store.js';

/** Query limits: each refusal is a clear validation error naming the limit. */
export const LIMITS = { maxDepth: 12, maxAliases: 15, maxCost: 20_000, maxTokens: 4_000, maxDirectives: 20 } as const;

/**
 * Queries and mutations run on graphql-js's executor, or on graphql-jit's code for an operation run
 * before (executor.ts); both write response keys in selection order as the spec asks, where yoga's
 * default executor writes them in order of completion, so a slow field would move. Subscriptions
 * keep yoga's executor. Each execution runs under the whole-request Neo4j deadline: past it, the
 * answer is `UNAVAILABLE` (masked as HTTP 503 + Retry-After) and the abandoned execution is left
 * to finish unseen.
 */
function boundedExecution(deps: ServiceDeps, compileAfter: number): Plugin {
  const execute = createExecutor({ compileAfter });
  return {
    onExecute: ({ setExecuteFn }) =>
      setExecuteFn((args) =>
        withNeo4jDeadline(deps, async () => execute(args)).catch((err: unknown) => {
          if (!isUnavailable(err)) throw err;
          return { errors: [createGraphQLError((err as Error).message, { originalError: err as Error })] };
        }),
      ),
  };
}

/** The GraphQL app at /graphql: auth, limits, masking, per-request DataLoaders. */
export function createGraphqlApp(
  base: ServiceDeps,
  tokens: TokenStore,
  options: { corsOrigins?: readonly string[]; compileAfter?: number } = {},
): YogaServerInstance<Record<string, never>, RequestContext> {
  const allowed = new Set(options.corsOrigins ?? []);
  // The operations that manage tokens act on the store that authenticates.
  const deps = { ...base, tokens };
  return createYoga<Record<string, never>, RequestContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    graphiql: GRAPHIQL_DEFAULTS,
    renderGraphiQL: renderLocalGraphiQL,
    landingPage: false,
    // No origin is allowed cross-origin unless AITIA_CORS_ORIGINS lists it (GraphiQL is same-origin);
    // bearer tokens, not cookies: never Access-Control-Allow-Credentials.
    cors: (request) => {
      const origin = request.headers.get('origin');
      return origin && allowed.has(origin) ? { origin: [origin], credentials: false } : false;
    },
    logging: false,
    maskedErrors: { maskError: makeMaskError(deps.log) },
    plugins: [
      authPlugin(deps),
      codedErrors,
      refusalAudit(deps),
      boundedExecution(deps, options.compileAfter ?? 1),
      // graphql-armor, in the order an agent can act on: depth and aliases name the problem more
      // precisely than the cost that follows from them.
      maxTokensPlugin({ n: LIMITS.maxTokens, exposeLimits: true }),
      maxDepthPlugin({ n: LIMITS.maxDepth, exposeLimits: true, flattenFragments: true }),
      maxAliasesPlugin({ n: LIMITS.maxAliases, exposeLimits: true }),
      maxDirectivesPlugin({ n: LIMITS.maxDirectives, exposeLimits: true }),
      costLimitPlugin({ maxCost: LIMITS.maxCost, exposeLimits: true }),
    ],
    context: ({ request }) => {
      const principal = principals.get(request);
      if (!principal) throw new Error('request reached GraphQL without a principal');
      return createRequestContext(deps, { ...principal, via: 'graphql' }, request.headers.get('last-event-id'));
    },
  });
}
