/**
 * Scoring, ranking and greedy packing of the candidate communities (DA-RAG §5.1), and what the
 * retrieval reports of them: the items, the subgraph, the k chosen per layer, the traced communities.
 */
import type { RetrievedItem, Tokenizer } from '@grag/core';
import {
  chunkItem,
  countingWith,
  type PackedContext,
  packContext,
  prefixedCount,
  renderItem,
} from '@grag/core/kit';
import type { FoundCommunity } from './community-search.js';
import { lineCountsOf } from './line-counts.js';
import { type CommunityMembers, communityText } from './members.js';
import type { DaRagQueryOptions } from './options.js';
import { topByScore } from './relevance.js';
import type { DaRagIndex, Layer } from './types.js';

/** A community with its members, assessed. */
export interface Candidate extends FoundCommunity, CommunityMembers {
  /** Score used to rank it (0-10). */
  score: number;
  /** The model's report ('' without one). */
  report: string;
  /**
   * Its assessment not run yet (`report` is ''): its score does not come from the assessment, and
   * {@link assessForPacking} runs it only when packing reads the report.
   */
  deferred?: boolean;
}

/** One community of the trace, in node keys (chunk ids for the chunk layer, entity ids otherwise). */
export interface TracedCommunity {
  id: string;
  layer: Layer;
  /** k values that gave it (empty for 1-hop retrieval). */
  k: number[];
  nodes: string[];
  edges: [string, string][];
  qrScore: number;
  initialQrScore: number | null;
  /** Score used to rank it (0-10). */
  score: number;
  report: string;
  /** Whether it made it into the context. */
  packed: boolean;
}

/**
 * The `'evidence'` score of a community: 10 × the mean relevance of the chunks it packs, on the
 * chunk relevance (one scale for every layer); 0 without chunks.
 */
export function evidenceScore(chunks: readonly number[], chunkRelevance: ArrayLike<number>): number {
  let sum = 0;
  for (const c of chunks) sum += chunkRelevance[c]!;
  return chunks.length === 0 ? 0 : (10 * sum) / chunks.length;
}

const LAYER_ORDER: Record<Layer, number> = { chunk: 0, kg: 1, sim: 2 };

/** Candidates by descending score, then QRScore, then layer (chunk, kg, sim), then id. */
export function rankCandidates<C extends Pick<Candidate, 'score' | 'qrScore' | 'layer' | 'id'>>(
  candidates: readonly C[],
): C[] {
  return [...candidates].sort(
    (x, y) =>
      y.score - x.score ||
      y.qrScore - x.qrScore ||
      LAYER_ORDER[x.layer] - LAYER_ORDER[y.layer] ||
      x.id.localeCompare(y.id),
  );
}

/**
 * `ranked` without the candidates whose layer and nodes repeat an earlier one's (several anchors can
 * find one community).
 */
export function distinctCandidates<C extends Pick<Candidate, 'layer' | 'nodes'>>(ranked: readonly C[]): C[] {
  const seen = new Set<string>();
  return ranked.filter((c) => {
    const key = `${c.layer}:${[...c.nodes].sort((a, b) => a - b).join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The chunk community that anchors the working subgraphs (§4): the highest score, then QRScore. */
export function bestCandidate<C extends Pick<Candidate, 'score' | 'qrScore'>>(candidates: readonly C[]): C {
  return [...candidates].sort((x, y) => y.score - x.score || y.qrScore - x.qrScore)[0]!;
}

/** Input of {@link packCommunities}. */
export interface PackInput {
  index: DaRagIndex;
  /** Every candidate, ranked ({@link rankCandidates}). */
  ranked: readonly Candidate[];
  budget: number;
  /** Most communities packed. */
  topK: number | undefined;
  communityText: DaRagQueryOptions['communityText'];
  packing: DaRagQueryOptions['packing'];
  tokenizer: Tokenizer;
  /** `fillBudget`: the relevance of every chunk, by which chunks fill the room the communities leave. */
  fill?: Float64Array;
}

/**
 * The counts of a candidate's item text as `packContext` writes it (`renderItem`, trimmed), alone
 * and followed by a blank line, where they follow from its members' counts (known from rendering
 * them) and a count of the text before the members' first break, for a tokenizer whose counts add
 * up across a blank line (`additiveAfterBlankLine`, and across a line break before a letter or digit
 * with `additiveAfterLineBreak`):
 *
 * - a report: the text is a head (`[id] <report>`), a blank line and the members, which start with a
 *   non-whitespace character; its count is the head's (with the blank line) plus the members';
 * - no report: the text is `[id] ` and the members, whose first line `L` ends at a break (a blank
 *   line before a non-whitespace character, or a line break before a letter or digit) after which
 *   counts add up; its count is that of `[id] L<break>` plus the members' less that of `L<break>`.
 *
 * The second count, with a blank line after, where the members' count with one is known. Nothing
 * when neither case holds (the text is counted).
 */
function knownCounts(
  tokenizer: Tokenizer,
  c: Candidate,
  item: RetrievedItem,
): { text: string; count: number; withBlankLine?: number } | undefined {
  if (tokenizer.additiveAfterBlankLine !== true) return undefined;
  const text = renderItem(item).trim();
  if (!text.endsWith(c.members)) return undefined;
  const head = text.slice(0, text.length - c.members.length);
  // Counted as head + members: the head's tokens, then what the members add to them.
  let headTokens: number;
  let membersAdd = c.memberTokens;
  if (head.endsWith('\n\n') && /^\S/.test(c.members)) {
    headTokens = tokenizer.count(head);
  } else {
    const end = firstAdditiveBreak(tokenizer, c.members);
    if (end === undefined) return undefined;
    const line = c.members.slice(0, end);
    const lineTokens = tokenizer.count(line);
    headTokens = prefixedCount(tokenizer, head, line, lineTokens);
    membersAdd -= lineTokens;
  }
  return {
    text,
    count: headTokens + membersAdd,
    // Followed by the blank line that separates it from the next item: the members' count with it.
    ...(c.memberTokensWithBlankLine === undefined
      ? {}
      : { withBlankLine: headTokens + membersAdd - c.memberTokens + c.memberTokensWithBlankLine }),
  };
}

/**
 * Where the first line of `members` ends, with its break, when `tokenizer`'s counts add up after it:
 * a blank line before a non-whitespace character, or (with `additiveAfterLineBreak`) a line break
 * before a letter or digit, whichever comes first; `undefined` when there is none.
 */
function firstAdditiveBreak(tokenizer: Tokenizer, members: string): number | undefined {
  const blank = /\n\n(?=\S)/.exec(members);
  const lineBreak = tokenizer.additiveAfterLineBreak === true ? /\n(?=[\p{L}\p{N}])/u.exec(members) : null;
  const ends: number[] = [];
  if (blank) ends.push(blank.index + 2);
  if (lineBreak) ends.push(lineBreak.index + 1);
  return ends.length === 0 ? undefined : Math.min(...ends);
}

/**
 * `tokenizer`, with the count of each item's text, and of it followed by a blank line, known in
 * advance where {@link knownCounts} knows them. Any other text is counted by `tokenizer`.
 */
function itemCounting(
  tokenizer: Tokenizer,
  candidates: readonly Candidate[],
  items: readonly RetrievedItem[],
): Tokenizer {
  if (tokenizer.additiveAfterBlankLine !== true) return tokenizer;
  const known = new Map<string, number>();
  candidates.forEach((c, i) => {
    const counts = knownCounts(tokenizer, c, items[i]!);
    if (counts === undefined) return;
    known.set(counts.text, counts.count);
    if (counts.withBlankLine !== undefined) known.set(`${counts.text}\n\n`, counts.withBlankLine);
  });
  if (known.size === 0) return tokenizer;
  return countingWith(tokenizer, (text) => known.get(text) ?? tokenizer.count(text));
}

/** A candidate as a retrieved item: its text by `communityText`, its score and provenance. */
function itemOf(c: Candidate, mode: DaRagQueryOptions['communityText']): RetrievedItem {
  return {
    id: c.id,
    kind: 'community',
    text: communityText(c, mode),
    score: c.score,
    source: { chunkIds: c.chunkIds, docIds: c.docIds, ...(c.locations ? { locations: c.locations } : {}) },
  };
}

/**
 * Whether greedy packing leaves deferred candidate `c` out whatever its report, with `room` tokens
 * left: its item, `[id] <report>\n\n<members>` or `[id] <members>` with an empty report, counts more
 * than that either way. With a non-empty report and members that start and end with a non-whitespace
 * character, {@link itemCounting} counts it as the head's count (at least 1) plus the members'; the
 * text without a report is counted only when that bound does not settle it.
 */
function leftOutWhateverReport(
  tokenizer: Tokenizer,
  c: Candidate,
  mode: DaRagQueryOptions['communityText'],
  room: number,
): boolean {
  if (mode === 'report') return false;
  if (mode === 'report+members') {
    const headed =
      tokenizer.additiveAfterBlankLine === true && /^\S/.test(c.members) && /\S$/.test(c.members);
    if (!headed || c.memberTokens + 1 <= room) return false;
  }
  return tokenizer.count(renderItem(itemOf({ ...c, report: '' }, mode)).trim()) > room;
}

/**
 * Run the deferred assessments that packing reads (§5.1's packing of `input.ranked`, as
 * {@link packCommunities} does it), in rank order: one that greedy packing leaves out whatever its
 * report ({@link leftOutWhateverReport}) stays deferred, and so do all after the
 * first that `'truncate'` packing does not fit whole. Returns `input.ranked` with those assessed.
 * {@link packCommunities} then gives what it gives with every candidate assessed, as a deferred one
 * would not have been packed.
 */
export async function assessForPacking(
  input: PackInput,
  assess: (c: Candidate) => Promise<Candidate>,
): Promise<Candidate[]> {
  const ranked = [...input.ranked];
  const limit = input.topK === undefined ? ranked.length : Math.min(input.topK, ranked.length);
  const { tokenizer, budget, communityText: mode } = input;
  const skip = input.packing === 'greedy';
  // Tokens of the packed items, each followed by a blank line (packContext's `usedWithSeparator`).
  let used = 0;
  for (let i = 0; i < limit; i++) {
    let c = ranked[i]!;
    if (c.deferred === true) {
      if (skip && leftOutWhateverReport(tokenizer, c, mode, budget - used)) continue;
      c = await assess(c);
      ranked[i] = c;
    }
    const item = itemOf(c, mode);
    const counts = knownCounts(tokenizer, c, item);
    const text = counts?.text ?? renderItem(item).trim();
    if (text === '') continue;
    const cost = counts?.count ?? tokenizer.count(text);
    if (used + cost <= budget) {
      used += counts?.withBlankLine ?? tokenizer.count(`${text}\n\n`);
      continue;
    }
    if (!skip) break;
  }
  return ranked;
}

/** Keys of a layer's nodes: chunk ids for the chunk layer, entity ids otherwise. */
function keyOf(index: DaRagIndex, layer: Layer, v: number): string {
  return layer === 'chunk' ? index.chunks[v]!.id : index.entities[v]!.id;
}

/** The prefixed node keys of a layer's nodes (`chunk:<id>` or `entity:<id>`), made once per node list. */
const prefixedKeys = new WeakMap<readonly { id: string }[], string[]>();

function keysOf(nodes: readonly { id: string }[], prefix: string): string[] {
  let keys = prefixedKeys.get(nodes);
  if (keys === undefined) {
    keys = nodes.map((node) => prefix + node.id);
    prefixedKeys.set(nodes, keys);
  }
  return keys;
}

/**
 * The subgraph of the packed communities (in rank order): nodes `chunk:<id>` / `entity:<id>`, and
 * each edge once, as its two node keys in string order, in the order edges first appear. The KG and
 * Similarity layers share the `entity:` keys, so an edge of both is one edge. Node keys are distinct
 * within a layer, so an edge is known by its key class (chunk or entity) and its two node indices.
 */
export function packedSubgraph(
  index: DaRagIndex,
  packed: readonly Pick<Candidate, 'layer' | 'nodes' | 'edges'>[],
): { nodes: string[]; edges: [string, string][] } {
  const nodes = new Set<string>();
  const edges: [string, string][] = [];
  const seen = { chunk: new Set<number>(), entity: new Set<number>() };
  for (const c of packed) {
    const keyClass = c.layer === 'chunk' ? 'chunk' : 'entity';
    const keys = keyClass === 'chunk' ? keysOf(index.chunks, 'chunk:') : keysOf(index.entities, 'entity:');
    const n = keys.length;
    const seenPairs = seen[keyClass];
    for (const v of c.nodes) nodes.add(keys[v]!);
    for (const [a, b] of c.edges) {
      const pair = a < b ? a * n + b : b * n + a;
      if (seenPairs.has(pair)) continue;
      seenPairs.add(pair);
      const x = keys[a]!;
      const y = keys[b]!;
      edges.push(x < y ? [x, y] : [y, x]);
    }
  }
  return { nodes: [...nodes], edges };
}

/**
 * Pack the ranked communities into the budget (§5.1; whole, or the last one truncated, by
 * `packing`), and report them: the packed items,
 * the subgraph of the packed communities (nodes `chunk:<id>` / `entity:<id>`), the k values of the
 * packed communities per layer, and every candidate as traced.
 */
export function packCommunities(input: PackInput) {
  const { index, ranked } = input;
  const limited = input.topK === undefined ? ranked : ranked.slice(0, input.topK);
  // A deferred candidate is one packing would leave out whatever its report (see
  // `assessForPacking`): it is not offered.
  const offered = limited.filter((c) => c.deferred !== true);
  const items: RetrievedItem[] = offered.map((c) => itemOf(c, input.communityText));
  const tokenizer = itemCounting(input.tokenizer, offered, items);
  const communitiesOnly = packContext(
    items,
    input.budget,
    input.packing === 'greedy' ? { tokenizer, truncate: false, skip: true } : { tokenizer },
  );
  const packedIds = new Set(communitiesOnly.items.map((i) => i.id));
  // `'truncate'` packing stops at the first community that does not fit: then there is no room to fill.
  const stopped = input.packing === 'truncate' && communitiesOnly.items.length < offered.length;
  const packed =
    input.fill && !stopped
      ? fillRoom(input, input.fill, communitiesOnly, writtenChunks(input, offered, packedIds), tokenizer)
      : communitiesOnly;

  const subgraph = packedSubgraph(
    index,
    ranked.filter((c) => packedIds.has(c.id)),
  );
  const chosenK: Partial<Record<Layer, number[]>> = {};
  for (const c of ranked) {
    if (!packedIds.has(c.id) || c.ks.length === 0) continue;
    chosenK[c.layer] = [...(chosenK[c.layer] ?? []), ...c.ks].sort((a, b) => a - b);
  }
  const communities: TracedCommunity[] = ranked.map((c) => ({
    id: c.id,
    layer: c.layer,
    k: c.ks,
    nodes: c.nodes.map((v) => keyOf(index, c.layer, v)),
    edges: c.edges.map(([a, b]) => [keyOf(index, c.layer, a), keyOf(index, c.layer, b)]),
    qrScore: c.qrScore,
    initialQrScore: c.initialQrScore,
    score: c.score,
    report: c.report,
    packed: packedIds.has(c.id),
  }));
  return {
    packed,
    filled: packed.items.length - communitiesOnly.items.length,
    ranked: limited.length,
    subgraph,
    chosenK,
    communities,
  };
}

/** How many chunks of highest relevance {@link fillRoom} offers beyond those the context writes. */
const FILL_DEPTH = 200;

/** The chunks whose text the packed communities write: the members of packed chunk communities. */
function writtenChunks(
  input: PackInput,
  offered: readonly Candidate[],
  packedIds: ReadonlySet<string>,
): Set<number> {
  const written = new Set<number>();
  for (const c of offered) {
    if (c.layer !== 'chunk' || !packedIds.has(c.id)) continue;
    if (input.communityText === 'report' && c.report !== '') continue;
    for (const i of c.chunks) written.add(i);
  }
  return written;
}

/**
 * `fillBudget` (grag's): the packed communities, then the chunks of positive relevance not
 * `written`, most relevant first, while the budget lasts (the first that does not fit is cut to the
 * room left, as `packContext` does). The communities are packed again first, in their order, so
 * they are the same; nothing is added when the communities already end in a cut one.
 */
function fillRoom(
  input: PackInput,
  rel: Float64Array,
  packed: PackedContext,
  written: ReadonlySet<number>,
  tokenizer: Tokenizer,
): PackedContext {
  if (packed.truncated !== undefined || packed.tokens >= input.budget) return packed;
  const { index } = input;
  const fillers: RetrievedItem[] = [];
  // The counts of the fillers' rendered texts, from the saved counts of their chunk texts.
  const saved = lineCountsOf(index)?.chunks;
  const known = new Map<string, number>();
  for (const i of topByScore(rel, written.size + FILL_DEPTH)) {
    if (!(rel[i]! > 0)) break;
    if (written.has(i)) continue;
    const item = chunkItem(index.chunks[i]!, index.texts[i]!, rel[i]!);
    fillers.push(item);
    const text = renderItem(item).trim();
    const prefix = `[${item.id}] `;
    if (saved && text === prefix + item.text) {
      known.set(text, prefixedCount(tokenizer, prefix, item.text, saved[2 * i]!));
    }
  }
  if (fillers.length === 0) return packed;
  const counting = countingWith(tokenizer, (text) => known.get(text) ?? tokenizer.count(text));
  return packContext([...packed.items, ...fillers], input.budget, { tokenizer: counting });
}
