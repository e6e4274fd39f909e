/**
 * Scoring, ranking and greedy packing of the candidate communities (DA-RAG §5.1), and what the
 * retrieval reports of them: the items, the subgraph, the k chosen per layer, the traced communities.
 */
import type { RetrievedItem, Tokenizer } from '@grag/core';
import { packContext, renderItem } from '@grag/core/kit';
import type { FoundCommunity } from './community-search.js';
import { type CommunityMembers, communityText } from './members.js';
import type { DaRagQueryOptions } from './options.js';
import type { DaRagIndex, Layer } from './types.js';

/** A community with its members, assessed. */
export interface Candidate extends FoundCommunity, CommunityMembers {
  /** Score used to rank it (0-10). */
  score: number;
  /** The model's report ('' without one). */
  report: string;
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
}

/**
 * `tokenizer`, with the count of each item's text as `packContext` writes it (`renderItem`, trimmed)
 * known in advance where that text is a head, a blank line and the community's members: the head's
 * count plus the members' (known from rendering them), which is the text's count for a tokenizer
 * whose counts add up across a blank line (`additiveAfterBlankLine`) when the members start with a
 * non-whitespace character; and so that text followed by a blank line (as `packContext` counts an
 * item with its separator) where the members' count with a blank line is known. Any other text is
 * counted by `tokenizer`.
 */
function itemCounting(
  tokenizer: Tokenizer,
  candidates: readonly Candidate[],
  items: readonly RetrievedItem[],
): Tokenizer {
  if (tokenizer.additiveAfterBlankLine !== true) return tokenizer;
  const known = new Map<string, number>();
  candidates.forEach((c, i) => {
    const text = renderItem(items[i]!).trim();
    const suffix = `\n\n${c.members}`;
    if (!/^\S/.test(c.members) || !text.endsWith(suffix)) return;
    const head = text.slice(0, text.length - c.members.length);
    const headTokens = tokenizer.count(head);
    known.set(text, headTokens + c.memberTokens);
    // Followed by the blank line that separates it from the next item: the members' count with it.
    if (c.memberTokensWithBlankLine !== undefined) {
      known.set(`${text}\n\n`, headTokens + c.memberTokensWithBlankLine);
    }
  });
  if (known.size === 0) return tokenizer;
  return {
    name: tokenizer.name,
    additiveAfterBlankLine: true,
    count: (text) => known.get(text) ?? tokenizer.count(text),
    encode: (text) => tokenizer.encode(text),
    decode: (tokens) => tokenizer.decode(tokens),
    truncate: (text, maxTokens) => tokenizer.truncate(text, maxTokens),
  };
}

/** Keys of a layer's nodes: chunk ids for the chunk layer, entity ids otherwise. */
function keyOf(index: DaRagIndex, layer: Layer, v: number): string {
  return layer === 'chunk' ? index.chunks[v]!.id : index.entities[v]!.id;
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
  const items: RetrievedItem[] = limited.map((c) => ({
    id: c.id,
    kind: 'community',
    text: communityText(c, input.communityText),
    score: c.score,
    source: { chunkIds: c.chunkIds, docIds: c.docIds, ...(c.locations ? { locations: c.locations } : {}) },
  }));
  const tokenizer = itemCounting(input.tokenizer, limited, items);
  const packed = packContext(
    items,
    input.budget,
    input.packing === 'greedy' ? { tokenizer, truncate: false, skip: true } : { tokenizer },
  );
  const packedIds = new Set(packed.items.map((i) => i.id));

  const nodes = new Set<string>();
  const edges = new Map<string, [string, string]>();
  const prefix = (layer: Layer) => (layer === 'chunk' ? 'chunk:' : 'entity:');
  for (const c of ranked) {
    if (!packedIds.has(c.id)) continue;
    for (const v of c.nodes) nodes.add(prefix(c.layer) + keyOf(index, c.layer, v));
    for (const [a, b] of c.edges) {
      const x = prefix(c.layer) + keyOf(index, c.layer, a);
      const y = prefix(c.layer) + keyOf(index, c.layer, b);
      const pair: [string, string] = x < y ? [x, y] : [y, x];
      edges.set(JSON.stringify(pair), pair);
    }
  }
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
    ranked: items.length,
    subgraph: { nodes: [...nodes], edges: [...edges.values()] },
    chosenK,
    communities,
  };
}
