import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../model/index.js';

/*
 * `<file>.lock`: created exclusively, holding its owner's unique id, so the service and `aitia
 * tokens` never interleave their read-modify-write of one file. A lock older than STALE_LOCK_MS
 * was left by a process that died mid-write and is taken over — atomically: it is renamed aside
 * first and removed only when the file moved is the very one judged stale (same inode and mtime),
 * so a taker that judged late never deletes the fresh lock another process just took.
 */

export const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

const sameFile = (a: Stats, b: Stats) => a.ino === b.ino && a.dev === b.dev && a.mtimeMs === b.mtimeMs;

/** Creates the lock holding `id`; false when it exists. */
function tryCreate(lock: string, id: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, id);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes the lock judged stale (`judged`, its stat then), unless it changed since: renamed aside,
 * compared, and a lock that is not the stale one is put back. True when the stale one is gone.
 */
export function takeOverStaleLock(lock: string, judged: Stats): boolean {
  const aside = `${lock}.stale.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    renameSync(lock, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true; // Someone else removed it.
    throw err;
  }
  const moved = statSync(aside);
  if (sameFile(moved, judged)) {
    rmSync(aside, { force: true });
    return true;
  }
  // A fresh lock, taken after the judgement: back where its owner expects it (unless a lock is there already).
  try {
    linkSync(aside, lock);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  rmSync(aside, { force: true });
  return false;
}

/** Removes the lock only while it is still ours (holds our id): a lock taken over is someone else's. */
function release(lock: string, id: string): void {
  try {
    if (readFileSync(lock, 'utf8') === id) rmSync(lock, { force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Runs `fn` holding `<path>.lock`; `what` names the file in the error when another process holds it too long. */
export function withFileLock<T>(path: string, what: string, fn: () => T): T {
  const lock = `${path}.lock`;
  const id = `${process.pid}:${randomBytes(12).toString('hex')}`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (!tryCreate(lock, id)) {
    const st = statOrNull(lock);
    if (st !== null && Date.now() - st.mtimeMs > STALE_LOCK_MS) {
      takeOverStaleLock(lock, st);
      continue;
    }
    if (Date.now() > deadline)
      throw new ConfigError(
        `${what} ${path}: another aitia process is changing it (${lock}); if none is, delete that lock file`,
      );
    sleepSync(25);
  }
  try {
    return fn();
  } finally {
    release(lock, id);
  }
}
