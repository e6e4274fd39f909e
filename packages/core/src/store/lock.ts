/**
 * The one-writer lock of an index kept in files: a lock file beside the index, created atomically
 * (`O_CREAT | O_EXCL`), that names its owner (pid, host, start time). A second writer waits for it
 * (bounded) or is refused with one line naming the owner; a lock whose owner died (its pid is gone
 * on this host) is taken over. Also how leftovers of killed writers are told from live ones
 * ({@link pidIsDead}).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { AbortError, OutputError } from '../contracts/errors.js';
import type { IndexStore, StoreLock, StoreLockOptions } from '../contracts/store.js';

/** What a lock file says about its owner. */
export interface LockOwner {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  started: string;
  /** Unique per lock taken, so a release never removes another owner's lock. */
  token: string;
  /** Linux: the owner process's start time (clock ticks after boot), so a reused pid is not taken for the owner. */
  procStart?: string;
}

/** How long a writer waits for another by default. */
export const DEFAULT_LOCK_TIMEOUT_MS = 60_000;
/** Age after which an unreadable lock file (its writer died between creating and filling it) is stale. */
const UNREADABLE_STALE_MS = 10_000;

const HOST = hostname();

/**
 * Locks of this process, taken or being taken: token → lock file path. A lock file naming this
 * pid with a token not here was left by a killed process that had this pid; those here are
 * removed on exit, however the process exits.
 */
const ours = new Map<string, string>();
let exitHook = false;

function removeOursOnExit(): void {
  for (const [token, path] of ours) {
    try {
      if ((JSON.parse(readFileSync(path, 'utf8')) as LockOwner).token === token) unlinkSync(path);
    } catch {
      // Gone already, or not ours: nothing to clean.
    }
  }
}

/** The start time of process `pid` in clock ticks after boot (Linux `/proc`), or `undefined`. */
function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, starttime field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const OWN_START = procStart(process.pid);

/**
 * Whether process `pid` of this host is certainly gone: `kill(pid, 0)` says there is no such
 * process, or (Linux) the process with that pid started at another time than `started` says.
 * This process counts as alive.
 */
export function pidIsDead(pid: number, started?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  if (started !== undefined) {
    const now = procStart(pid);
    if (now !== undefined && now !== started) return true;
  }
  return false;
}

/** Whether the owner of a lock is certainly gone (only decidable on its own host). */
function ownerIsDead(owner: LockOwner): boolean {
  if (owner.host !== HOST) return false;
  if (owner.pid === process.pid) {
    // This process: alive only if it holds that lock (else a killed process had this pid before).
    return !ours.has(owner.token) || owner.procStart !== OWN_START;
  }
  return pidIsDead(owner.pid, owner.procStart);
}

/** The owner a lock file names, or `undefined` when it is gone or unreadable. */
async function readOwner(path: string): Promise<{ owner?: LockOwner; text?: string; gone?: boolean }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { gone: true };
    throw error;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    if (typeof owner.pid === 'number' && typeof owner.host === 'string' && typeof owner.token === 'string')
      return { owner, text };
  } catch {
    // A lock file being written, or one whose writer died before filling it.
  }
  return { text };
}

/** Create `path` exclusively with `text`; false when it exists. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  return true;
}

/**
 * Remove the stale lock at `path` if it still holds `text`. One breaker at a time (a `.break` file,
 * itself stale after a few seconds), so two writers that found the same dead owner cannot remove
 * a lock the first of them took meanwhile.
 */
async function breakStale(path: string, text: string): Promise<void> {
  const breaker = `${path}.break`;
  if (!(await createExclusive(breaker, String(process.pid)))) {
    const age = await stat(breaker).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > UNREADABLE_STALE_MS) await unlink(breaker).catch(() => {});
    return;
  }
  try {
    const now = await readOwner(path);
    if (now.text === text) await unlink(path).catch(() => {});
  } finally {
    await unlink(breaker).catch(() => {});
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** When a lock was taken, for messages: the local time, with the date when it is not today. */
function when(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'an unknown time';
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString('en-GB') : date.toISOString().replace('T', ' ').slice(0, 19);
}

/** The owner, for messages: `pid 123, since 14:02:07`, with the host when it is another. */
export function describeOwner(owner: LockOwner): string {
  return `pid ${owner.pid}${owner.host !== HOST ? ` on ${owner.host}` : ''}, since ${when(owner.started)}`;
}

/** What {@link acquireLockFile} needs besides the lock file's path. */
export interface AcquireLockOptions extends StoreLockOptions {
  /** What is locked, for messages (e.g. the index directory as the user named it). */
  what: string;
}

/** What one attempt of {@link pollWriterLock} found. */
export type LockAttempt<Holder> =
  /** The lock is taken. */
  | { taken: true }
  /** Try again at once (the holder went away, or a dead holder's lock was broken). */
  | { retry: true }
  /** Held by `holder`; `who` describes it for `onWait` (left out: not known yet). */
  | { holder: Holder; who?: string };

/**
 * The wait for a writer lock, shared by the stores: `attempt()` until it takes the lock, waiting
 * 40–120 ms between attempts while it is held; `options.onWait` is told once whom it waits for, an
 * aborted `options.signal` stops the wait with `AbortError`, and once `timeoutMs` has passed the
 * error `refuse(holder)` makes is thrown.
 */
export async function pollWriterLock<Holder>(
  options: Pick<AcquireLockOptions, 'what' | 'signal' | 'onWait'>,
  timeoutMs: number,
  attempt: () => Promise<LockAttempt<Holder>>,
  refuse: (holder: Holder) => Error,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let told = false;
  for (;;) {
    if (options.signal?.aborted)
      throw new AbortError(`Stopped waiting for the writer lock of ${options.what}.`);
    const found = await attempt();
    if ('taken' in found) return;
    if ('retry' in found) continue;
    if (Date.now() >= deadline) throw refuse(found.holder);
    if (!told && found.who !== undefined) {
      told = true;
      options.onWait?.(found.who);
    }
    await sleep(40 + Math.random() * 80);
  }
}

/** The loop of {@link acquireLockFile}: returns once `path` was created holding `text`. */
async function take(
  path: string,
  text: string,
  timeoutMs: number,
  options: AcquireLockOptions,
): Promise<void> {
  await pollWriterLock<LockOwner | undefined>(
    options,
    timeoutMs,
    async () => {
      if (await createExclusive(path, text)) return { taken: true };
      const found = await readOwner(path);
      if (found.gone) return { retry: true };
      if (found.owner === undefined) {
        const age = await stat(path).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > UNREADABLE_STALE_MS && found.text !== undefined) {
          await breakStale(path, found.text);
          return { retry: true };
        }
        return { holder: undefined };
      }
      if (ownerIsDead(found.owner)) {
        await breakStale(path, found.text as string);
        return { retry: true };
      }
      return { holder: found.owner, who: describeOwner(found.owner) };
    },
    (owner) => {
      const who = owner ? ` (${describeOwner(owner)})` : '';
      const waited = timeoutMs > 0 ? `; waited ${Math.round(timeoutMs / 1000)} s` : '';
      return new OutputError(
        options.what,
        `${options.what} is being written by another grag${who}${waited}. Run this again once it has finished; if no grag is running, delete ${path}.`,
      );
    },
  );
}

/**
 * Take the lock file at `path`: create it exclusively with this process as owner; while another
 * live writer holds it, wait (polling) up to `timeoutMs`, then throw `OutputError` in one line
 * naming the owner and what to do; a lock whose owner is dead is removed and taken.
 */
export async function acquireLockFile(path: string, options: AcquireLockOptions): Promise<StoreLock> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const owner: LockOwner = {
    pid: process.pid,
    host: HOST,
    started: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
    ...(OWN_START !== undefined ? { procStart: OWN_START } : {}),
  };
  const text = `${JSON.stringify(owner)}\n`;
  ours.set(owner.token, path);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', removeOursOnExit);
  }
  try {
    await take(path, text, timeoutMs, options);
  } catch (error) {
    ours.delete(owner.token);
    throw error;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      const now = await readOwner(path).catch(() => ({}) as { owner?: LockOwner });
      if (now.owner?.token === owner.token) await unlink(path).catch(() => {});
      ours.delete(owner.token);
    },
  };
}

/**
 * Run `fn` holding `store`'s writer lock ({@link IndexStore.lock}), released however `fn` ends; a
 * store without a lock runs `fn` as it is. For a read-modify-write of an index (load, update,
 * save): saves through the same store inside `fn` do not wait for the lock.
 *
 * @example
 * ```ts
 * const store = directoryStore('./idx');
 * await withStoreLock(store, async () => {
 *   const index = await bm25Rag.load(store, ctx);
 *   const { index: next } = await bm25Rag.update!(index, { add: docs }, ctx);
 *   await bm25Rag.save(next, store);
 * });
 * ```
 */
export async function withStoreLock<T>(
  store: IndexStore,
  fn: () => Promise<T>,
  options?: StoreLockOptions,
): Promise<T> {
  const lock = await store.lock?.(options);
  try {
    return await fn();
  } finally {
    await lock?.release();
  }
}

/**
 * The `lock()` of a store whose callers in one process take turns: each call waits until the lock
 * the previous call took is released, then takes the store's own lock with `acquire` (a lock file,
 * a database advisory lock). `held` releases it once, calling `onRelease` first, and lets the next
 * caller in; `lock` is what `acquire` gave.
 */
export function lockInTurn() {
  /** Settles when the last lock taken through this function is released. */
  let turn: Promise<void> = Promise.resolve();
  return async <L extends StoreLock>(
    acquire: () => Promise<L>,
    onRelease?: (lock: L) => void,
  ): Promise<{ held: StoreLock; lock: L }> => {
    const previous = turn;
    let done!: () => void;
    turn = new Promise<void>((resolve) => {
      done = resolve;
    });
    await previous;
    let lock: L;
    try {
      lock = await acquire();
    } catch (error) {
      done();
      throw error;
    }
    let released = false;
    const held: StoreLock = {
      async release() {
        if (released) return;
        released = true;
        onRelease?.(lock);
        try {
          await lock.release();
        } finally {
          done();
        }
      },
    };
    return { held, lock };
  };
}
