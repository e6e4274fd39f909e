/**
 * The writes a server runs as jobs (jobs.ts): create an index, add documents to one, remove a
 * document, delete an index. An update runs the method's own incremental `update` (which leaves the
 * index it is given as it was, so the served version keeps answering), saves the new version where
 * the index lives (atomically: the store's new version replaces the old one in one step) and then
 * swaps it in with one assignment (registry.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildContext, Document, IndexChange, IndexManifest, IndexStore, Method } from '@grag/core';
import { assertMethodOptions, readManifest } from '@grag/core/kit';
import { type Principal, readOnly, type Workspaces } from './access.js';
import { badRequest, HttpError } from './errors.js';
import { removeIndexFolder } from './folder.js';
import { INDEX_NAME, manifestVersion, memoryVersion, type ServedIndex, servedIndex } from './indexes.js';
import type { JobInput } from './job-input.js';
import type { JobManager, JobReporter, JobWork } from './jobs.js';
import { storeManifest } from './load.js';
import type { PublishedChange } from './process-roles.js';
import type { IndexRegistry } from './registry.js';
import type { Job } from './schema-jobs.js';
import type { GragServerOptions, ServedIndexInput } from './types.js';

/** What the writes work on. */
export interface Writes {
  registry: IndexRegistry;
  workspaces: Workspaces;
  jobs: JobManager;
  /** The server's `answer` option (a new version answers as the old one did). */
  answer: GragServerOptions['answer'];
  /** The folder new indexes are saved in, when the server has one. */
  folder: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: indexes of every method
  methods: readonly Method<any, any>[];
  createContext: (() => BuildContext | Promise<BuildContext>) | undefined;
  /** Where a new index is saved when there is no folder (the server's `createTarget`). */
  createTarget: GragServerOptions['createTarget'];
  /** The build options of a new index from the request's (the server's `buildOptions`). */
  buildOptions: GragServerOptions['buildOptions'];
  /** Tell the other processes of the server of a version swapped in or an index removed (serve's `processes`). */
  publish?: ((change: PublishedChange) => Promise<void>) | undefined;
}

/** The 409 for an index whose documents cannot be changed, saying why. */
function notWritable(served: ServedIndex): HttpError | undefined {
  if (!served.method.update) {
    return new HttpError(
      409,
      'not_writable',
      `Index "${served.name}" (${served.method.name}) cannot be updated: its method has no incremental update; create a new index with the changed documents.`,
    );
  }
  if (!served.context) {
    return new HttpError(
      409,
      'not_writable',
      `Index "${served.name}" cannot be updated: the server does not know the providers it was built with; serve it with its context (loadIndex gives it).`,
    );
  }
  return undefined;
}

/** The manifest of the version just saved to `target`. */
async function savedManifest(target: string | IndexStore): Promise<IndexManifest> {
  return typeof target === 'string' ? readManifest(target) : storeManifest(target);
}

/** The documents given with an index, after `change`. */
function changedDocuments(documents: readonly Document[], change: IndexChange): Document[] {
  const drop = new Set([...(change.remove ?? []), ...(change.add ?? []).map((d) => d.id)]);
  return [...documents.filter((d) => !drop.has(d.id)), ...(change.add ?? [])];
}

/** The input of a new version of an index: what it was made from, with the new index and its manifest. */
function nextInput(
  served: ServedIndex,
  index: unknown,
  change: IndexChange | undefined,
  manifest: IndexManifest | undefined,
): ServedIndexInput & { name: string } {
  const {
    stats: _stats,
    manifest: _manifest,
    ...rest
  } = served.input as ServedIndexInput & {
    manifest?: IndexManifest;
  };
  return {
    ...rest,
    name: served.name,
    index,
    ...(served.context ? { context: served.context } : {}),
    ...(served.input.documents && change
      ? { documents: changedDocuments(served.input.documents, change) }
      : {}),
    ...(manifest
      ? {
          manifest,
          providers: { ...manifest.providers },
          ...(manifest.stats ? { stats: manifest.stats } : {}),
        }
      : {}),
  };
}

/** A job's context: `ctx` reporting the method's progress to the job. */
function jobContext(ctx: BuildContext, report: JobReporter): BuildContext {
  return { ...ctx, onProgress: (p) => report.progress(p.stage, p.done, p.total ?? 0) };
}

/** Save `index` where `served` lives (if it lives anywhere) and swap the new version in. */
async function saveAndSwap(
  writes: Writes,
  served: ServedIndex,
  index: unknown,
  change: IndexChange | undefined,
  report: JobReporter,
): Promise<string> {
  const target = served.input.target;
  let manifest: IndexManifest | undefined;
  if (target !== undefined) {
    report.progress('save', 0, 1);
    await served.method.save(index, target);
    manifest = await savedManifest(target);
    report.progress('save', 1, 1);
  }
  const version = manifest ? manifestVersion(manifest) : memoryVersion();
  writes.registry.swap(servedIndex(nextInput(served, index, change, manifest), writes.answer, version));
  // With several processes, the job ends once every one serves the new version.
  if (writes.publish && typeof target === 'string') {
    const workspace = writes.workspaces.of(served.name);
    await writes.publish({ kind: 'swap', name: served.name, target, version, workspace });
  }
  return version;
}

/**
 * Queue `change` to the index `name` as `view` shows it to the request (404 for an unknown index or
 * one of another workspace, 403 for a read-only token, 409 for an index that cannot be updated).
 */
export function submitChange(
  writes: Writes,
  view: IndexRegistry,
  principal: Principal,
  name: string,
  change: IndexChange,
): Promise<Job> {
  const served = view.pick(name);
  if (!principal.write) throw readOnly(principal);
  const refused = notWritable(served);
  if (refused) throw refused;
  for (const id of change.remove ?? []) {
    if (!served.documents.get(id)) {
      throw new HttpError(
        404,
        'not_found',
        `No document ${JSON.stringify(id.slice(0, 200))} in index "${name}" (version ${served.version}); nothing was queued.`,
      );
    }
  }
  const input: JobInput = change.add
    ? { kind: 'add-documents', documents: change.add }
    : { kind: 'remove-documents', ids: change.remove ?? [] };
  return writes.jobs.submit(input.kind, name, input, changeWork(writes, name, change));
}

/** The work of a change to the index `name`, run on the version current when it runs. */
function changeWork(writes: Writes, name: string, change: IndexChange): JobWork {
  return {
    async run(report) {
      // The version current when the job runs: the writes queued before it have been swapped in.
      const current = writes.registry.find(name);
      if (!current)
        throw new HttpError(404, 'unknown_index', `Index "${name}" was deleted before this job ran.`);
      const why = notWritable(current);
      if (why) throw why;
      await report.started(current.version);
      const ctx = jobContext(current.context as BuildContext, report);
      const update = current.method.update as NonNullable<Method<unknown>['update']>;
      const result = await update(current.index, change, ctx);
      const version = await saveAndSwap(writes, current, result.index, change, report);
      return { version, documents: result.report.documents };
    },
  };
}

/** A checked `POST /v1/indexes` request. */
export interface CreateIndex {
  name: string;
  method: string;
  options: Record<string, unknown>;
  documents: Document[];
}

/**
 * Queue the build of a new index in the workspace of `principal` (403 for a read-only token, 400
 * for a bad name, method or option; 409 for a taken name).
 */
export async function submitCreate(writes: Writes, principal: Principal, request: CreateIndex): Promise<Job> {
  if (!principal.write) throw readOnly(principal);
  const { name } = request;
  if (!INDEX_NAME.test(name)) {
    throw badRequest(
      `"name" ${JSON.stringify(name.slice(0, 100))} is not an index name: use letters, digits, '.', '_' or '-' (not first), at most 100 characters.`,
    );
  }
  const method = writes.methods.find((m) => m.name === request.method);
  if (!method) {
    throw badRequest(
      `"method" ${JSON.stringify(request.method.slice(0, 100))} is not a method this server knows; use one of: ${writes.methods.map((m) => m.name).join(', ') || '(none)'}.`,
    );
  }
  const createContext = writes.createContext;
  if (!createContext) {
    throw new HttpError(
      409,
      'not_writable',
      'This server cannot create indexes: start it with a folder (grag serve --dir <folder>) or with createContext.',
    );
  }
  if (writes.registry.has(name) || writes.jobs.busy(name)) {
    throw new HttpError(
      409,
      'conflict',
      `An index named "${name}" exists already; choose another name or delete it first.`,
    );
  }
  if (writes.folder !== undefined && existsSync(join(writes.folder, name))) {
    throw new HttpError(
      409,
      'conflict',
      `The served folder holds "${name}" already (not an index it serves); choose another name or move it away.`,
    );
  }
  assertMethodOptions(method, 'build', request.options);
  const target = await createTargetOf(writes, name);
  if (typeof target === 'object' && (await target.target()) === 'index') {
    throw new HttpError(
      409,
      'conflict',
      `${target.location} holds an index named "${name}" already (not served here); choose another name.`,
    );
  }
  // The new index (and its job) belong to the creator's workspace from the start.
  await writes.workspaces.assign(name, principal.workspace);
  const input: JobInput = {
    kind: 'create-index',
    method: method.name,
    options: request.options,
    documents: request.documents,
  };
  return writes.jobs.submit('create-index', name, input, createWork(writes, request, target));
}

/** Where a new index named `name` is saved: in the server's folder, else where `createTarget` says. */
async function createTargetOf(writes: Writes, name: string): Promise<string | IndexStore | undefined> {
  return writes.folder !== undefined ? join(writes.folder, name) : await writes.createTarget?.(name);
}

/** The work of building the new index of `request`, saved to `target`. */
function createWork(writes: Writes, request: CreateIndex, target: string | IndexStore | undefined): JobWork {
  const { name } = request;
  return {
    async run(report) {
      if (writes.registry.has(name)) {
        throw new HttpError(409, 'conflict', `An index named "${name}" exists already.`);
      }
      const method = writes.methods.find((m) => m.name === request.method);
      const createContext = writes.createContext;
      if (!method || !createContext) {
        throw new HttpError(
          409,
          'not_writable',
          `This server cannot build an index of method ${JSON.stringify(request.method)}; serve it with that method and a context to create indexes.`,
        );
      }
      await report.started(null);
      const ctx = await createContext();
      const options = writes.buildOptions?.(method, request.options) ?? request.options;
      const index = await method.build(request.documents, jobContext(ctx, report), options);
      const input: ServedIndexInput & { name: string } = {
        name,
        method,
        index,
        context: ctx,
        ...(target !== undefined ? { target } : {}),
      };
      const placeholder = servedIndex(input, writes.answer, memoryVersion());
      const version = await saveAndSwap(writes, placeholder, index, undefined, report);
      return { version, documents: { added: request.documents.map((d) => d.id), replaced: [], removed: [] } };
    },
  };
}

/**
 * Queue the removal of the index `name` (404 for an unknown one). It stops being served when the
 * job runs; its folder is removed only when it is in the server's folder, and then only the files
 * grag wrote (a folder that holds others is refused, and the index stays).
 */
export function submitDelete(
  writes: Writes,
  view: IndexRegistry,
  principal: Principal,
  name: string,
): Promise<Job> {
  view.pick(name);
  if (!principal.write) throw readOnly(principal);
  return writes.jobs.submit('delete-index', name, { kind: 'delete-index' }, deleteWork(writes, name));
}

/** The work of removing the index `name`. */
function deleteWork(writes: Writes, name: string): JobWork {
  return {
    async run(report) {
      const current = writes.registry.find(name);
      if (!current)
        throw new HttpError(404, 'unknown_index', `Index "${name}" was deleted before this job ran.`);
      await report.started(current.version);
      const target = current.input.target;
      if (writes.folder !== undefined && target === join(writes.folder, name)) {
        await removeIndexFolder(target, name);
      }
      writes.registry.delete(name);
      await writes.publish?.({ kind: 'delete', name });
      return { version: null };
    },
  };
}

/**
 * Run again a job a stop interrupted, from its journaled input, with its id: the same work as when
 * it was submitted, on the version current now (the checks of the request ran when it was
 * submitted; what can have changed since, such as a method the server no longer knows, fails the
 * job with the reason).
 */
export function resumeJob(writes: Writes, job: Job, input: JobInput): void {
  const name = job.index;
  let work: JobWork;
  if (input.kind === 'add-documents') work = changeWork(writes, name, { add: input.documents });
  else if (input.kind === 'remove-documents') work = changeWork(writes, name, { remove: input.ids });
  else if (input.kind === 'delete-index') work = deleteWork(writes, name);
  else {
    const request = { name, method: input.method, options: input.options, documents: input.documents };
    work = {
      // The target is made when the job runs (a store's connections are opened then).
      async run(report) {
        const target = await createTargetOf(writes, name);
        if (typeof target === 'object' && (await target.target()) === 'index') {
          throw new HttpError(
            409,
            'conflict',
            `${target.location} holds an index named "${name}" already (not served here); it is not built again.`,
          );
        }
        return createWork(writes, request, target).run(report);
      },
    };
  }
  writes.jobs.resume(job.id, work);
}
