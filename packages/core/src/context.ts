import { InvalidArgumentError } from './contracts/errors.js';
import { DEFAULT_BUDGET_TOKENS } from './contracts/method.js';
import type { Tokenizer } from './contracts/tokenizer.js';
import type { Chunk, Retrieval, RetrievedItem } from './contracts/types.js';
import { provenanceOf } from './provenance.js';

/** Options of {@link packContext}. */
export interface PackContextOptions {
  /** Tokenizer that counts the budget. */
  tokenizer: Tokenizer;
  /** How an item is written into the context. @default `[${item.id}] ${item.text}` */
  render?: (item: RetrievedItem) => string;
  /** Written between items. @default '\n\n' */
  separator?: string;
  /**
   * When the next item does not fit whole, write its head into the remaining budget (when at
   * least `minTruncatedTokens` remain) and stop. With `false`, stop at the first item that does
   * not fit. @default true
   */
  truncate?: boolean;
  /**
   * With `truncate: false`: leave out an item that does not fit whole and go on with the next ones,
   * taking each that still fits (greedy packing in rank order), instead of stopping. @default false
   */
  skip?: boolean;
  /** Smallest remainder worth filling with a truncated item. @default 32 */
  minTruncatedTokens?: number;
}

/** What {@link packContext} returns: the context text, the items in it, its tokens, what was left out. */
export interface PackedContext {
  context: string;
  /** Items that made it into the context (a truncated item keeps its full `text`). */
  items: RetrievedItem[];
  tokens: number;
  /** Items left out for lack of budget. */
  dropped: number;
  /** Id of the item written only in part, if any. */
  truncated?: string;
}

/**
 * How {@link packContext} writes an item into the context: the item id in brackets (what answers
 * cite), then its text. A method that counts its items' tokens ahead of packing renders them so.
 */
export function renderItem(item: RetrievedItem): string {
  return `[${item.id}] ${item.text}`;
}

/**
 * Pack ranked items into a context of at most `budgetTokens` tokens, in the given order, keeping
 * each item's provenance. Items are taken whole until one does not fit.
 *
 * With a tokenizer whose counts add up across a blank line (tiktoken's), the context is counted
 * from its parts, so packing costs one (memoized) count per item rather than a count of the whole
 * context; `tokens` is exact either way.
 */
export function packContext(
  items: readonly RetrievedItem[],
  budgetTokens: number,
  options: PackContextOptions,
): PackedContext {
  if (!Number.isFinite(budgetTokens) || budgetTokens < 0) {
    throw new InvalidArgumentError(
      'budgetTokens',
      `packContext: budgetTokens must be a non-negative number, got ${budgetTokens}.`,
    );
  }
  const { tokenizer } = options;
  const render = options.render ?? renderItem;
  const separator = options.separator ?? '\n\n';
  const truncate = options.truncate ?? true;
  const skip = !truncate && options.skip === true;
  const minTruncated = options.minTruncatedTokens ?? 32;
  // Parts are trimmed so each starts with a non-space character: the additivity condition.
  const additive = tokenizer.additiveAfterBlankLine === true && /^\s*\n\n\s*$/.test(separator);

  const parts: string[] = [];
  const kept: RetrievedItem[] = [];
  // tokens of the parts so far when the last one is followed by nothing / by the separator
  let used = 0;
  let usedWithSeparator = 0;
  let truncated: string | undefined;
  for (const item of items) {
    const text = render(item).trim();
    if (text === '') continue;
    const cost = tokenizer.count(text);
    if (usedWithSeparator + cost <= budgetTokens) {
      parts.push(text);
      kept.push(item);
      used = usedWithSeparator + cost;
      usedWithSeparator += suffixedCount(tokenizer, text, cost, separator);
      continue;
    }
    if (skip) continue;
    const remaining = budgetTokens - usedWithSeparator;
    if (truncate && remaining >= minTruncated) {
      const head = tokenizer.truncate(text, remaining).trim();
      if (head !== '') {
        parts.push(head);
        kept.push(item);
        used = usedWithSeparator + tokenizer.count(head);
        truncated = item.id;
      }
    }
    break;
  }
  let context = parts.join(separator);
  let tokens = additive ? used : tokenizer.count(context);
  // Only for tokenizers whose counts need not add up over the joins: trim until the whole fits.
  while (tokens > budgetTokens && parts.length > 0) {
    const last = parts.length - 1;
    const lastTokens = tokenizer.count(parts[last]!);
    const excess = tokens - budgetTokens;
    if (lastTokens > excess + 1) {
      parts[last] = tokenizer.truncate(parts[last]!, lastTokens - excess - 1);
      truncated = kept[last]!.id;
    } else {
      parts.pop();
      if (kept.pop()?.id === truncated) truncated = undefined;
    }
    context = parts.join(separator);
    tokens = tokenizer.count(context);
  }
  const result: PackedContext = { context, items: kept, tokens, dropped: items.length - kept.length };
  if (truncated !== undefined) result.truncated = truncated;
  return result;
}

/**
 * `tokenizer.count(text + suffix)`, given `cost = tokenizer.count(text)`: with a tokenizer whose
 * counts add up before a space (`additiveBeforeSpace`), only the text's last word is counted again
 * (alone, and followed by the suffix), rather than the whole text. Exact: split at the text's last
 * space after a letter, digit or punctuation mark, `text` and `text + suffix` both add up there, and
 * share what precedes it.
 */
export function suffixedCount(tokenizer: Tokenizer, text: string, cost: number, suffix: string): number {
  if (tokenizer.additiveBeforeSpace === true) {
    for (let i = text.length - 1; i > 0; i--) {
      if (text.charCodeAt(i) !== 32 || !AFTER_WORD.test(text[i - 1]!)) continue;
      const tail = text.slice(i);
      return cost - tokenizer.count(tail) + tokenizer.count(tail + suffix);
    }
  }
  return tokenizer.count(text + suffix);
}

/** A character after which a space starts a piece of the tokenizer (see `additiveBeforeSpace`). */
const AFTER_WORD = /^[\p{L}\p{N}\p{P}]$/u;

/**
 * `tokenizer.count(prefix + text)`, given `cost = tokenizer.count(text)` (counted before, or saved
 * with an index): with a tokenizer whose counts add up before a space (`additiveBeforeSpace`), only
 * the text's first word is counted, alone and after the prefix, rather than the whole text. Exact:
 * split at the text's first space after a letter, digit or punctuation mark, `prefix + text` and
 * `text` both add up there, and share what follows.
 */
export function prefixedCount(tokenizer: Tokenizer, prefix: string, text: string, cost: number): number {
  if (tokenizer.additiveBeforeSpace === true) {
    for (let i = text.indexOf(' ', 1); i > 0; i = text.indexOf(' ', i + 1)) {
      if (!AFTER_WORD.test(text[i - 1]!)) continue;
      const head = text.slice(0, i);
      return cost - tokenizer.count(head) + tokenizer.count(prefix + head);
    }
  }
  return tokenizer.count(prefix + text);
}

/**
 * A chunk as a retrieved item (kind `'chunk'`), shown by `text` (e.g. with its title line), with its
 * provenance: the chunk, its document, and its `location` when it has one.
 */
export function chunkItem(
  chunk: Pick<Chunk, 'id' | 'docId' | 'location'>,
  text: string,
  score: number,
): RetrievedItem {
  return { id: chunk.id, kind: 'chunk', text, score, source: provenanceOf([chunk]) };
}

/**
 * How many of `count` units of `meanTokens` tokens on average to rank for a context of
 * `budgetTokens`: enough to fill it 1.5 times over, plus 5 spare, and at most `count`.
 */
export function rankDepthFor(count: number, budgetTokens: number, meanTokens: number): number {
  return Math.min(count, Math.ceil((budgetTokens / Math.max(1, meanTokens)) * 1.5) + 5);
}

/** Options of {@link firstItems}. */
export interface FirstItemsOptions {
  /** Tokenizer that counts the new context. */
  tokenizer: Tokenizer;
  /** Token budget of the new context. @default {@link DEFAULT_BUDGET_TOKENS} */
  budgetTokens?: number;
}

/**
 * The first `k` items of `retrieval`, in context order, with a context of those items alone: each
 * written `[id] text` ({@link packContext}'s default), blank lines between, within `budgetTokens`
 * (the last item's text is cut when it does not fit whole). A method's own layout of its context
 * (group headings, labels) is not kept. The subgraph is the method's, and the trace gains
 * `firstItems: { k, retrieved }` (`retrieved`: how many items the method returned). A retrieval of
 * at most `k` items is returned as it is.
 *
 * What "k results" means to a caller: a graph method packs several items per ranked unit (a
 * community and its members, an entity and its relations), so its own `topK` (a ranking depth) does
 * not bound the number of items; this does.
 *
 * @throws InvalidArgumentError when `k` is not a positive integer.
 * @example
 * const three = firstItems(await nodeRag.retrieve(index, question), 3, { tokenizer: getTokenizer() });
 */
export function firstItems(retrieval: Retrieval, k: number, options: FirstItemsOptions): Retrieval {
  if (!Number.isInteger(k) || k < 1) {
    throw new InvalidArgumentError('k', `firstItems: k must be a positive integer, got ${k}.`);
  }
  if (retrieval.items.length <= k) return retrieval;
  const packed = packContext(retrieval.items.slice(0, k), options.budgetTokens ?? DEFAULT_BUDGET_TOKENS, {
    tokenizer: options.tokenizer,
    // Keep the k-th item even when only a few tokens of its text fit.
    minTruncatedTokens: 1,
  });
  const out: Retrieval = {
    context: packed.context,
    items: packed.items,
    tokens: packed.tokens,
    trace: { ...retrieval.trace, firstItems: { k, retrieved: retrieval.items.length } },
  };
  if (retrieval.subgraph) out.subgraph = retrieval.subgraph;
  return out;
}
