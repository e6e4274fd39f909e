/**
 * The writer lock of an index in PostgreSQL: a session-level advisory lock on a key derived from
 * the index's schema, held on a connection of its own from before a load until after the new
 * version is committed. PostgreSQL releases it when that connection ends, however its process
 * ends (SIGKILL included). A second writer polls for it (bounded) and is refused in one line
 * naming the holder, as a directory index's writer is.
 *
 * A server that runs every connection in one session (PGlite, in-process or over
 * `pglite-socket`) grants an advisory lock again to a session that holds it: there, a lock held by
 * the session counts as another writer's, the holder is named by a session setting, and a holder
 * whose process is gone (on this host) is released by the next writer.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { OutputError, type StoreLock, type StoreLockOptions } from '@grag/core';
import { type LockOwner, pidIsDead, pollWriterLock } from '@grag/core/store';
import type { PgDatabase, PgQueryable } from './db.js';

/** How long a writer waits for another by default (as a directory index's writer). */
export const DEFAULT_LOCK_TIMEOUT_MS = 60_000;

const HOST = hostname();
/** Longest `application_name` PostgreSQL keeps (NAMEDATALEN - 1 bytes). */
const APPLICATION_NAME_MAX = 63;

/** The advisory lock key of the writer lock of `schema`, and the two halves `pg_locks` shows. */
export interface WriterLockKey {
  /** The 64-bit key, as a decimal string (a `bigint` parameter). */
  key: string;
  classid: number;
  objid: number;
  /** The session setting that names the holder on a server with one shared session. */
  setting: string;
}

/**
 * The writer lock key of `schema`: the first 8 bytes of SHA-256 of `grag-writer:<schema>`, as a
 * signed 64-bit integer. Advisory locks are per database, so the same schema in two databases has
 * two locks. Not the key of the commit's transaction lock (`lockSql`): the holder's commit takes
 * that one on another connection.
 */
export function writerLockKey(schema: string): WriterLockKey {
  const digest = createHash('sha256').update(`grag-writer:${schema}`).digest();
  const unsigned = digest.readBigUInt64BE(0);
  return {
    key: BigInt.asIntN(64, unsigned).toString(),
    classid: Number(unsigned >> 32n),
    objid: Number(unsigned & 0xffffffffn),
    setting: `grag.writer_${digest.subarray(0, 8).toString('hex')}`,
  };
}

/** Tokens of the locks this process holds (a shared session's holder setting naming this pid is stale unless listed). */
const held = new Set<string>();

/** The owner of this process, for a lock taken now. */
function newOwner(): LockOwner {
  return {
    pid: process.pid,
    host: HOST,
    started: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
}

/** `application_name` of a lock connection: `grag <pid> <epoch seconds> <host>`, cut to 63 bytes. */
export function applicationName(owner: LockOwner): string {
  const name = `grag ${owner.pid} ${Math.floor(Date.parse(owner.started) / 1000)} ${owner.host}`;
  return Buffer.from(name)
    .subarray(0, APPLICATION_NAME_MAX)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** The owner an `application_name` of {@link applicationName} names, or `undefined`. */
function ownerOfApplicationName(name: string | null | undefined): LockOwner | undefined {
  const match = /^grag (\d+) (\d+) (.*)$/.exec(name ?? '');
  if (!match) return undefined;
  const host = match[3]!;
  return {
    pid: Number(match[1]),
    // A host cut at 63 bytes that begins this host's name is this host.
    host: host.length > 0 && HOST.startsWith(host) ? HOST : host,
    started: new Date(Number(match[2]) * 1000).toISOString(),
    token: '',
  };
}

/** When a lock was taken, for messages: the local time, with the date when it is not today. */
function when(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'an unknown time';
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString('en-GB') : date.toISOString().replace('T', ' ').slice(0, 19);
}

/** The holder, for messages: `pid 123, since 14:02:07`, with the host when it is another. */
function describe(owner: LockOwner): string {
  return `pid ${owner.pid}${owner.host !== HOST ? ` on ${owner.host}` : ''}, since ${when(owner.started)}`;
}

/** Who holds the lock, as the database says. */
interface Holder {
  /** The holder's server process (backend) id. */
  backend: number;
  /** The lock is held by the session asking (a server with one shared session). */
  mine: boolean;
  /** What it says about itself: its `application_name`, or the shared session's setting. */
  owner?: LockOwner;
  /** The shared session's setting, as read (to clear it only if unchanged). */
  setting?: string;
}

/*
 * Every statement on the lock's connection is sent with the simple query protocol (one `Query`
 * message, no parameters), its values written into the SQL by the functions below. A server that
 * serves several connections from one session (`pglite-socket`) interleaves concurrent
 * connections' extended-protocol messages one by one outside a transaction, so a statement's
 * parameters (`Bind`) could be bound to another connection's statement (`Parse`); one `Query`
 * message runs whole. Only values of the forms below are written in (integers, our own setting
 * names, and text as hex), each checked first.
 */

/** `n`, an integer in `min..max`, as SQL. */
function sqlInteger(n: number | string, min: bigint, max: bigint): string {
  const text = String(n);
  if (!/^-?\d{1,20}$/.test(text) || BigInt(text) < min || BigInt(text) > max) {
    throw new TypeError(`writer lock: ${JSON.stringify(text)} is not an integer in ${min}..${max}`);
  }
  return text;
}
const oid = (n: number) => sqlInteger(n, 0n, 0xffffffffn);
/** A signed 64-bit key, quoted (so that -2^63 is not read as -(2^63) and overflow). */
const int8 = (key: string) => `'${sqlInteger(key, -(2n ** 63n), 2n ** 63n - 1n)}'::bigint`;

/** The name of a holder setting of {@link writerLockKey}, as an SQL string. */
function sqlSetting(setting: string): string {
  if (!/^grag\.writer_[0-9a-f]{16}$/.test(setting)) {
    throw new TypeError(`writer lock: ${JSON.stringify(setting)} is not a writer lock setting`);
  }
  return `'${setting}'`;
}

/** `text` as an SQL text value, written as the hex of its UTF-8 bytes (no quoting to get right). */
function sqlText(text: string): string {
  return `convert_from(decode('${Buffer.from(text, 'utf8').toString('hex')}', 'hex'), 'UTF8')`;
}

function holderSql(key: WriterLockKey): string {
  return `SELECT l.pid AS backend, l.pid = pg_backend_pid() AS mine, a.application_name AS name,
  current_setting(${sqlSetting(key.setting)}, true) AS setting
  FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.classid = ${oid(key.classid)}::bigint::oid
    AND l.objid = ${oid(key.objid)}::bigint::oid AND l.objsubid = 1 AND l.granted LIMIT 1`;
}

async function findHolder(session: PgQueryable, key: WriterLockKey): Promise<Holder | undefined> {
  const rows = await session.query<{
    backend: number;
    mine: boolean;
    name: string | null;
    setting: string | null;
  }>(holderSql(key));
  const row = rows.rows[0];
  if (row === undefined) return undefined;
  if (row.mine) {
    let owner: LockOwner | undefined;
    try {
      const parsed = JSON.parse(row.setting ?? '') as LockOwner;
      if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') owner = parsed;
    } catch {
      // Set by no grag (or cleared): the holder is unknown.
    }
    return {
      backend: row.backend,
      mine: true,
      ...(owner ? { owner } : {}),
      ...(row.setting ? { setting: row.setting } : {}),
    };
  }
  const owner = ownerOfApplicationName(row.name);
  return { backend: row.backend, mine: false, ...(owner ? { owner } : {}) };
}

/**
 * Try the lock once: granted unless another session holds it, or (one shared session) the session
 * holds it already.
 */
async function tryLock(session: PgQueryable, key: WriterLockKey): Promise<boolean> {
  const rows = await session.query<{ got: boolean }>(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
       AND classid = ${oid(key.classid)}::bigint::oid AND objid = ${oid(key.objid)}::bigint::oid
       AND objsubid = 1 AND granted AND pid = pg_backend_pid())
       THEN false ELSE pg_try_advisory_lock(${int8(key.key)}) END AS got`,
  );
  return rows.rows[0]?.got === true;
}

/**
 * Whether a lock the shared session holds was left by a process that is gone: its setting names a
 * pid of this host that is dead (or this process, which does not hold it).
 */
function staleInSharedSession(holder: Holder): boolean {
  const owner = holder.owner;
  if (!holder.mine || owner === undefined || owner.host !== HOST) return false;
  if (owner.pid === process.pid) return !held.has(owner.token);
  return pidIsDead(owner.pid, owner.procStart);
}

/** A writer lock taken with {@link acquireWriterLock}. */
export interface WriterLock extends StoreLock {
  /** Whether its connection still answers (a lock whose connection died is no longer held). */
  alive(): Promise<boolean>;
}

/** What {@link acquireWriterLock} needs. */
export interface WriterLockOptions extends StoreLockOptions {
  /** The index, for messages (the database URL without its password, `#<index>`). */
  what: string;
  /** The schema whose lock this is. */
  schema: string;
}

/**
 * Take the writer lock of `options.schema` in `db` on a connection of its own (`db.session()`):
 * granted at once when free; while another writer holds it, polled until `timeoutMs` (default
 * 60 s), then `OutputError` in one line naming the holder. `onWait` is told once whom it waits
 * for; `signal` stops the wait with `AbortError`. The lock is released by `release()`, or by
 * PostgreSQL when the connection ends.
 */
export async function acquireWriterLock(db: PgDatabase, options: WriterLockOptions): Promise<WriterLock> {
  const key = writerLockKey(options.schema);
  const owner = newOwner();
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const session = await db.session(applicationName(owner));
  const text = JSON.stringify(owner);
  try {
    await pollWriterLock<Holder>(
      options,
      timeoutMs,
      async () => {
        if (await tryLock(session, key)) return { taken: true };
        const holder = await findHolder(session, key);
        if (holder === undefined) return { retry: true };
        if (staleInSharedSession(holder)) {
          // Release it for the dead holder, once: only if its setting is still the one read.
          const setting = sqlSetting(key.setting);
          const unchanged = `current_setting(${setting}, true) = ${sqlText(holder.setting ?? '')}`;
          await session.query(
            `SELECT CASE WHEN ${unchanged} THEN pg_advisory_unlock(${int8(key.key)}) END,
                  CASE WHEN ${unchanged} THEN set_config(${setting}, '', false) END`,
          );
          return { retry: true };
        }
        return { holder, ...(holder.owner ? { who: describe(holder.owner) } : {}) };
      },
      (holder) => {
        const who = holder.owner ? describe(holder.owner) : `PostgreSQL session ${holder.backend}`;
        const waited = timeoutMs > 0 ? `; waited ${Math.round(timeoutMs / 1000)} s` : '';
        const end = holder.mine
          ? ''
          : `; if no grag is running, end that session (SELECT pg_terminate_backend(${holder.backend}))`;
        return new OutputError(
          options.what,
          `${options.what} is being written by another grag (${who})${waited}. Run this again once it has finished${end}.`,
        );
      },
    );
    // Named for writers that share this session (a server with one session).
    await session.query(`SELECT set_config(${sqlSetting(key.setting)}, ${sqlText(text)}, false)`);
    held.add(owner.token);
  } catch (error) {
    await session.end();
    throw error;
  }
  let released = false;
  return {
    async alive() {
      if (released) return false;
      try {
        await session.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    async release() {
      if (released) return;
      released = true;
      held.delete(owner.token);
      try {
        const setting = sqlSetting(key.setting);
        await session.query(
          `SELECT CASE WHEN current_setting(${setting}, true) = ${sqlText(text)}
                    THEN set_config(${setting}, '', false) END,
                  pg_advisory_unlock(${int8(key.key)})`,
        );
      } catch {
        // The connection is gone, and the lock with it.
      } finally {
        await session.end();
      }
    },
  };
}
