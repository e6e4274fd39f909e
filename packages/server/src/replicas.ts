/**
 * The replica processes of `serve({ processes })` as the primary keeps them (processes.ts): forked
 * with `node:cluster`, each sent its configuration; told of every change of the served indexes, a
 * change done once each live replica has acknowledged it; started again when one exits
 * unexpectedly; stopped by `close()`.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from '@grag/core';
import { tsxApi } from './pool.js';
import type { PublishedChange } from './process-roles.js';
import type { FromReplica, ReplicaConfig, ToReplica } from './processes.js';

/** How long a replica may take to stop before it is killed. */
const STOP_MS = 10_000;

/** The file a replica runs: the built module, or the sources through tsx. */
function replicaEntry(): { exec: string; env: Record<string, string> } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { exec: fileURLToPath(new URL('./replica-entry.js', here)), env: {} };
  return {
    exec: fileURLToPath(new URL('./replica-entry-sources.mjs', here)),
    env: {
      GRAG_REPLICA_TSX_API: tsxApi(here),
      TSX_TSCONFIG_PATH:
        process.env.TSX_TSCONFIG_PATH ?? fileURLToPath(new URL('../../../tsconfig.json', here)),
    },
  };
}

/**
 * Send `message` to `worker`, if it can still hear it: one that is exiting (a failed start, a
 * crash) closes its channel, and what could not be sent to it is not needed (its exit is handled).
 */
function tell(worker: Worker, message: ToReplica): void {
  if (worker.isConnected()) worker.send(message, () => {});
}

interface Replica {
  worker: Worker;
  /** Whether it has its configuration (it hears of changes from then on). */
  configured: boolean;
  /** Whether it has listened (one that fails before is not started again). */
  listening: boolean;
}

/** The replicas of one server. */
export class Replicas {
  readonly #live = new Map<number, Replica>();
  /** Changes not yet acknowledged by every live replica, by id. */
  readonly #pending = new Map<number, { waiting: Set<number>; done: () => void }>();
  readonly #onError: (error: unknown, where: string) => void;
  #config: (() => ReplicaConfig) | undefined;
  #next = 0;
  #closing = false;

  constructor(onError: (error: unknown, where: string) => void) {
    this.#onError = onError;
  }

  /** What each replica is started with, read when it starts. */
  configure(config: () => ReplicaConfig): void {
    this.#config = config;
  }

  /** Start `count` replicas; resolves with the URL they listen on, or rejects with the first failure. */
  async start(count: number): Promise<string> {
    const urls = await Promise.all(Array.from({ length: count }, () => this.#fork()));
    return urls[0] as string;
  }

  /** Fork one replica; resolves once it listens, with its URL. */
  #fork(): Promise<string> {
    const { exec, env } = replicaEntry();
    // Only this file: the primary's own flags (a test runner's, a loader's) are not the replica's.
    cluster.setupPrimary({ exec, execArgv: [], args: [] });
    const worker = cluster.fork(env);
    const replica: Replica = { worker, configured: false, listening: false };
    // A write to a channel closing under it (EPIPE): the replica's exit is what is handled.
    worker.on('error', () => {});
    this.#live.set(worker.id, replica);
    return new Promise<string>((resolve, reject) => {
      worker.on('message', (message: FromReplica) => {
        if (message?.grag === 'ready' && this.#closing) {
          // Told to close before it could hear it (a message sent before 'ready' is lost).
          tell(worker, { grag: 'close' });
        } else if (message?.grag === 'ready') {
          // The indexes served now; every change after this one is sent to it too.
          const config = (this.#config as () => ReplicaConfig)();
          replica.configured = true;
          tell(worker, { grag: 'config', config });
        } else if (message?.grag === 'listening') {
          replica.listening = true;
          resolve(message.url);
        } else if (message?.grag === 'failed') {
          reject(
            message.argument
              ? new InvalidArgumentError(message.argument, message.message)
              : new Error(message.message),
          );
        } else if (message?.grag === 'ack') this.#acknowledged(message.id, worker.id);
        else if (message?.grag === 'error') this.#onError(new Error(message.message), message.where);
      });
      worker.on('exit', (code, signal) => {
        this.#live.delete(worker.id);
        for (const id of [...this.#pending.keys()]) this.#acknowledged(id, worker.id);
        if (!replica.listening) {
          reject(new Error(`serve: a replica process exited before it listened (code ${code ?? signal}).`));
          return;
        }
        if (this.#closing) return;
        this.#onError(
          new Error(
            `replica process ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`,
          ),
          'processes',
        );
        this.#fork().catch((error) => this.#onError(error, 'processes (replica not restarted)'));
      });
    });
  }

  /** Tell every live replica of `change`; resolves once each serves it (or has exited). */
  publish(change: PublishedChange): Promise<void> {
    const told = [...this.#live.values()].filter((r) => r.configured);
    if (told.length === 0) return Promise.resolve();
    const id = ++this.#next;
    return new Promise<void>((done) => {
      this.#pending.set(id, { waiting: new Set(told.map((r) => r.worker.id)), done });
      for (const { worker } of told) tell(worker, { grag: 'change', id, change });
    });
  }

  #acknowledged(id: number, worker: number): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    pending.waiting.delete(worker);
    if (pending.waiting.size === 0) {
      this.#pending.delete(id);
      pending.done();
    }
  }

  /** Stop every replica (killed after {@link STOP_MS}); resolves once all have exited. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(
      [...this.#live.values()].map(
        ({ worker, configured }) =>
          new Promise<void>((done) => {
            if (worker.isDead()) return done();
            const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_MS);
            worker.once('exit', () => {
              clearTimeout(timer);
              done();
            });
            // One not yet ready is told when it is (see #fork).
            if (!configured) return;
            if (worker.isConnected()) tell(worker, { grag: 'close' });
            else worker.process.kill('SIGTERM');
          }),
      ),
    );
  }
}
