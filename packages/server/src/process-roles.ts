/**
 * What `serve({ processes })` tells the apps it makes in each process (processes.ts, replica.ts):
 * the primary's app publishes each version a write swaps in, and a replica's forwards every route
 * that is not a read to the primary. Kept by the options object (so no public option shows it),
 * and what an app holds by the app.
 */
import type { Context, Next } from 'hono';
import type { Workspaces } from './access.js';
import type { IndexRegistry } from './registry.js';

/** A change of the served indexes, as the primary tells its replicas. */
export type PublishedChange =
  | {
      kind: 'swap';
      name: string;
      /** The directory the new version is saved in. */
      target: string;
      version: string;
      /** The workspace the index belongs to (none: an admin's). */
      workspace: string | undefined;
    }
  | { kind: 'delete'; name: string };

/** The role of an app in a server of several processes. */
export interface ProcessRole {
  /** In the primary: tell every replica of a change, resolving once each serves it. */
  publish?: (change: PublishedChange) => Promise<void>;
  /** In a replica: the middleware that hands the routes that are not reads to the primary. */
  forward?: (c: Context, next: Next) => Promise<Response | undefined>;
}

/** The role given with a server's options. */
export const PROCESS_ROLES = new WeakMap<object, ProcessRole>();

/** What an app made by `createGragServer` serves: its indexes and their workspaces. */
export interface AppParts {
  registry: IndexRegistry;
  workspaces: Workspaces;
}

/** The parts of each app made by `createGragServer`. */
export const APP_PARTS = new WeakMap<object, AppParts>();
