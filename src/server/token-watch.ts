import type { Principal } from '../services/permissions.js';
import type { TokenStore } from '../services/token-store.js';

/** How often an open stream (SSE subscription, MCP stream) asks whether its token still holds. */
export const TOKEN_RECHECK_MS = 1000;

/**
 * Why a stream opened with `token` as `principal` must end now, or null while the token holds:
 * revoked (no longer in the tokens file), expired, or now standing for another name or role. The
 * store re-reads the file when it changes, so a revocation by `aitia tokens revoke` counts too.
 */
export function tokenRefusal(tokens: TokenStore, token: string, principal: Principal): string | null {
  const checked = tokens.check(token);
  if (checked.ok) {
    const now = checked.principal;
    if (now.name === principal.name && now.role === principal.role) return null;
    return `bearer token ${principal.name} now stands for ${now.name} (role ${now.role}); open the stream again`;
  }
  if (checked.reason === 'expired')
    return `bearer token ${principal.name} expired at ${checked.entry.expiresAt}; ask an operator for a new one`;
  return `bearer token ${principal.name} was revoked; ask an operator for a new one`;
}

/**
 * Calls `onRefused` once, with the reason, when `refusal` first answers one: checked every
 * `everyMs`. Returns the function that stops watching (call it when the stream ends by itself).
 */
export function watchToken(
  refusal: () => string | null,
  onRefused: (reason: string) => void,
  everyMs = TOKEN_RECHECK_MS,
): () => void {
  const timer = setInterval(() => {
    const reason = refusal();
    if (reason === null) return;
    clearInterval(timer);
    onRefused(reason);
  }, everyMs);
  // An open stream alone does not keep the process alive at shutdown.
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `source`, ended as soon as `refusal` answers a reason: checked every `everyMs` and again before
 * each value is handed on, so nothing is delivered after it. The last value is `ended(reason)`.
 * The source is returned (its listeners released) without waiting for a value it is still awaiting.
 */
export function endWhenRefused<T>(
  source: AsyncIterable<T>,
  refusal: () => string | null,
  ended: (reason: string) => T,
  everyMs = TOKEN_RECHECK_MS,
): AsyncIterableIterator<T> {
  const it = source[Symbol.asyncIterator]();
  let finished = false;
  let refused: string | null = null;
  // Set while a step is awaited: a refusal meanwhile answers it at once.
  let interrupt: ((reason: string) => void) | undefined;
  const stop = watchToken(
    refusal,
    (reason) => {
      refused = reason;
      interrupt?.(reason);
    },
    everyMs,
  );
  const release = () => {
    finished = true;
    stop();
    // Not awaited: a generator returns only once its pending step settles, which may be never.
    void Promise.resolve(it.return?.()).catch(() => undefined);
  };
  const end = (reason: string): IteratorResult<T> => {
    release();
    return { value: ended(reason), done: false };
  };
  const done: IteratorResult<T> = { value: undefined, done: true };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (finished) return done;
      const before = refused ?? refusal();
      if (before !== null) return end(before);
      const step = await new Promise<{ r: IteratorResult<T> } | { reason: string }>((resolve, reject) => {
        interrupt = (reason) => resolve({ reason });
        it.next().then((r) => resolve({ r }), reject);
      }).finally(() => (interrupt = undefined));
      if (finished) return done;
      if ('reason' in step) return end(step.reason);
      if (step.r.done) {
        finished = true;
        stop();
        return done;
      }
      const after = refusal();
      return after === null ? step.r : end(after);
    },
    async return() {
      if (!finished) release();
      return done;
    },
    async throw(err: unknown) {
      if (!finished) release();
      throw err;
    },
  };
}
