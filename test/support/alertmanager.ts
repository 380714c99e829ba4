import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * The real Prometheus Alertmanager (`go install github.com/prometheus/alertmanager/cmd/alertmanager@v0.31.1`,
 * done by .ci/run): found at $ALERTMANAGER_BIN, else `alertmanager` on PATH, else $GOBIN or
 * $(go env GOPATH)/bin. In CI (CI=true) a missing binary fails the tests that need it; elsewhere
 * they are skipped with the reason printed (as the vcsim tests are).
 */
export function findAlertmanager(): string | null {
  const candidates: string[] = [];
  if (process.env.ALERTMANAGER_BIN) candidates.push(process.env.ALERTMANAGER_BIN);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir) candidates.push(join(dir, 'alertmanager'));
  if (process.env.GOBIN) candidates.push(join(process.env.GOBIN, 'alertmanager'));
  try {
    const gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8', timeout: 10_000 }).trim();
    for (const p of gopath.split(delimiter)) if (p) candidates.push(join(p, 'bin', 'alertmanager'));
  } catch {
    // No Go on this machine: only the explicit places count.
  }
  return candidates.find((c) => existsSync(c)) ?? null;
}

/** The binary, or null after saying why the Alertmanager tests are skipped; throws in CI. */
export function alertmanagerOrSkip(): string | null {
  const bin = findAlertmanager();
  if (bin) return bin;
  const why =
    'alertmanager not found (ALERTMANAGER_BIN, PATH, $(go env GOPATH)/bin): install it with `go install github.com/prometheus/alertmanager/cmd/alertmanager@v0.31.1`';
  if (process.env.CI === 'true') throw new Error(`${why} — CI needs it (.ci/run installs it)`);
  console.warn(`skipping the Alertmanager tests: ${why}`);
  return null;
}

/** A running Alertmanager on 127.0.0.1, clustering off, with its own config and storage. */
export interface RunningAlertmanager {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Stops it (SIGTERM, then SIGKILL); its storage stays, so start() brings back its silences. */
  stop(): Promise<void>;
  /** Starts it again on the same port and storage, and waits for /-/ready. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

const CONFIG = `route:
  receiver: blackhole
  group_wait: 1s
receivers:
  - name: blackhole
`;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function waitReady(url: string, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`alertmanager exited (${proc.exitCode}) before ready: ${log()}`);
    try {
      const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`alertmanager not ready within 20 s: ${log()}`);
}

/** `options.config(dir)`: the configuration to start with (default: one blackhole receiver), given its own folder for files it names. */
export async function startAlertmanager(
  bin: string,
  options: { config?: (dir: string) => string } = {},
): Promise<RunningAlertmanager> {
  const dir = mkdtempSync(join(tmpdir(), 'aitia-am-'));
  const config = join(dir, 'alertmanager.yml');
  writeFileSync(config, options.config?.(dir) ?? CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc: ChildProcess | null = null;
  let out = '';
  const start = async () => {
    out = '';
    const p = spawn(
      bin,
      [
        `--config.file=${config}`,
        `--storage.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    p.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    proc = p;
    await waitReady(url, p, () => out);
  };
  const stop = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    p.kill('SIGTERM');
    const timer = setTimeout(() => p.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    url,
    port,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
