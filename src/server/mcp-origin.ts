import { isIP } from 'node:net';

/**
 * DNS rebinding protection for /mcp (the MCP streamable HTTP transport says servers MUST check
 * `Origin`): a browser page may call it only from the server's own origin or one
 * AITIA_CORS_ORIGINS lists. No `Origin` (agents, CLIs: not a browser) passes. The server's own
 * origin is the request's `Host` only where that cannot be a rebound name: loopback or an IP
 * literal. Under a DNS name, list its origin in AITIA_CORS_ORIGINS.
 */
export function originRefusal(
  origin: string | undefined,
  host: string | undefined,
  allowed: ReadonlySet<string>,
): string | null {
  if (origin === undefined) return null;
  let url: URL | null;
  try {
    url = new URL(origin);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null')
    return `Origin ${JSON.stringify(origin)} is not an http(s) origin: /mcp is called from the server's own origin, one AITIA_CORS_ORIGINS lists, or without Origin`;
  if (allowed.has(url.origin)) return null;
  if (host !== undefined && host.toLowerCase() === url.host && literalHost(url.hostname)) return null;
  return `Origin ${url.origin} may not call /mcp: only the server's own origin or one AITIA_CORS_ORIGINS lists (DNS rebinding protection)`;
}

/** A host name no DNS answer can stand behind: localhost or an IP literal (IPv6 in brackets). */
function literalHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || bare.endsWith('.localhost') || isIP(bare) !== 0;
}

/** AITIA_CORS_ORIGINS as origins compare (scheme://host[:port], lower case, default ports dropped). */
export function originSet(origins: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const o of origins) {
    try {
      set.add(new URL(o).origin);
    } catch {
      // config.ts refused anything that is not an origin; nothing to add
    }
  }
  return set;
}
