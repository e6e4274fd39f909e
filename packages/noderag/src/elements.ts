/**
 * G1 → G3 of NodeRAG (§2.3, appendix C.2-C.3): attributes of important entities, high-level elements
 * and overviews of communities, and the semantic-matching edges of high-level elements.
 */
import type { ParseIssue, TitleDescription, Tokenizer } from '@grag/core';
import { type HeteroGraph, type MatchingNode, semanticMatchingOffThread } from '@grag/heterograph';
import { bump } from './units.js';

/** The leading texts whose tokens (each plus one for its separator) fit `budget`; at least the first, truncated. */
export function fitTexts(texts: readonly string[], budget: number, tokenizer: Tokenizer): string[] {
  const out: string[] = [];
  let used = 0;
  for (const text of texts) {
    const cost = tokenizer.count(text) + 1;
    if (used + cost > budget) {
      if (out.length === 0) out.push(tokenizer.truncate(text, budget));
      break;
    }
    out.push(text);
    used += cost;
  }
  return out;
}

/**
 * The material an entity's attribute summarizes: the texts of its semantic units, then of its
 * relationships, the most repeated first within each.
 */
export function attributeMaterial(graph: HeteroGraph, entity: string): string[] {
  return [...graph.neighbors(entity, 'S'), ...graph.neighbors(entity, 'R')]
    .map((key) => graph.node(key))
    .sort((a, b) => (a.type === b.type ? b.weight - a.weight : a.type === 'S' ? -1 : 1))
    .map((a) => a.text);
}

/**
 * Lay one attribute node `A:<name>` per important entity with a non-empty summary, joined to its
 * entity (edge `a`) and carrying the entity's provenance. Returns how many were laid and the
 * entities left out (`empty-attribute`).
 */
export function layAttributes(input: {
  graph: HeteroGraph;
  entities: readonly string[];
  /** The summary of each entity (same order). */
  summaries: readonly string[];
}): { attributes: number; skipped: Record<string, number> } {
  const { graph } = input;
  const skipped: Record<string, number> = {};
  let attributes = 0;
  input.entities.forEach((entity, i) => {
    const summary = input.summaries[i]!;
    if (summary === '') {
      bump(skipped, 'empty-attribute');
      return;
    }
    const node = graph.node(entity);
    const aKey = `A:${entity.slice(2)}`;
    graph.addNode(aKey, 'A', { text: summary, chunks: node.chunks, docs: node.docs });
    graph.connect(entity, aKey, 'a');
    attributes++;
  });
  return { attributes, skipped };
}

/** The S and A members of each of `count` communities, in the order of `communities`. */
export function communityMembers(
  graph: HeteroGraph,
  communities: ReadonlyMap<string, number>,
  count: number,
): string[][] {
  const members: string[][] = Array.from({ length: count }, () => []);
  for (const [key, c] of communities) {
    const type = graph.node(key).type;
    if (type === 'S' || type === 'A') members[c]!.push(key);
  }
  return members;
}

/** What {@link layHighLevelElements} laid. */
export interface LaidElements {
  /** The H keys, in community order. */
  highKeys: string[];
  /** The members of each community with an H node, and the H nodes, for semantic matching. */
  matching: Omit<MatchingNode, 'vector'>[];
  /** Inputs left out: `empty-high-level-element`, `untitled-high-level-element`. */
  skipped: Record<string, number>;
  /** Parse issues the model's answers had, by kind. */
  parseIssues: Record<string, number>;
}

/**
 * Lay, for each community with members and a non-empty description, a high-level element `H:<c>`
 * (the description) and, when titled, its overview `O:<c>` (the title), joined by an `o` edge; both
 * carry the chunks and documents of the community's members.
 */
export function layHighLevelElements(input: {
  graph: HeteroGraph;
  /** Communities with members: their index and S/A members. */
  communities: readonly { c: number; m: readonly string[] }[];
  /** The model's title and description of each (same order). */
  elements: readonly (TitleDescription & { issues: readonly ParseIssue[] })[];
}): LaidElements {
  const { graph } = input;
  const out: LaidElements = { highKeys: [], matching: [], skipped: {}, parseIssues: {} };
  input.communities.forEach(({ m, c }, i) => {
    const { title, description, issues } = input.elements[i]!;
    for (const issue of issues) bump(out.parseIssues, issue.kind);
    const text = description.trim();
    if (text === '') {
      bump(out.skipped, 'empty-high-level-element');
      return;
    }
    const chunkSet = new Set<string>();
    const docSet = new Set<string>();
    for (const key of m) {
      for (const ch of graph.node(key).chunks) chunkSet.add(ch);
      for (const d of graph.node(key).docs) docSet.add(d);
    }
    const hKey = `H:${c}`;
    graph.addNode(hKey, 'H', { text, chunks: chunkSet, docs: docSet, extra: { community: c } });
    out.highKeys.push(hKey);
    const name = title.trim();
    if (name !== '') {
      const oKey = `O:${c}`;
      graph.addNode(oKey, 'O', { text: name, chunks: chunkSet, docs: docSet, extra: { community: c } });
      graph.connect(hKey, oKey, 'o');
    } else {
      bump(out.skipped, 'untitled-high-level-element');
    }
    for (const key of m)
      out.matching.push({ id: key, type: graph.node(key).type as 'S' | 'A', community: c });
    out.matching.push({ id: hKey, type: 'H', community: c });
  });
  return out;
}

/**
 * Semantic matching (Algorithm 2): the `[member, H]` pairs to join, by k-means over the embeddings
 * of `nodes` (K = ⌈√n⌉, same community and cluster), run on a worker thread (the caller's thread
 * is free meanwhile). With `denseMatchingClusterSize` > 0 and a mean cluster size n/K at most
 * that, the official code's shortcut instead: every S and A node to the H of its community.
 * `clusters` is the K used (0 for the shortcut).
 */
export async function matchHighLevelElements(input: {
  nodes: readonly MatchingNode[];
  denseMatchingClusterSize: number;
  seed: number;
}): Promise<{ edges: [member: string, high: string][]; clusters: number }> {
  const { nodes } = input;
  const k = Math.ceil(Math.sqrt(nodes.length));
  if (input.denseMatchingClusterSize > 0 && nodes.length / k <= input.denseMatchingClusterSize) {
    const edges: [string, string][] = nodes
      .filter((node) => node.type !== 'H')
      .map((node) => [node.id, `H:${node.community}`]);
    return { edges, clusters: 0 };
  }
  const { edges, k: clusters } = await semanticMatchingOffThread(nodes, { seed: input.seed });
  return { edges, clusters };
}
