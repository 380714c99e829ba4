import { createGraphQLError, isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ServiceDeps } from '../services/deps.js';
import type { Principal } from '../services/permissions.js';
import type { TokenStore } from '../services/token-store.js';
import { refuseExpiredToken } from '../services/tokens.js';
import { endWhenRefused, TOKEN_RECHECK_MS, tokenRefusal } from './token-watch.js';

/** The bearer token of an Authorization header (`Bearer <token>`), or null. */
export function bearerToken(header: string | null | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1]! : null;
}

/** GraphiQL's HTML page may load without a token; every GraphQL operation needs one. */
function isGraphiqlPage(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}

/** What GraphiQL's Headers tab holds until a person pastes a token. */
export const TOKEN_PLACEHOLDER = '<token>';

/** Why a request is not authenticated: no token, the GraphiQL placeholder, or a token nobody holds. */
export function unauthenticatedMessage(token: string | null): string {
  if (!token) return 'missing bearer token: send Authorization: Bearer <token>';
  if (token === TOKEN_PLACEHOLDER)
    return 'the Authorization header still holds the placeholder <token>: put your bearer token there (in GraphiQL: the Headers tab below the query)';
  return 'unknown bearer token';
}

/** Refused requests (HTTP 401) since the process started, by reason: there is no principal to audit. */
const refusals = new Map<string, number>();

function countRefusal(deps: ServiceDeps, reason: string): void {
  const n = (refusals.get(reason) ?? 0) + 1;
  refusals.set(reason, n);
  const total = [...refusals.values()].reduce((a, b) => a + b, 0);
  deps.log.warn({ reason, refusals: n, refusalsTotal: total }, 'request refused: HTTP 401');
}

/**
 * The principal of a bearer token, or why there is none. Every refusal is counted in the log line
 * it writes (`refusals` of its reason, `refusalsTotal`); an expired token's refusal is also counted
 * by the token store and (the first time) audited; one check for every surface (/graphql, /mcp).
 */
export async function authenticateBearer(
  deps: ServiceDeps,
  tokens: TokenStore,
  token: string | null,
): Promise<{ ok: true; principal: Principal } | { ok: false; message: string }> {
  const checked = token ? tokens.check(token) : null;
  if (checked?.ok) return { ok: true, principal: checked.principal };
  countRefusal(deps, !token ? 'missing' : (checked?.reason ?? 'unknown'));
  if (checked?.reason === 'expired') return { ok: false, message: await refuseExpiredToken(deps, checked.entry) };
  return { ok: false, message: unauthenticatedMessage(token) };
}

/** Resolved principals, per request, so the context factory does not hash the token twice. */
export const principals = new WeakMap<Request, Principal>();

/** The bearer token of each authenticated request and when it was checked: a later step re-checks it. */
const bearers = new WeakMap<Request, { token: string; at: number }>();

/** The refusal of a request's token if it was checked longer than TOKEN_RECHECK_MS ago and no longer holds. */
function staleRefusal(tokens: TokenStore, request: Request | undefined): string | null {
  const principal = request ? principals.get(request) : undefined;
  const bearer = request ? bearers.get(request) : undefined;
  if (!principal || !bearer || Date.now() - bearer.at < TOKEN_RECHECK_MS) return null;
  return tokenRefusal(tokens, bearer.token, principal);
}

/**
 * Answers HTTP 401 for a missing, unknown, revoked or expired token before any GraphQL work is
 * done. The tokens file is re-read when it changes, so a revocation applies to the next request;
 * an open subscription re-checks its token every second and before each event, and ends with a
 * last `UNAUTHENTICATED` result once it is revoked, expired or changed.
 */
export function authPlugin(deps: ServiceDeps & { tokens: TokenStore }): Plugin {
  return {
    async onRequest({ request, endResponse, fetchAPI }) {
      if (isGraphiqlPage(request)) return;
      const token = bearerToken(request.headers.get('authorization'));
      const checked = await authenticateBearer(deps, deps.tokens, token);
      if (!checked.ok) {
        const message = checked.message;
        endResponse(
          new fetchAPI.Response(JSON.stringify({ errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] }), {
            status: 401,
            headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="aitia"' },
          }),
        );
        return;
      }
      principals.set(request, checked.principal);
      if (token) bearers.set(request, { token, at: Date.now() });
    },
    // A body sent slowly arrives after the check above: an operation that starts later runs only
    // while the token still holds.
    onExecute({ args, setResultAndStopExecution }) {
      const reason = staleRefusal(deps.tokens, (args.contextValue as { request?: Request }).request);
      if (reason === null) return;
      setResultAndStopExecution({
        errors: [createGraphQLError(reason, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } })],
      });
    },
    onSubscribe({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      const principal = request ? principals.get(request) : undefined;
      const token = request ? bearers.get(request)?.token : undefined;
      // Unreachable: onRequest authenticated every request that reaches a subscription.
      if (!principal || !token) throw new Error('subscription reached GraphQL without a principal');
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          setResult(
            endWhenRefused(
              result,
              () => tokenRefusal(deps.tokens, token, principal),
              (reason) => {
                deps.log.warn({ principal: principal.name, role: principal.role, reason }, 'subscription ended');
                return { errors: [createGraphQLError(reason, { extensions: { code: 'UNAUTHENTICATED' } })] };
              },
            ),
          );
        },
      };
    },
  };
}
