/** `grag query <index> "<question>"`: retrieve from a stored index, and answer. */
import { InvalidArgumentError, type Retrieval } from '@grag/core';
import { type CitedSource, citedSources, sourceLabel } from '@grag/core/kit';
import type { CliIO } from './cli.js';
import type { GragConfig } from './config.js';
import { indexMethod } from './index-method.js';
import { printable } from './printable.js';
import { createProviders } from './providers.js';
import { type IndexTarget, readTargetManifest } from './store.js';

/** What `grag query` prints with `--json`. */
export interface QueryResult {
  question: string;
  method: string;
  answer?: string;
  /** Ids of the retrieved items the answer cites. */
  citations?: string[];
  /**
   * What each citation points at, in citation order: the item's documents, its places in the
   * source files (`locations`: pages, sections, rows) and their label (`report.pdf p. 3`).
   */
  sources?: CitedSource[];
  /** Every item's `source.locations` is there when its documents were loaded with segments. */
  retrieval: Retrieval;
  timings: { retrieveMs: number; answerMs?: number };
}

/**
 * Load the index in `target` with the providers its manifest names, retrieve for `question`, and
 * answer from the retrieved items unless `options.answer` is false.
 */
export async function queryIndex(
  target: IndexTarget,
  question: string,
  config: GragConfig,
  options: { topK?: number; answer: boolean; retrieve?: Record<string, unknown> },
): Promise<{ result: QueryResult; summary: string }> {
  if (question.trim() === '')
    throw new InvalidArgumentError(
      'question',
      'The question is empty. Usage: grag query <dir> "<question>".',
    );
  const manifest = await readTargetManifest(target);
  const entry = indexMethod(target.location, manifest.method);
  const { ctx, summary } = createProviders(config, { manifest });
  const index = await entry.method.load(target.store, ctx);
  const t0 = performance.now();
  const retrieval: Retrieval = await entry.method.retrieve(index, question, {
    ...options.retrieve,
    budgetTokens: config.budget,
    ...(options.topK !== undefined ? { topK: options.topK } : {}),
  });
  const retrieveMs = performance.now() - t0;
  const result: QueryResult = { question, method: entry.name, retrieval, timings: { retrieveMs } };
  if (options.answer) {
    const t1 = performance.now();
    const answer = await ctx.tasks.answer(
      question,
      retrieval.items.map((item) => ({ id: item.id, text: item.text })),
    );
    result.answer = answer.answer;
    result.citations = answer.citations;
    result.sources = citedSources(answer.citations, retrieval.items);
    result.timings.answerMs = performance.now() - t1;
  }
  return { result, summary };
}

/** Places shown per item or citation before `(+N more)`. */
const SHOWN_PLACES = 3;

/**
 * Where an item comes from: its first places in the source files, else its first documents (a
 * community of a graph method can come from hundreds).
 */
const fromLabel = (source: Retrieval['items'][number]['source']): string => sourceLabel(source, SHOWN_PLACES);

/**
 * Print a query result for people: the answer and its sources (`[id] report.pdf p. 3`: each cited
 * item's locations, else its documents), then the top `maxItems` items with theirs. Everything that
 * comes from the indexed documents or the model (ids, passages, locations, the answer) is printed
 * through {@link printable}, so no escape sequence in it reaches the terminal.
 */
export function printQuery(io: CliIO, r: QueryResult, maxItems = 5): void {
  const w = (s: string) => io.stdout.write(`${s}\n`);
  const p = (s: string) => printable(s);
  w(`Q: ${p(r.question)}`);
  if (r.answer !== undefined) {
    w(`A: ${printable(r.answer, { lines: true })}`);
    if (r.citations?.length) {
      const sources = r.citations.map((id) => {
        const item = r.retrieval.items.find((i) => i.id === id);
        const label = item ? fromLabel(item.source) : '';
        return p(label ? `[${id}] ${label}` : `[${id}]`);
      });
      w(`   sources: ${sources.join('; ')}`);
    }
  }
  w(
    `Context: ${r.retrieval.items.length} items, ${r.retrieval.tokens} tokens (${r.method}, retrieval ${r.timings.retrieveMs.toFixed(1)} ms${r.timings.answerMs !== undefined ? `, answer ${r.timings.answerMs.toFixed(1)} ms` : ''})`,
  );
  for (const item of r.retrieval.items.slice(0, maxItems)) {
    const preview = p(item.text.replace(/\s+/g, ' ').slice(0, 100));
    w(
      `  [${p(item.id)}] ${p(item.kind)} ${item.score.toFixed(3)} from ${p(fromLabel(item.source))}: ${preview}${item.text.length > 100 ? '…' : ''}`,
    );
  }
  if (r.retrieval.items.length > maxItems) w(`  … ${r.retrieval.items.length - maxItems} more`);
}
