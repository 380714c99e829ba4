/** A GraphQL subscription over SSE (graphql-yoga's distinct-connections mode), as an agent would hold it. */
export interface SseSubscription {
  /** The next `event: next` payload (`{ data, errors }`), or a rejection after `timeoutMs`. */
  next(timeoutMs?: number): Promise<any>;
  /** Every `event: next` payload received so far, in order (also those `next` already returned). */
  received: any[];
  /** Resolves when the server ends the stream (or close() aborts it), with the last SSE event name seen. */
  ended: Promise<{ lastEvent: string | null }>;
  close(): void;
}

/**
 * POSTs a subscription with `Accept: text/event-stream` and parses the stream: events are
 * separated by a blank line; `event: next` carries the result in `data:` lines; comments (`:`)
 * are keep-alives. Resolves once the response headers arrived (the subscription is registered).
 */
export async function subscribeSse(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<SseSubscription> {
  const abort = new AbortController();
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  if (!res.ok || !res.body) throw new Error(`subscription refused: HTTP ${res.status} ${await res.text()}`);
  const queue: any[] = [];
  const received: any[] = [];
  const waiters: Array<(v: any) => void> = [];
  const deliver = (payload: any) => {
    received.push(payload);
    return waiters.length > 0 ? waiters.shift()!(payload) : queue.push(payload);
  };
  let lastEvent: string | null = null;
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = block.split('\n');
          const event = lines
            .find((l) => l.startsWith('event:'))
            ?.slice(6)
            .trim();
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (event) lastEvent = event;
          if (event === 'next' && data) deliver(JSON.parse(data));
        }
      }
    } catch {
      // aborted by close()
    }
    return { lastEvent };
  })();
  return {
    next(timeoutMs = 10_000) {
      if (queue.length > 0) return Promise.resolve(queue.shift());
      return new Promise((resolve, reject) => {
        const waiter = (v: any) => {
          clearTimeout(timer);
          resolve(v);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no subscription event within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    received,
    ended,
    close: () => abort.abort(),
  };
}
