import type { ServerResponse } from 'node:http';

/**
 * GraphiQL's page (and the assets it loads): scripts only from this origin, never inline (the page's
 * options travel as a JSON data block its boot script reads); styles may be inline because GraphiQL
 * and its editor set them at run time. Nothing may frame it.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The operator console (/console): its own bundle and stylesheet only — no inline script or style
 * (it sets element.style from script, which a CSP allows), images from itself or data: URIs, and it
 * talks only to this origin (GraphQL and its SSE). Nothing may frame it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Every other answer is data, never a document: it may load nothing and be framed by no one. */
export const API_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The CSP for a path: GraphiQL's page and assets, the console's, or none for data. */
export function cspFor(path: string): string {
  if (path === '/graphql' || path.startsWith('/graphql/')) return PAGE_CSP;
  if (path === '/console' || path.startsWith('/console/')) return CONSOLE_CSP;
  return API_CSP;
}

/** The headers every answer carries; the CSP depends on which page, if any, the path can serve. */
export function securityHeaders(path: string): Record<string, string> {
  return {
    'content-security-policy': cspFor(path),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

/** Set before any handler writes, so they merge with whatever headers the handler sends. */
export function setSecurityHeaders(res: ServerResponse, path: string): void {
  for (const [name, value] of Object.entries(securityHeaders(path))) res.setHeader(name, value);
}
