// Hash routes: the page is in the fragment, so reloads and links never send anything to the server
// beyond /console. #/inbox, #/approvals/history, #/timeline, #/resource/<id>, #/search?q=…, #/audit.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  page: string;
  params: Record<string, string>;
}

/** The href for a route such as "/resource/" + encodeURIComponent(id) or "/search?q=web". */
export function href(route: string): string {
  return `#${route.startsWith('/') ? route : `/${route}`}`;
}

/** Resource pages by id (ids and slugs contain ':' and '/', hence the encoding). */
export function resourceHref(id: string): string {
  return href(`/resource/${encodeURIComponent(id)}`);
}

/** Goes to a route; `replace` swaps the current history entry (a redirect Back should skip). */
export function navigate(route: string, replace = false): void {
  if (replace) window.location.replace(href(route));
  else window.location.hash = href(route);
}

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const path = q >= 0 ? raw.slice(0, q) : raw;
  const params: Record<string, string> = {};
  if (q >= 0) new URLSearchParams(raw.slice(q + 1)).forEach((v, k) => (params[k] = v));
  const [first = '', ...rest] = path.split('/');
  if (first === 'resource' && rest.length)
    return { page: 'resource', params: { ...params, id: decodeURIComponent(rest.join('/')) } };
  if (first === 'approvals' && rest[0] === 'history') return { page: 'history', params };
  return { page: first || 'inbox', params };
}

export function useRoute(): Route {
  const [initial] = useState(() => window.location.hash);
  const [route, setRoute] = useState(() => parseRoute(initial));
  useEffect(() => {
    const on = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', on);
    // The hash may have changed between the first render and this effect (a link followed, or a
    // script's navigation, right after sign-in): that hashchange fired before anyone listened.
    if (window.location.hash !== initial) on();
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}
