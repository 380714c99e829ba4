import { DateTime } from 'luxon';
import { badInput } from '../errors.js';

/** A keyset position in a newest-first list: the item's time and id (ties broken by id). */
export interface TimeCursor {
  at: string;
  id: string;
}

/** The opaque Relay cursor of an item at `at` with `id`. */
export function encodeTimeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

/** Reads a cursor made by {@link encodeTimeCursor}; anything else is BAD_USER_INPUT naming `after` and the list. */
export function decodeTimeCursor(after: string, list: string): TimeCursor {
  try {
    const [at, id] = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof at === 'string' && typeof id === 'string' && DateTime.fromISO(at).isValid) return { at, id };
  } catch {
    // fall through to the error below
  }
  throw badInput('after', `not a cursor returned by ${list}`);
}
