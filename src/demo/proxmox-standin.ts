import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

/**
 * A local stand-in for the Proxmox VE API on 127.0.0.1: a route table of recorded responses plus
 * fault injection. Inventory, task-list and demo tests share it: load a folder of recordings, swap
 * routes between polls (`route`, `routes`), and make paths answer 401/429/500, hang, send truncated
 * JSON, cut the connection, or make a whole node stop answering as pveproxy reports it (595).
 *
 * A node's guest list (`GET /nodes/{node}/qemu[?full=1]`, `GET /nodes/{node}/lxc`) that has no route
 * of its own is assembled from the node's status/current routes, as Proxmox builds both from the
 * same `vmstatus` hash: each entry without status/current's additions (`ha`, `agent`, `spice`,
 * `clipboard`), and without `qmpstatus` unless `full=1`. Changing a guest's status/current between
 * polls therefore changes its node's list too.
 */

/** One recorded answer; `body` is JSON-encoded, `raw` is sent as is. */
export interface RecordedResponse {
  status?: number;
  /** HTTP reason phrase; pveproxy puts the error message here too. */
  statusMessage?: string;
  body?: unknown;
  raw?: string;
  delayMs?: number;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
}

export interface StandinRequest {
  method: string;
  /** Path below `/api2/json`, without the query. */
  path: string;
  query: URLSearchParams;
  body: string;
  authorization: string | undefined;
}

/** A fixed answer, or a function of the request (e.g. task lists filtered by `since`). */
export type Responder = RecordedResponse | ((req: StandinRequest) => RecordedResponse | Promise<RecordedResponse>);

/** Route keys: `GET /cluster/status`, or with a query `GET /nodes/pve1/tasks?source=all` (tried first). */
export type RouteTable = Map<string, Responder>;

export type Fault =
  /** An error answer; `retryAfter` (seconds or an HTTP date) is sent as the Retry-After header. */
  | { kind: 'status'; status: number; message?: string; retryAfter?: string }
  /** Accepts the request and never answers (until the stand-in closes). */
  | { kind: 'hang' }
  /** A complete HTTP answer whose JSON body is cut in half. */
  | { kind: 'truncate' }
  /** Sends the headers and half the body, then destroys the connection. */
  | { kind: 'cut' };

interface FaultRule {
  method: string | null;
  match: string | RegExp;
  fault: Fault;
  remaining: number;
}

export interface ProxmoxStandin {
  /** `http://127.0.0.1:<port>`: the API base, as AITIA_PROXMOX_URL would hold it. */
  readonly url: string;
  /** The token it accepts (`user@realm!tokenid=secret`). */
  readonly token: string;
  /** Every request received, in order. */
  readonly requests: StandinRequest[];
  route(method: string, path: string, responder: Responder): void;
  /** Replaces the whole table (e.g. the next poll's recordings). */
  routes(table: RouteTable): void;
  unroute(method: string, path: string): void;
  /** Injects a fault on paths equal to (string) or matching (RegExp) `match`; `times` limits it. */
  fault(match: string | RegExp, fault: Fault, options?: { method?: string; times?: number }): void;
  /** Every `/nodes/<node>/…` call answers 595 as pveproxy does when it cannot reach the node. */
  nodeDown(node: string): void;
  clearFaults(): void;
  close(): Promise<void>;
}

/**
 * Reads recordings from a folder (recursively): each `*.json` file carries `_request`
 * (`GET /api2/json/cluster/status`) and optionally `_http_status`; the other fields are the body.
 */
export function loadRecordedRoutes(dir: string): RouteTable {
  const table: RouteTable = new Map();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.json')) {
        const doc = JSON.parse(readFileSync(full, 'utf8')) as Record<string, unknown>;
        const request = String(doc._request ?? '');
        const m = /^(GET|POST|PUT|DELETE) \/api2\/json(\/\S*)$/.exec(request);
        if (!m)
          throw new Error(`${full}: _request must look like "GET /api2/json/<path>", got ${JSON.stringify(request)}`);
        const body = Object.fromEntries(Object.entries(doc).filter(([k]) => !k.startsWith('_')));
        const status = typeof doc._http_status === 'number' ? doc._http_status : 200;
        const message = typeof body.message === 'string' ? body.message.trim() : undefined;
        table.set(`${m[1]} ${m[2]}`, {
          status,
          body,
          ...(status !== 200 && message ? { statusMessage: message } : {}),
        });
      }
    }
  };
  walk(dir);
  return table;
}

/** A pveproxy-style error answer: message in the reason phrase and in `{"data": null, "message"}`. */
export function errorResponse(status: number, message: string): RecordedResponse {
  return {
    status,
    statusMessage: message.replace(/[\r\n]+/g, ' ').trim(),
    body: { data: null, message: `${message}\n` },
  };
}

/** Fields status/current adds to a guest's `vmstatus` entry (qemu-server and pve-container `vm_status`). */
const STATUS_CURRENT_ONLY = ['ha', 'agent', 'spice', 'clipboard'];

/** A node's guest list assembled from the table's status/current routes of that node (see the module doc). */
async function derivedGuestList(
  table: RouteTable,
  node: string,
  type: 'qemu' | 'lxc',
  req: StandinRequest,
): Promise<RecordedResponse> {
  const full = req.query.get('full') === '1';
  const entries: Array<Record<string, unknown>> = [];
  for (const [key, responder] of table) {
    const m = /^GET \/nodes\/([^/]+)\/(qemu|lxc)\/(\d+)\/status\/current$/.exec(key);
    if (!m || m[1] !== node || m[2] !== type) continue;
    const answer =
      typeof responder === 'function'
        ? await responder({
            ...req,
            path: `/nodes/${node}/${type}/${m[3]}/status/current`,
            query: new URLSearchParams(),
          })
        : responder;
    const data = (answer.body as { data?: unknown } | undefined)?.data;
    if ((answer.status ?? 200) !== 200 || !data || typeof data !== 'object') continue;
    const entry: Record<string, unknown> = { ...(data as Record<string, unknown>) };
    for (const k of STATUS_CURRENT_ONLY) delete entry[k];
    if (!full) delete entry.qmpstatus;
    entries.push(entry);
  }
  return { body: { data: entries } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Starts the stand-in on 127.0.0.1 and a free port. */
export async function startProxmoxStandin(
  options: { routes?: RouteTable; token?: string } = {},
): Promise<ProxmoxStandin> {
  const token = options.token ?? 'aitia@pve!inventory=5f0c5a7e-2b1d-4c3e-9f8a-1b2c3d4e5f60';
  let table: RouteTable = new Map(options.routes ?? []);
  let faults: FaultRule[] = [];
  const requests: StandinRequest[] = [];
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, answer: RecordedResponse) => {
    const text = answer.raw ?? JSON.stringify(answer.body ?? { data: null });
    res.writeHead(answer.status ?? 200, answer.statusMessage ?? '', {
      'Content-Type': 'application/json;charset=UTF-8',
      'Content-Length': Buffer.byteLength(text),
      ...answer.headers,
    });
    res.end(text);
  };

  const lookup = async (r: StandinRequest): Promise<RecordedResponse> => {
    const q = r.query.toString();
    const responder = (q ? table.get(`${r.method} ${r.path}?${q}`) : undefined) ?? table.get(`${r.method} ${r.path}`);
    if (!responder) {
      const list = r.method === 'GET' ? /^\/nodes\/([^/]+)\/(qemu|lxc)$/.exec(r.path) : null;
      if (list) return derivedGuestList(table, list[1]!, list[2] as 'qemu' | 'lxc', r);
      return errorResponse(501, `Method '${r.method} /api2/json${r.path}' not implemented`);
    }
    return typeof responder === 'function' ? responder(r) : responder;
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    const path = url.pathname.replace(/^\/api2\/json/, '') || '/';
    const r: StandinRequest = {
      method: req.method ?? 'GET',
      path,
      query: url.searchParams,
      body,
      authorization: req.headers.authorization,
    };
    requests.push(r);
    const rule = faults.find(
      (f) =>
        (f.method === null || f.method === r.method) &&
        (typeof f.match === 'string' ? f.match === path : f.match.test(path)) &&
        f.remaining > 0,
    );
    if (rule) rule.remaining--;
    const fault = rule?.fault;
    if (fault?.kind === 'hang') return; // the socket stays open until close()
    if (fault?.kind === 'status')
      return send(res, {
        ...errorResponse(fault.status, fault.message ?? `injected HTTP ${fault.status}`),
        ...(fault.retryAfter !== undefined ? { headers: { 'Retry-After': fault.retryAfter } } : {}),
      });
    if (!url.pathname.startsWith('/api2/json/')) return send(res, errorResponse(404, 'not an API path'));
    if (!r.authorization) return send(res, { status: 401, statusMessage: 'No ticket', body: { data: null } });
    if (r.authorization !== `PVEAPIToken=${token}`)
      return send(res, { status: 401, statusMessage: 'invalid token value!', body: { data: null } });
    const answer = await lookup(r);
    if (answer.delayMs) await new Promise((d) => setTimeout(d, answer.delayMs));
    const text = answer.raw ?? JSON.stringify(answer.body ?? { data: null });
    if (fault?.kind === 'truncate') return send(res, { ...answer, raw: text.slice(0, Math.floor(text.length / 2)) });
    if (fault?.kind === 'cut') {
      res.writeHead(answer.status ?? 200, {
        'Content-Type': 'application/json;charset=UTF-8',
        'Content-Length': Buffer.byteLength(text),
      });
      res.write(text.slice(0, Math.floor(text.length / 2)));
      setTimeout(() => res.socket?.destroy(), 10);
      return;
    }
    send(res, answer);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    route: (method, path, responder) => void table.set(`${method} ${path}`, responder),
    routes: (next) => void (table = new Map(next)),
    unroute: (method, path) => void table.delete(`${method} ${path}`),
    fault: (match, fault, opts = {}) =>
      void faults.push({
        method: opts.method ?? null,
        match,
        fault,
        remaining: opts.times ?? Number.POSITIVE_INFINITY,
      }),
    nodeDown: (node) =>
      void faults.push({
        method: null,
        match: new RegExp(`^/nodes/${node}(/|$)`),
        fault: {
          kind: 'status',
          status: 595,
          message: 'Errors during connection establishment, proxy handler failed.',
        },
        remaining: Number.POSITIVE_INFINITY,
      }),
    clearFaults: () => void (faults = []),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
