import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createVsphereClient, refXml, textXml, type Ref, type VsphereClient } from '../../src/ingest/vcenter/client.js';
import { child } from '../../src/ingest/vcenter/xml.js';

/**
 * govmomi's vCenter simulator (`go install github.com/vmware/govmomi/vcsim@v0.46.3`, done by
 * .ci/run): found at $VCSIM_BIN, else `vcsim` on PATH, else $GOBIN or $(go env GOPATH)/bin.
 * In CI (CI=true) a missing binary fails the tests that need it; elsewhere they are skipped with
 * the reason printed.
 */
export function findVcsim(): string | null {
  const candidates: string[] = [];
  if (process.env.VCSIM_BIN) candidates.push(process.env.VCSIM_BIN);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir) candidates.push(join(dir, 'vcsim'));
  if (process.env.GOBIN) candidates.push(join(process.env.GOBIN, 'vcsim'));
  try {
    const gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8', timeout: 10_000 }).trim();
    for (const p of gopath.split(delimiter)) if (p) candidates.push(join(p, 'bin', 'vcsim'));
  } catch {
    // No Go on this machine: only the explicit places count.
  }
  return candidates.find((c) => existsSync(c)) ?? null;
}

/** The binary, or null after saying why the vcsim tests are skipped; throws in CI. */
export function vcsimOrSkip(): string | null {
  const bin = findVcsim();
  if (bin) return bin;
  const why =
    'vcsim not found (VCSIM_BIN, PATH, $(go env GOPATH)/bin): install it with `go install github.com/vmware/govmomi/vcsim@v0.46.3`';
  if (process.env.CI === 'true') throw new Error(`${why} — CI needs it (.ci/run installs it)`);
  console.warn(`skipping the vcsim tests: ${why}`);
  return null;
}

/** A running simulator on 127.0.0.1 (a free port), plain HTTP unless `tls`. */
export interface Vcsim {
  /** `http://127.0.0.1:<port>/sdk`, without credentials. */
  url: string;
  process: ChildProcess;
  /** A client logged in as `user` (vcsim accepts any name; events carry it as userName). */
  client(user?: string, extra?: { insecure?: boolean; onAnswer?: (method: string) => void }): VsphereClient;
  kill(): void;
}

export async function startVcsim(bin: string, options: { tls?: boolean; args?: string[] } = {}): Promise<Vcsim> {
  const proc = spawn(bin, ['-l', '127.0.0.1:0', `-tls=${options.tls === true}`, ...(options.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`vcsim printed no URL within 20 s: ${out}`)), 20_000);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /GOVC_URL=(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const u = new URL(m[1]!);
        resolve(`${u.protocol}//${u.host}${u.pathname}`);
      }
    });
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('exit', (code) => reject(new Error(`vcsim exited (${code}) before it listened: ${out}`)));
  });
  const clients: VsphereClient[] = [];
  return {
    url,
    process: proc,
    client(user = 'aitia-reader', extra = {}) {
      const c = createVsphereClient({ url, username: user, password: 'pass', timeoutMs: 5_000, ...extra });
      clients.push(c);
      return c;
    },
    kill() {
      for (const c of clients) void c.close();
      proc.kill('SIGKILL');
    },
  };
}

/** The VMs by name, from a simple RetrievePropertiesEx of the ContainerView (for tests to pick one). */
export async function vmRefs(client: VsphereClient): Promise<Map<string, Ref>> {
  const sc = await client.serviceContent();
  const view = child(
    await client.call(
      'CreateContainerView',
      sc.viewManager,
      refXml('container', sc.rootFolder) + textXml('type', 'VirtualMachine') + textXml('recursive', true),
    ),
    'returnval',
  )!;
  const spec =
    `<specSet><propSet><type>VirtualMachine</type><pathSet>name</pathSet></propSet><objectSet>` +
    `${refXml('obj', { type: 'ContainerView', value: view.text })}<skip>true</skip><selectSet xsi:type="TraversalSpec">` +
    '<name>v</name><type>ContainerView</type><path>view</path><skip>false</skip></selectSet></objectSet></specSet><options/>';
  const result = child(await client.call('RetrievePropertiesEx', sc.propertyCollector, spec), 'returnval')!;
  const out = new Map<string, Ref>();
  for (const o of result.children.filter((c) => c.name === 'objects')) {
    const obj = child(o, 'obj')!;
    const name = child(child(o, 'propSet')!, 'val')!.text;
    out.set(name, { type: obj.attrs.type!, value: obj.text });
  }
  return out;
}

/** Runs a `…_Task` method and waits for the task to succeed (polling `info.state`). */
export async function runTask(client: VsphereClient, method: string, self: Ref, body = ''): Promise<void> {
  const task = child(await client.call(method, self, body), 'returnval')!;
  const sc = await client.serviceContent();
  const spec =
    `<specSet><propSet><type>Task</type><pathSet>info.state</pathSet></propSet><objectSet>` +
    `${refXml('obj', { type: 'Task', value: task.text })}</objectSet></specSet><options/>`;
  for (let i = 0; i < 100; i++) {
    const result = child(await client.call('RetrievePropertiesEx', sc.propertyCollector, spec), 'returnval');
    const state = result ? child(child(child(result, 'objects')!, 'propSet')!, 'val')?.text : undefined;
    if (state === 'success') return;
    if (state === 'error') throw new Error(`${method} failed`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${method} did not finish within 5 s`);
}
