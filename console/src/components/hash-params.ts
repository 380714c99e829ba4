// Filters live in the hash (#/timeline?confidence=none&kind=vm) so a filtered view is a link:
// writing them is a navigation, and the page reads them back from its route params.
import { navigate } from '../router';

/** Navigates to `page` with the non-empty params (in a stable order, so equal filters give equal links). */
export function setHashParams(page: string, params: Record<string, string | undefined | null>): void {
  const q = new URLSearchParams();
  for (const key of Object.keys(params).sort()) {
    const value = params[key];
    if (value !== undefined && value !== null && value !== '') q.set(key, value);
  }
  const s = q.toString();
  navigate(`/${page}${s ? `?${s}` : ''}`);
}

/** An ISO instant as the value of a datetime-local input, in the browser's zone. */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local input's value (the browser's zone) as a UTC ISO instant, or undefined. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().replace(/\.000Z$/, 'Z');
}

/** The browser's IANA zone, for narratives written in it (UTC when the browser cannot say). */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}
