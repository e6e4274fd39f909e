import type { Method } from '@grag/core';
import {
  assertKnownOptions,
  BM25_DEFAULTS,
  Bm25Index,
  defineMethod,
  openMethodIndex,
  prepareUpdate,
  RETRIEVE_OPTION_KEYS,
  resolveCheckedOptions,
  startBuild,
  writeMethodIndex,
} from '@grag/core/kit';

import { BM25_RAG_OPTION_KEYS, BM25_RULES, type Bm25RagOptions, CHUNKING_DEFAULTS } from './options.js';
import {
  BASELINE_TASKS,
  type Bm25RagIndex,
  headerOf,
  loadBaseIndex,
  rankDepth,
  retrievalFrom,
  saveUnits,
  startBaselineBuild,
} from './units.js';
import { changeUnits, reportOf } from './update.js';

/** Settings of {@link createBm25Rag}. */
export interface Bm25RagSettings {
  /** Method name used in manifests and the CLI. @default 'bm25' */
  name?: string;
  defaults?: Partial<Bm25RagOptions>;
}

/** BM25 baseline: the top-k chunks by Okapi BM25, packed into the budget. No embedder is used. */
export function createBm25Rag(settings: Bm25RagSettings = {}): Method<Bm25RagIndex, Bm25RagOptions> {
  const name = settings.name ?? 'bm25';
  const defaults: Bm25RagOptions = { ...CHUNKING_DEFAULTS, ...BM25_DEFAULTS };
  const bm25Of = (texts: string[], opts: Bm25RagOptions) => new Bm25Index(texts, { k1: opts.k1, b: opts.b });
  return defineMethod({
    name,
    description: 'baseline: BM25 top-k chunks',
    formatVersion: 1,
    uses: [],
    tasks: BASELINE_TASKS,
    optionKeys: { build: BM25_RAG_OPTION_KEYS, retrieve: RETRIEVE_OPTION_KEYS },
    passageRanking: { kinds: ['chunk'] },
    resolve: (caller, options) =>
      resolveCheckedOptions(caller, { defaults, rules: BM25_RULES }, settings.defaults, options),
    async build(docs, ctx, opts) {
      const { rt, base } = await startBaselineBuild(docs, ctx, opts);
      const bm25 = await rt.stage('bm25', () => bm25Of(base.texts, opts), { checkpoint: false });
      return { ...base, bm25 };
    },
    async update(index, change, baseCtx, options) {
      // The kept state is the document ids, which every BM25 index has: the refusal never happens.
      const update = await prepareUpdate(name, change, baseCtx, options, {
        kept: () => index.documents,
        refusal: { lacks: 'its documents', cost: 'indexing every document again' },
        documents: (documents) => documents,
      });
      const rt = startBuild(update.ctx);
      const units = await changeUnits(update, index, rt);
      const bm25 = await rt.stage(
        'bm25',
        () => index.bm25.update({ remove: units.dropped, add: units.added.texts }),
        { checkpoint: false },
      );
      return {
        index: { ...index, documents: units.plan.documents, chunks: units.chunks, texts: units.texts, bm25 },
        report: reportOf(units, {
          embedded: 0,
          local: ['chunk', 'bm25'],
          global: [],
          trace: {
            bm25: 'only the new chunks were tokenized; document frequencies and the average length follow the change',
          },
        }),
      };
    },
    async retrieve(index, query, options) {
      assertKnownOptions(`${name} retrieve`, options, RETRIEVE_OPTION_KEYS);
      const started = performance.now();
      const depth = rankDepth(index, options);
      const hits = index.bm25.search(query, depth);
      return retrievalFrom(index, hits, options, { method: name, depth, ms: performance.now() - started });
    },
    async save(index, target, format) {
      await writeMethodIndex(target, headerOf(format, index), (out) => saveUnits(index, out));
    },
    async load(target, ctx, format) {
      const opened = await openMethodIndex(target, ctx, {
        ...format,
        params: (saved) => resolveCheckedOptions(`${name} load`, { defaults, rules: BM25_RULES }, saved),
      });
      const base = await loadBaseIndex(opened);
      return { ...base, bm25: bm25Of(base.texts, base.options) };
    },
  });
}

/** The BM25 baseline with default settings. */
export const bm25Rag = createBm25Rag();
