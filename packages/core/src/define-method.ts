/**
 * `defineMethod`: the skeleton of a grag {@link Method} written once — its format (name, version,
 * older versions read, providers fingerprinted, build tasks recorded), the task checks before a
 * build, an update and a load, and the option resolution before a build — so a method package
 * gives only its paper's steps.
 */
import type {
  BuildContext,
  IndexChange,
  IndexProviderKind,
  IndexUpdate,
  Method,
  MethodCapabilities,
  MethodOptionKeys,
  MethodTasks,
  PassageRanking,
  RetrieveOptions,
  UpdateOptions,
} from './contracts/method.js';
import type { IndexStore } from './contracts/store.js';
import type { TaskVersions } from './contracts/tasks.js';
import type { Document, Retrieval } from './contracts/types.js';
import type { MethodIndexFormat } from './method-index.js';
import { requireTasks } from './runtime.js';

/**
 * What {@link defineMethod} is given: the method's identity and declarations, and its steps. Every
 * step receives what the skeleton already did: `build` resolved options, `save` and `load` the
 * index format.
 */
export interface MethodDefinition<Index, Options, Retrieve extends RetrieveOptions, Resolved> {
  /** Method name used in manifests and the CLI. */
  name: string;
  /** One line saying what the method is, after its paper. */
  description: string;
  /** Version of the on-disk format `save` writes. */
  formatVersion: number;
  /** Older format versions `load` still reads. @default none */
  reads?: readonly number[];
  /** The providers the index depends on (fingerprinted on save, checked on load). */
  uses: readonly IndexProviderKind[];
  /**
   * The task contracts the method calls. Checked before a build and an update (the `build` tasks,
   * and the `retrieve` ones too when `uses` has `'tasks'`: such an index retrieves with the suite it
   * was built with) and before a load (the `retrieve` tasks); the manifest records the `build` ones.
   */
  tasks: MethodTasks;
  /** Capabilities beside `uses` and `tasks` (e.g. `triples: true`). @default none */
  capabilities?: Omit<MethodCapabilities, 'uses' | 'tasks'>;
  /** The option keys `build` and `retrieve` accept, and which of them only set retrieve's defaults. */
  optionKeys: MethodOptionKeys;
  /** Which retrieved items rank passages. @default every item, in context order */
  passageRanking?: PassageRanking;
  /** Resolve and check the options of a build (`caller` names it in messages, e.g. `'noderag build'`). */
  resolve(caller: string, options: Partial<Options>): Resolved;
  /**
   * The options of a resolved build that the saved manifest records (`params`), for
   * `Method.resolveBuildOptions`. @default the resolved options themselves
   */
  savedParams?(resolved: Resolved): object;
  /** Build an index from `docs` with resolved options (the tasks are checked already). */
  build(docs: Document[], ctx: BuildContext, options: Resolved): Promise<Index>;
  /** Retrieve from `index` for `query`. */
  retrieve(index: Index, query: string, options: Retrieve): Promise<Retrieval>;
  /** Change the corpus of `index` (the tasks are checked already); without it the method has no `update`. */
  update?(
    index: Index,
    change: IndexChange,
    ctx: BuildContext,
    options: UpdateOptions,
  ): Promise<IndexUpdate<Index>>;
  /** Write `index` to `target` with `format` (see `writeMethodIndex`). */
  save(index: Index, target: string | IndexStore, format: MethodIndexFormat): Promise<void>;
  /** Read the index in `target` with `format` (see `openMethodIndex`; the retrieve tasks are checked already). */
  load(target: string | IndexStore, ctx: BuildContext, format: MethodIndexFormat): Promise<Index>;
}

/** A {@link Method} whose `update` is always there. */
export type UpdatableMethod<Index, Options, Retrieve extends RetrieveOptions> = Method<
  Index,
  Options,
  Retrieve
> &
  Required<Pick<Method<Index, Options, Retrieve>, 'update'>>;

/**
 * The task versions a build or an update of a method checks: its `build` tasks, and its `retrieve`
 * ones when its index fingerprints the task suite (it retrieves with the suite it was built with).
 */
export function buildTaskNeeds(tasks: MethodTasks, uses: readonly IndexProviderKind[]): TaskVersions {
  return uses.includes('tasks') ? { ...tasks.build, ...tasks.retrieve } : tasks.build;
}

/**
 * A {@link Method} from its definition: the skeleton every grag method shares, written once.
 *
 * - `build` resolves the options (`definition.resolve`), checks the task suite, then builds;
 * - `update` (when defined) checks the task suite, then updates;
 * - `load` checks the `retrieve` tasks, then loads; `save` and `load` get the index format
 *   (`{ method, formatVersion, uses, reads, tasks: tasks.build }`).
 *
 * @example
 * ```ts
 * export const myRag = defineMethod({
 *   name: 'my-rag', description: 'my method', formatVersion: 1, uses: ['embedder'],
 *   tasks: { build: {}, retrieve: {} }, optionKeys: { build: KEYS, retrieve: RETRIEVE_OPTION_KEYS },
 *   resolve: (caller, options) => resolveMyOptions(caller, options),
 *   build: buildMyIndex, retrieve: retrieveMy, save: saveMy, load: loadMy,
 * });
 * ```
 */
export function defineMethod<Index, Options, Retrieve extends RetrieveOptions, Resolved>(
  definition: MethodDefinition<Index, Options, Retrieve, Resolved> & {
    update: NonNullable<MethodDefinition<Index, Options, Retrieve, Resolved>['update']>;
  },
): UpdatableMethod<Index, Options, Retrieve>;
export function defineMethod<Index, Options, Retrieve extends RetrieveOptions, Resolved>(
  definition: MethodDefinition<Index, Options, Retrieve, Resolved>,
): Method<Index, Options, Retrieve>;
export function defineMethod<Index, Options, Retrieve extends RetrieveOptions, Resolved>(
  definition: MethodDefinition<Index, Options, Retrieve, Resolved>,
): Method<Index, Options, Retrieve> {
  const { name, tasks, uses } = definition;
  const needs = buildTaskNeeds(tasks, uses);
  const format: MethodIndexFormat = {
    method: name,
    formatVersion: definition.formatVersion,
    uses,
    ...(definition.reads ? { reads: definition.reads } : {}),
    tasks: tasks.build,
  };
  const update = definition.update;
  return {
    name,
    description: definition.description,
    capabilities: { uses, ...definition.capabilities, tasks },
    formatVersion: definition.formatVersion,
    optionKeys: definition.optionKeys,
    ...(definition.passageRanking ? { passageRanking: definition.passageRanking } : {}),
    resolveBuildOptions(options = {}) {
      const resolved = definition.resolve(`${name} build`, options);
      return (definition.savedParams?.(resolved) ?? resolved) as Readonly<Record<string, unknown>>;
    },
    async build(docs, ctx, options = {}) {
      const resolved = definition.resolve(`${name} build`, options);
      requireTasks(`${name} build`, needs, ctx.tasks);
      return definition.build(docs, ctx, resolved);
    },
    async retrieve(index, query, options = {} as Retrieve) {
      return definition.retrieve(index, query, options);
    },
    ...(update
      ? {
          async update(index: Index, change: IndexChange, ctx: BuildContext, options: UpdateOptions = {}) {
            requireTasks(`${name} update`, needs, ctx.tasks);
            return update(index, change, ctx, options);
          },
        }
      : {}),
    async save(index, target) {
      return definition.save(index, target, format);
    },
    async load(target, ctx) {
      requireTasks(`${name} load`, tasks.retrieve, ctx.tasks);
      return definition.load(target, ctx, format);
    },
  };
}
