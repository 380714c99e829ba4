import http from 'node:http';
import https from 'node:https';
import { boundedRequest, type RequestFailure } from '../../ingest/bounded-request.js';
import type { AlertmanagerSpec } from '../integrations-file.js';

/**
 * Alertmanager's API v2, as far as silences go: list (`GET /api/v2/silences`, filtered by matcher
 * there and by creator here), create (`POST /api/v2/silences`) and expire (`DELETE
 * /api/v2/silence/{id}`). Each request is bounded (bounded-request.ts); every failure is an
 * {@link AlertmanagerError} saying whether it is worth retrying.
 */

export interface SilenceMatcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

export interface SilenceInput {
  matchers: SilenceMatcher[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
}

export interface Silence extends SilenceInput {
  id: string;
  status: { state: 'active' | 'pending' | 'expired' };
  updatedAt: string;
}

export type AlertmanagerErrorKind = 'unreachable' | 'timeout' | 'refused' | 'server' | 'bad_answer';

export class AlertmanagerError extends Error {
  /** Worth trying again later: Alertmanager away, slow or failing; not a request it refused. */
  readonly retryable: boolean;
  constructor(
    readonly kind: AlertmanagerErrorKind,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'AlertmanagerError';
    this.retryable = kind !== 'refused';
  }
}

export interface AlertmanagerClient {
  readonly url: string;
  /** Silences, optionally only those matching label matchers (`instance="web01"`) and made by `createdBy`. */
  listSilences(query?: { createdBy?: string; filter?: string[] }): Promise<Silence[]>;
  /** Creates a silence; returns its id. */
  createSilence(silence: SilenceInput): Promise<string>;
  /** Expires a silence; one already expired or gone counts as done. */
  expireSilence(id: string): Promise<void>;
  close(): void;
}

const MAX_BODY = 16 * 1024 * 1024;

function failure(what: string): (f: RequestFailure) => AlertmanagerError {
  return (f) =>
    f.kind === 'timeout'
      ? new AlertmanagerError('timeout', `${what}: no complete answer in time`)
      : f.kind === 'transport'
        ? new AlertmanagerError('unreachable', `${what}: ${(f.err as Error)?.message ?? String(f.err)}`)
        : new AlertmanagerError('bad_answer', `${what}: answer ${f.kind === 'cut' ? 'cut short' : 'too large'}`);
}

export function createAlertmanagerClient(
  config: Pick<AlertmanagerSpec, 'url' | 'basicAuth' | 'bearerToken'> & { timeoutMs?: number },
): AlertmanagerClient {
  const base = new URL(config.url.endsWith('/') ? config.url : `${config.url}/`);
  const agent = base.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const auth = config.bearerToken
    ? `Bearer ${config.bearerToken}`
    : config.basicAuth
      ? `Basic ${Buffer.from(`${config.basicAuth.username}:${config.basicAuth.password}`).toString('base64')}`
      : null;

  async function call(method: string, path: string, body: unknown): Promise<unknown> {
    const url = new URL(path, base);
    const what = `Alertmanager ${method} ${url.pathname}`;
    const text = body === undefined ? null : JSON.stringify(body);
    const answer = await boundedRequest(
      url,
      {
        method,
        agent,
        headers: {
          accept: 'application/json',
          ...(text === null ? {} : { 'content-type': 'application/json' }),
          ...(auth ? { authorization: auth } : {}),
        },
        body: text,
        timeoutMs: config.timeoutMs ?? 5_000,
        maxBodyBytes: MAX_BODY,
      },
      failure(what),
    );
    if (answer.status >= 500)
      throw new AlertmanagerError('server', `${what}: ${answer.status} ${answer.body.slice(0, 200)}`, answer.status);
    if (answer.status >= 400)
      throw new AlertmanagerError('refused', `${what}: ${answer.status} ${answer.body.slice(0, 200)}`, answer.status);
    if (answer.body.trim() === '') return null;
    try {
      return JSON.parse(answer.body);
    } catch {
      throw new AlertmanagerError('bad_answer', `${what}: not JSON`, answer.status);
    }
  }

  return {
    url: config.url,
    async listSilences(query = {}) {
      const params = new URLSearchParams();
      for (const f of query.filter ?? []) params.append('filter', f);
      const qs = params.size > 0 ? `?${params}` : '';
      const answer = await call('GET', `api/v2/silences${qs}`, undefined);
      if (!Array.isArray(answer)) throw new AlertmanagerError('bad_answer', 'Alertmanager silences: not a list');
      const all = answer as Silence[];
      return query.createdBy === undefined ? all : all.filter((s) => s.createdBy === query.createdBy);
    },
    async createSilence(silence) {
      const answer = (await call('POST', 'api/v2/silences', silence)) as { silenceID?: unknown } | null;
      if (typeof answer?.silenceID !== 'string')
        throw new AlertmanagerError('bad_answer', 'Alertmanager create silence: no silenceID');
      return answer.silenceID;
    },
    async expireSilence(id) {
      try {
        await call('DELETE', `api/v2/silence/${encodeURIComponent(id)}`, undefined);
      } catch (err) {
        // Gone already (expired and collected, or never there): there is nothing left to expire.
        if (err instanceof AlertmanagerError && err.status === 404) return;
        throw err;
      }
    },
    close() {
      agent.destroy();
    },
  };
}
