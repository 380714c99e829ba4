import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { boundedRequest } from '../bounded-request.js';
import { soapFault, VsphereApiError, vsphereTransportError } from './client-error.js';
import { child, escapeXml, parseXml, XmlError, type XmlElement } from './xml.js';

export { VsphereApiError, type VsphereErrorKind } from './client-error.js';

/** A managed object reference as the client passes it around. */
export interface Ref {
  type: string;
  value: string;
}

/** The parts of the ServiceContent a poll uses. */
export interface ServiceContent {
  rootFolder: Ref;
  propertyCollector: Ref;
  viewManager: Ref;
  sessionManager: Ref;
  eventManager: Ref;
  about: { fullName: string; version: string; apiVersion: string; instanceUuid: string | null };
}

/** The vSphere `vim25` SOAP API as the poller uses it: one method call in, its response element out. */
export interface VsphereClient {
  /** `https://vc01.lab:443/sdk` as configured. */
  readonly url: string;
  /** The ServiceContent, read once (no session needed). */
  serviceContent(): Promise<ServiceContent>;
  /**
   * Calls `method` on `self` with `body` (already-serialised parameters, in schema order); logs in
   * first when there is no session, and once more when the server answers NotAuthenticated.
   */
  call(method: string, self: Ref, body?: string): Promise<XmlElement>;
  /** SOAP requests sent since the client was made (logins included). */
  requestCount(): number;
  /** Ends the session (best effort) and lets go of kept-alive sockets. */
  close(): Promise<void>;
}

export interface VsphereClientOptions {
  /** `https://vc01.lab` or `https://vc01.lab/sdk` (`http://` only for a simulator). */
  url: string;
  username: string;
  /** Never logged. */
  password: string;
  caFile?: string | undefined;
  /** Skip TLS verification: an explicit opt-in. */
  insecure?: boolean;
  /** Per call, from request to the last body byte. Default 30 s. */
  timeoutMs?: number;
  /** Answers larger than this are refused. Default 64 MiB. */
  maxBodyBytes?: number;
  /** Called after every answered call with the method name (tests, request accounting). */
  onAnswer?: (method: string) => void;
}

/** `<_this type="T">v</_this>` and friends: a reference parameter. */
export function refXml(name: string, ref: Ref): string {
  return `<${name} type="${escapeXml(ref.type)}">${escapeXml(ref.value)}</${name}>`;
}

/** A text parameter. */
export function textXml(name: string, value: string | number | boolean): string {
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

const ENVELOPE_OPEN =
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>';

function refOf(el: XmlElement | null, what: string): Ref {
  if (!el || el.attrs.type === undefined)
    throw new VsphereApiError({ kind: 'malformed', method: 'RetrieveServiceContent', detail: `no ${what}` });
  return { type: el.attrs.type, value: el.text.trim() };
}

/** Builds a client; TLS is verified unless `insecure` is set. A CA file that cannot be read fails here. */
export function createVsphereClient(options: VsphereClientOptions): VsphereClient {
  const url = new URL(/\/sdk\/?$/.test(options.url) ? options.url : options.url.replace(/\/+$/, '') + '/sdk');
  const isHttps = url.protocol === 'https:';
  let ca: Buffer | undefined;
  if (options.caFile) {
    try {
      ca = readFileSync(options.caFile);
    } catch (err) {
      throw new Error(`cannot read the vCenter CA file ${options.caFile}: ${(err as Error).message}`, { cause: err });
    }
  }
  const agent = isHttps
    ? new https.Agent({ keepAlive: true, maxSockets: 4, ca, rejectUnauthorized: !options.insecure })
    : new http.Agent({ keepAlive: true, maxSockets: 4 });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBody = options.maxBodyBytes ?? 64 * 1024 * 1024;
  let cookie: string | null = null;
  let content: ServiceContent | null = null;
  let sent = 0;

  async function post(method: string, xml: string): Promise<{ status: number; body: string; cookie: string | null }> {
    const headers = {
      'Content-Type': 'text/xml; charset=utf-8',
      SOAPAction: 'urn:vim25/7.0',
      'Content-Length': Buffer.byteLength(xml),
      ...(cookie ? { Cookie: cookie } : {}),
    };
    const answer = await boundedRequest(
      url,
      { method: 'POST', agent, headers, body: xml, timeoutMs, maxBodyBytes: maxBody },
      (f) => {
        if (f.kind === 'transport') return vsphereTransportError(method, f.err);
        const [kind, detail] =
          f.kind === 'timeout'
            ? (['timeout', `no complete answer within ${timeoutMs} ms`] as const)
            : f.kind === 'too_large'
              ? (['malformed', `answer larger than ${maxBody} bytes`] as const)
              : (['network', 'connection closed mid-answer'] as const);
        return new VsphereApiError({ kind, method, detail });
      },
    );
    const set = answer.headers['set-cookie']?.find((c) => c.startsWith('vmware_soap_session='));
    return { status: answer.status, body: answer.body, cookie: set ? set.split(';', 1)[0]! : null };
  }

  /** One request: the response element, or a typed error (HTTP status, SOAP fault, unreadable XML). */
  async function send(method: string, self: Ref, body: string): Promise<{ el: XmlElement; cookie: string | null }> {
    sent++;
    const answer = await post(
      method,
      `${ENVELOPE_OPEN}<${method} xmlns="urn:vim25">${refXml('_this', self)}${body}</${method}></soapenv:Body></soapenv:Envelope>`,
    );
    let soapBody: XmlElement | null = null;
    try {
      soapBody = child(parseXml(answer.body), 'Body');
    } catch (err) {
      if (answer.status === 401)
        throw new VsphereApiError({ kind: 'auth', method, status: 401, detail: 'not authorised' });
      if (!(err instanceof XmlError) || (answer.status >= 200 && answer.status < 300))
        throw new VsphereApiError({
          kind: 'malformed',
          method,
          status: answer.status,
          detail: String(err),
          cause: err,
        });
    }
    const fault = soapFault(soapBody, method, answer.status);
    if (fault) throw fault;
    if (answer.status < 200 || answer.status >= 300)
      throw new VsphereApiError({
        kind: answer.status === 401 ? 'auth' : 'http',
        method,
        status: answer.status,
        detail: answer.body.slice(0, 200) || 'no body',
      });
    const el = soapBody ? child(soapBody, `${method}Response`) : null;
    if (!el)
      throw new VsphereApiError({ kind: 'malformed', method, status: answer.status, detail: `no ${method}Response` });
    options.onAnswer?.(method);
    return { el, cookie: answer.cookie };
  }

  async function serviceContent(): Promise<ServiceContent> {
    if (content) return content;
    const { el } = await send('RetrieveServiceContent', { type: 'ServiceInstance', value: 'ServiceInstance' }, '');
    const rv = child(el, 'returnval');
    const about = rv ? child(rv, 'about') : null;
    const text = (name: string) => (about ? child(about, name)?.text.trim() : undefined) ?? '';
    content = {
      rootFolder: refOf(rv && child(rv, 'rootFolder'), 'rootFolder'),
      propertyCollector: refOf(rv && child(rv, 'propertyCollector'), 'propertyCollector'),
      viewManager: refOf(rv && child(rv, 'viewManager'), 'viewManager'),
      sessionManager: refOf(rv && child(rv, 'sessionManager'), 'sessionManager'),
      eventManager: refOf(rv && child(rv, 'eventManager'), 'eventManager'),
      about: {
        fullName: text('fullName'),
        version: text('version'),
        apiVersion: text('apiVersion'),
        instanceUuid: text('instanceUuid') || null,
      },
    };
    return content;
  }

  async function login(): Promise<void> {
    const sc = await serviceContent();
    cookie = null;
    const res = await send(
      'Login',
      sc.sessionManager,
      textXml('userName', options.username) + textXml('password', options.password),
    );
    if (!res.cookie)
      throw new VsphereApiError({ kind: 'auth', method: 'Login', detail: 'the server set no session cookie' });
    cookie = res.cookie;
  }

  async function call(method: string, self: Ref, body = ''): Promise<XmlElement> {
    if (!cookie) await login();
    try {
      return (await send(method, self, body)).el;
    } catch (err) {
      // The session expired or the server restarted: log in once more, then the error stands.
      if (!(err instanceof VsphereApiError) || err.faultType !== 'NotAuthenticated') throw err;
      await login();
      return (await send(method, self, body)).el;
    }
  }

  return {
    url: url.href,
    serviceContent,
    call,
    requestCount: () => sent,
    async close() {
      if (cookie && content) await send('Logout', content.sessionManager, '').catch(() => undefined);
      cookie = null;
      agent.destroy();
    },
  };
}
