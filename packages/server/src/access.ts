/**
 * Workspaces and scoped tokens. A workspace is a set of indexes; a token is scoped to one
 * workspace and to reading or writing it, or is an admin token (every index, read and write; the
 * server's `token` is one). A request sees only its workspace's indexes: another workspace's index
 * is answered exactly as an index that does not exist (404 `unknown_index`, naming only its own),
 * and so is a job of another workspace's index, so a token learns nothing of other workspaces.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError } from '@grag/core';
import { bearerCheck } from './auth.js';
import { HttpError } from './errors.js';
import { INDEX_NAME, type ServedIndex } from './indexes.js';
import { type IndexRegistry, unknownIndex } from './registry.js';

/** A bearer token and what it may do. */
export interface ScopedToken {
  /** The token (printable ASCII, no spaces), sent as `Authorization: Bearer <token>`. */
  token: string;
  /** `read`: query and read its workspace's indexes and jobs; `write`: that and write them; `admin`: everything. */
  access: 'read' | 'write' | 'admin';
  /** The workspace of a `read` or `write` token (none for `admin`). */
  workspace?: string;
}

/** Who a request is: an admin, or a workspace with read or write access. */
export interface Principal {
  readonly workspace: string | undefined;
  readonly write: boolean;
}

export const ADMIN: Principal = { workspace: undefined, write: true };

const PRINCIPALS = new WeakMap<Request, Principal>();

/** Record who sent `request` (the `/v1` middleware does, once the token is checked). */
export function setPrincipal(request: Request, principal: Principal): void {
  PRINCIPALS.set(request, principal);
}

/** Who sent `request`: its token's principal, or an admin on a server without tokens. */
export function principalOf(request: Request): Principal {
  return PRINCIPALS.get(request) ?? ADMIN;
}

/** The workspace file of a folder: which workspace each index created over HTTP belongs to. */
export const WORKSPACES_FILE = '.grag-workspaces.json';

/** Check the `tokens` option. */
export function checkTokens(tokens: unknown): ScopedToken[] {
  if (tokens === undefined) return [];
  if (!Array.isArray(tokens)) {
    throw new InvalidArgumentError(
      'tokens',
      'createGragServer: tokens must be an array of { token, access, workspace? }.',
    );
  }
  const seen = new Set<string>();
  return tokens.map((entry: Partial<ScopedToken>, i) => {
    const where = `createGragServer: tokens[${i}]`;
    if (typeof entry?.token !== 'string' || !/^[\x21-\x7e]+$/.test(entry.token)) {
      throw new InvalidArgumentError(
        'tokens',
        `${where}.token must be a non-empty string of printable ASCII characters without spaces.`,
      );
    }
    if (seen.has(entry.token))
      throw new InvalidArgumentError('tokens', `${where}.token is given twice; give each token once.`);
    seen.add(entry.token);
    if (entry.access !== 'read' && entry.access !== 'write' && entry.access !== 'admin') {
      throw new InvalidArgumentError(
        'tokens',
        `${where}.access must be "read", "write" or "admin", got ${JSON.stringify(entry.access)}.`,
      );
    }
    if (
      entry.access === 'admin'
        ? entry.workspace !== undefined
        : typeof entry.workspace !== 'string' || !INDEX_NAME.test(entry.workspace)
    ) {
      throw new InvalidArgumentError(
        'tokens',
        entry.access === 'admin'
          ? `${where}: an admin token has no workspace (it reaches every index); drop "workspace".`
          : `${where}.workspace must name the workspace (letters, digits, '.', '_', '-'), got ${JSON.stringify(entry.workspace)}.`,
      );
    }
    return {
      token: entry.token,
      access: entry.access,
      ...(entry.workspace !== undefined ? { workspace: entry.workspace } : {}),
    };
  });
}

/** Who sent `authorization` among `tokens` (every token compared, in constant time each), or `undefined`. */
export function principalCheck(
  tokens: readonly ScopedToken[],
): (authorization: string | undefined) => Principal | undefined {
  const checks = tokens.map((t) => ({ check: bearerCheck(t.token), t }));
  return (authorization) => {
    let found: ScopedToken | undefined;
    for (const { check, t } of checks) if (check(authorization) && !found) found = t;
    if (!found) return undefined;
    return found.access === 'admin' ? ADMIN : { workspace: found.workspace, write: found.access === 'write' };
  };
}

/** Which workspace each index belongs to (an index of none is reached by admin tokens only). */
export class Workspaces {
  readonly #of = new Map<string, string>();
  readonly #file: string | undefined;
  #saving: Promise<void> = Promise.resolve();

  constructor(
    initial: Readonly<Record<string, readonly string[]>> | undefined,
    saved: Record<string, string>,
    folder?: string,
  ) {
    for (const [index, workspace] of Object.entries(saved)) this.#of.set(index, workspace);
    for (const [workspace, names] of Object.entries(initial ?? {}))
      for (const name of names) this.#of.set(name, workspace);
    this.#file = folder === undefined ? undefined : join(folder, WORKSPACES_FILE);
  }

  /** The workspace of the index `name`, if it has one. */
  of(name: string): string | undefined {
    return this.#of.get(name);
  }

  /** The indexes of each workspace, as the `workspaces` option gives them. */
  byWorkspace(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [index, workspace] of this.#of) out[workspace] = [...(out[workspace] ?? []), index];
    return out;
  }

  /** Whether `principal` may reach the index `name`. */
  allows(principal: Principal, name: string): boolean {
    return principal.workspace === undefined || this.#of.get(name) === principal.workspace;
  }

  /** Put the index `name` in `workspace` (and save the map in the folder, when there is one). */
  assign(name: string, workspace: string | undefined): Promise<void> {
    if (workspace === undefined) this.#of.delete(name);
    else this.#of.set(name, workspace);
    const file = this.#file;
    if (!file) return Promise.resolve();
    const text = `${JSON.stringify({ indexes: Object.fromEntries(this.#of) }, null, 1)}\n`;
    // One write at a time (a temporary file renamed over the map), each with the map as it is then.
    const next = this.#saving.then(async () => {
      const tmp = `${file}.tmp-${process.pid}`;
      await writeFile(tmp, text);
      await rename(tmp, file);
    });
    this.#saving = next.catch(() => {});
    return next;
  }
}

/** The workspace map saved in `folder` (none when there is no file). */
export async function readWorkspaces(folder: string): Promise<Record<string, string>> {
  const path = join(folder, WORKSPACES_FILE);
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { indexes?: Record<string, string> };
    return parsed.indexes ?? {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${path} is not a grag workspace file; move it away or fix its JSON.`);
  }
}

/** The indexes as `principal` sees them: only its workspace's, the others as if they did not exist. */
export function viewFor(
  registry: IndexRegistry,
  workspaces: Workspaces,
  principal: Principal,
): IndexRegistry {
  if (principal.workspace === undefined) return registry;
  const visible = () => registry.list().filter((ix) => workspaces.allows(principal, ix.name));
  const view = {
    list: visible,
    has: (name: string) => workspaces.allows(principal, name) && registry.has(name),
    find: (name: string) => (workspaces.allows(principal, name) ? registry.find(name) : undefined),
    pick(name: string | undefined): ServedIndex {
      if (name === undefined) {
        const first = visible()[0];
        if (first) return first;
        throw new HttpError(
          404,
          'unknown_index',
          'This workspace has no index yet; create one with POST /v1/indexes.',
        );
      }
      const found = view.find(name);
      if (found) return found;
      throw unknownIndex(name, visible());
    },
    swap: (served: ServedIndex) => registry.swap(served),
    delete: (name: string) => registry.delete(name),
  };
  return view as unknown as IndexRegistry;
}

/** The 403 for a write with a read-only token. */
export function readOnly(principal: Principal): HttpError {
  return new HttpError(
    403,
    'forbidden',
    `This token may only read workspace "${principal.workspace}"; writes need a write token of the workspace.`,
  );
}
