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

/** Every other answer is data, never a document: it may load nothing and be framed by no one. */
export const API_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The headers every answer carries; the CSP depends on whether the path can serve the page. */
export function securityHeaders(path: string): Record<string, string> {
  const page = path === '/graphql' || path.startsWith('/graphql/');
  return {
    'content-security-policy': page ? PAGE_CSP : API_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

/** Set before any handler writes, so they merge with whatever headers the handler sends. */
export function setSecurityHeaders(res: ServerResponse, path: string): void {
  for (const [name, value] of Object.entries(securityHeaders(path))) res.setHeader(name, value);
}
