// The console's only way to the service: GraphQL over POST /graphql, and subscriptions over SSE
// (GraphQL over `accept: text/event-stream` through fetch, so the Authorization header is sent —
// EventSource cannot send it). An UNAUTHENTICATED answer ends the session.
import { foldState } from './resource-fields';
import { currentToken, endSession } from './session';

export class GqlError extends Error {
  code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'GqlError';
    this.code = code;
  }
}

interface GqlAnswer<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

function headers(extra: Record<string, string>): Record<string, string> {
  const token = currentToken();
  return { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
}

function failure(answer: GqlAnswer<unknown>, status: number): GqlError | null {
  const first = answer.errors?.[0];
  if (!first) return status >= 400 ? new GqlError(`HTTP ${status}`) : null;
  const err = new GqlError(first.message, first.extensions?.code);
  if (err.code === 'UNAUTHENTICATED') endSession(`Signed out: ${first.message}`);
  return err;
}

/** Runs one query or mutation; throws GqlError with the first error's message and code. */
export async function gql<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: headers({ accept: 'application/graphql-response+json, application/json' }),
    body: JSON.stringify({ query, variables: variables ?? {} }),
  });
  let answer: GqlAnswer<T>;
  try {
    answer = (await res.json()) as GqlAnswer<T>;
  } catch {
    throw new GqlError(`HTTP ${res.status}: not a GraphQL answer`);
  }
  const err = failure(answer, res.status);
  if (err) throw err;
  if (answer.data == null) throw new GqlError('empty answer');
  foldState(answer.data);
  return answer.data;
}

/** The `sequence` a subscription payload carries (its one root field's), if any. */
function sequenceOf(data: unknown): number | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const root = Object.values(data as Record<string, unknown>)[0];
  const seq = root && typeof root === 'object' ? (root as { sequence?: unknown }).sequence : undefined;
  return typeof seq === 'number' ? seq : undefined;
}

/** Splits an SSE stream into events, calling onEvent with each event's name and data. */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (event: string, data: string) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(event, data.join('\n'));
    }
  }
}

/**
 * Subscribes over SSE. Reconnects with backoff (1 s doubling to 30 s) and resumes with `since` set
 * to the last `sequence` received; stops for good on UNAUTHENTICATED or when unsubscribed.
 */
export function subscribe<T>(
  query: string,
  variables: Record<string, unknown>,
  onData: (data: T) => void,
  onError?: (e: Error) => void,
  /** Called each time the stream is (re)connected. */
  onOpen?: () => void,
): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let since: number | undefined;
  let delay = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = async (): Promise<void> => {
    controller = new AbortController();
    const vars = since === undefined ? variables : { ...variables, since };
    let fatal = false;
    try {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: headers({ accept: 'text/event-stream' }),
        body: JSON.stringify({ query, variables: vars }),
        signal: controller.signal,
      });
      if (!res.ok || !res.body) {
        const answer = (await res.json().catch(() => ({}))) as GqlAnswer<T>;
        throw failure(answer, res.status) ?? new GqlError(`HTTP ${res.status}`);
      }
      onOpen?.();
      await readEvents(res.body, (event, raw) => {
        if (event !== 'next' && event !== 'message') return;
        const answer = JSON.parse(raw) as GqlAnswer<T>;
        const err = failure(answer, 200);
        if (err) throw err;
        if (answer.data == null) return;
        delay = 1000;
        foldState(answer.data);
        since = sequenceOf(answer.data) ?? since;
        onData(answer.data);
      });
    } catch (e) {
      if (stopped) return;
      const err = e instanceof Error ? e : new Error(String(e));
      fatal = err instanceof GqlError && err.code === 'UNAUTHENTICATED';
      onError?.(err);
    }
    if (stopped || fatal) return;
    timer = setTimeout(() => void connect(), delay);
    delay = Math.min(delay * 2, 30_000);
  };
  void connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    controller?.abort();
  };
}
