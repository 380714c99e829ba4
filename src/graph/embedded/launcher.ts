import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commandExists, resolveClasspath } from './classpath.js';
import { EmbeddedNeo4jError } from './errors.js';
import { EMBEDDED_USER, ensureEmbeddedPassword } from './password.js';
import { freePort, portAnswers } from './ports.js';

/** The flags Neo4j's own neo4j.conf passes on Java 17 (its Netty and page cache need them). */
export const NEO4J_JVM_FLAGS = [
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-opens=java.base/java.io=ALL-UNNAMED',
  '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
  '--add-opens=java.base/java.lang=ALL-UNNAMED',
  '-Dio.netty.tryReflectionSetAccessible=true',
  '-XX:+ExitOnOutOfMemoryError',
];

export interface EmbeddedNeo4jOptions {
  /** Store and logs go here (created owner-only if missing). */
  dataDir: string;
  /**
   * The password of the user `neo4j`, generated here on first start (mode 0600; its folder must be
   * 0700). Default: `neo4j.password` in `dataDir`.
   */
  passwordFile?: string;
  /** Bolt port on 127.0.0.1; a free one is picked when omitted. */
  port?: number;
  /** Seconds to wait for Bolt before giving up. */
  readyTimeoutSeconds?: number;
  pageCacheMb?: number;
  /**
   * JVM heap, e.g. `2g`: initial and max alike, as Neo4j's memory recommendation sets them (a heap
   * that starts small keeps a small young generation: a collection every second or two, and each
   * pause lands on whatever is in flight).
   */
  heap?: string;
  log?: (msg: string) => void;
}

/** A running embedded Neo4j; `stop()` shuts it down cleanly and waits for the JVM to exit. */
export interface EmbeddedNeo4j {
  uri: string;
  port: number;
  /** Bolt credentials: auth is always on. */
  user: string;
  password: string;
  passwordFile: string;
  logFile: string;
  pid: number | undefined;
  /** Settles when the JVM exits, for whatever reason (a supervisor watches it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Starts Neo4j 5.26 community embedded, Bolt on 127.0.0.1, native auth with the password in
 * `passwordFile` (generated on first start); resolves once Bolt answers.
 */
export async function startEmbeddedNeo4j(options: EmbeddedNeo4jOptions): Promise<EmbeddedNeo4j> {
  const log = options.log ?? (() => {});
  if (!commandExists('java')) {
    throw new EmbeddedNeo4jError(
      'JAVA_NOT_FOUND',
      'java not found on PATH: the embedded Neo4j needs Java 17 (install openjdk-17, or set NEO4J_URI to an existing Neo4j)',
    );
  }
  const classpath = resolveClasspath({ log });
  const port = options.port ?? (await freePort());
  if (await portAnswers(port)) {
    throw new EmbeddedNeo4jError(
      'PORT_IN_USE',
      `port in use: 127.0.0.1:${port} already accepts connections; choose another port`,
    );
  }
  const dataDir = resolve(options.dataDir);
  const passwordFile = resolve(options.passwordFile ?? join(dataDir, 'neo4j.password'));
  const password = ensureEmbeddedPassword(passwordFile);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const logFile = join(dataDir, 'neo4j-embedded.log');
  const out = createWriteStream(logFile, { flags: 'a' });
  const args = [
    ...NEO4J_JVM_FLAGS,
    ...(options.heap ? [`-Xms${options.heap}`, `-Xmx${options.heap}`] : []),
    '-cp',
    classpath,
    'dev.aitia.neo4j.EmbeddedNeo4j',
    dataDir,
    String(port),
    String(options.pageCacheMb ?? 256),
    // The path, not the password: a command line is visible to every local user.
    passwordFile,
  ];
  const child: ChildProcess = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });

  let exited: number | null | undefined;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once('exit', (code, signal) => {
      exited = code;
      res({ code, signal });
    }),
  );
  // An unexpected exit must not leave the log file open (a supervisor starts a new one).
  child.once('close', () => out.end());
  const readyLine = new Promise<void>((res) => {
    let buf = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      if (buf.includes('AITIA_NEO4J_READY')) res();
    });
  });

  const timeoutS = options.readyTimeoutSeconds ?? 120;
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), timeoutS * 1000)));
  const outcome = await Promise.race([
    readyLine.then(() => 'ready' as const),
    exit.then(() => 'exited' as const),
    timedOut,
  ]);
  clearTimeout(timer);
  // The ready line is printed after Bolt binds; a connect proves it.
  const ready = outcome === 'ready' && (await portAnswers(port, 2000));
  const stop = async () => {
    if (exited !== undefined) return;
    child.stdin?.end();
    child.kill('SIGTERM');
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exit;
    clearTimeout(killTimer);
    out.end();
  };
  if (!ready) {
    // Decide what happened before stop(), which makes every child "exited".
    const died = exited !== undefined;
    const why = died ? `exited with code ${exited}` : `not ready after ${timeoutS} s`;
    await stop();
    const msg = `embedded Neo4j ${why} (log ${logFile}):\n${tail(logFile)}`;
    if (/Address already in use|BindException/.test(msg))
      throw new EmbeddedNeo4jError('PORT_IN_USE', `port in use: 127.0.0.1:${port}\n${msg}`);
    throw new EmbeddedNeo4jError(died ? 'EXITED' : 'NOT_READY', msg);
  }
  log(
    `embedded Neo4j 5.26 ready on bolt://127.0.0.1:${port} in ${((Date.now() - started) / 1000).toFixed(1)} s (data ${dataDir})`,
  );
  return {
    uri: `bolt://127.0.0.1:${port}`,
    port,
    user: EMBEDDED_USER,
    password,
    passwordFile,
    logFile,
    pid: child.pid,
    exited: exit,
    stop,
  };
}
