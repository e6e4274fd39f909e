import {
  type BuildContext,
  startBuild,
  type Chunk,
  chunkCorpus,
  cleanEntityName,
  type Document,
  InvalidArgumentError,
  isFittableEmbedder,
  type LinkableItem,
  linkEntities,
  normalizeEntityName,
  type ParseIssue,
  type SemanticUnitRecord,
  withTitle,
} from '@grag/core';
import {
  addSemanticEdges,
  HeteroGraph,
  importantEntities,
  leiden,
  type MatchingNode,
  semanticMatching,
} from '@grag/heterograph';
import { HnswIndex } from '@grag/hnsw';
import type { NodeRagOptions } from './options.js';

/** Counts of one build, stored in the index and its manifest. */
export interface NodeRagBuildStats {
  documents: number;
  chunks: number;
  /** Semantic units returned by the model (before identical ones merge). */
  extractedUnits: number;
  importantEntities: number;
  attributes: number;
  communities: number;
  /** Communities without semantic units or attributes (no high-level element made). */
  emptyCommunities: number;
  highLevelElements: number;
  semanticMatchingEdges: number;
  /** K of the semantic-matching k-means (0 when it was skipped). */
  semanticClusters: number;
  hnsw: { added: number; reinforced: number };
  /** Inputs left out, by reason (blank units, nameless entities, self-relations, empty summaries). */
  skipped: Record<string, number>;
  /** Parse issues reported by the tasks, by kind. */
  parseIssues: Record<string, number>;
  /** What entity linking did (absent when `entityLinking` is off). */
  linking?: {
    /** Distinct entity names before and canonical entities after linking. */
    names: number;
    entities: number;
    /** Documents whose title became an entity. */
    titleEntities: number;
    /** Title entities added to semantic units that write the title (a mention the extractor missed). */
    textMentions: number;
    /** Names folded into another entity (all rules). */
    folded: number;
  };
}

/** A built NodeRAG index: the heterograph, the vector index over embedded nodes, and the chunks. */
export interface NodeRagIndex {
  ctx: BuildContext;
  options: NodeRagOptions;
  graph: HeteroGraph;
  /** HNSW index over the embedded nodes (T, S, A, H); vector id i is node `vectorKeys[i]`. */
  vectors: HnswIndex;
  vectorKeys: string[];
  chunks: Chunk[];
  stats: NodeRagBuildStats;
}

function bump(record: Record<string, number>, key: string, by = 1): void {
  record[key] = (record[key] ?? 0) + by;
}

/** Text chunks with the text each T node carries (title line + chunk text). */
export function textUnits(
  docs: readonly Document[],
  ctx: BuildContext,
  o: NodeRagOptions,
): { chunks: Chunk[]; texts: string[] } {
  if (docs.length === 0) {
    throw new InvalidArgumentError('docs', 'noderag build: the corpus is empty; pass at least one document.');
  }
  const titles = new Map(docs.map((d) => [d.id, d.title]));
  const chunks = chunkCorpus(docs, {
    chunking: o.chunking,
    chunkSize: o.chunkSize,
    overlap: o.overlap,
    tokenizer: ctx.tokenizer,
  });
  const texts = chunks.map((chunk) => withTitle(chunk.text, titles.get(chunk.docId)?.trim(), o.includeTitle));
  return { chunks, texts };
}

/** Keep the leading texts whose tokens fit `budget` (at least the first, truncated). */
function fitTexts(texts: readonly string[], budget: number, ctx: BuildContext): string[] {
  const out: string[] = [];
  let used = 0;
  for (const text of texts) {
    const cost = ctx.tokenizer.count(text) + 1;
    if (used + cost > budget) {
      if (out.length === 0) out.push(ctx.tokenizer.truncate(text, budget));
      break;
    }
    out.push(text);
    used += cost;
  }
  return out;
}

/**
 * NodeRAG indexing, G0 → G5 (NodeRAG §2.2-2.4): decomposition into semantic units, entities and
 * relationships; attributes of important entities; Leiden communities with their high-level elements,
 * overviews and semantic matching; text insertion; selective embedding of T, S, A, H; HNSW semantic
 * edges.
 *
 * Runs through the build runtime of `ctx` ({@link startBuild}): the model calls of each stage go
 * through `rt.map` (at most `o.concurrency`, else the runtime's concurrency, in flight) and their
 * results are checkpointed, so a build interrupted and run again with the same checkpoint store
 * resumes; the graph is rebuilt from those results, which are applied in input order.
 */
export async function buildNodeRag(
  docs: readonly Document[],
  ctx: BuildContext,
  o: NodeRagOptions,
): Promise<NodeRagIndex> {
  const { tasks, signal } = ctx;
  const rt = startBuild(ctx);
  const concurrency = o.concurrency !== undefined ? { concurrency: o.concurrency } : {};
  const stats: NodeRagBuildStats = {
    documents: new Set(docs.map((d) => d.id)).size,
    chunks: 0,
    extractedUnits: 0,
    importantEntities: 0,
    attributes: 0,
    communities: 0,
    emptyCommunities: 0,
    highLevelElements: 0,
    semanticMatchingEdges: 0,
    semanticClusters: 0,
    hnsw: { added: 0, reinforced: 0 },
    skipped: {},
    parseIssues: {},
  };
  const countIssues = (issues: readonly ParseIssue[]) => {
    for (const issue of issues) bump(stats.parseIssues, issue.kind);
  };

  const { chunks, texts } = await rt.stage('chunk', () => textUnits(docs, ctx, o));
  stats.chunks = chunks.length;
  const { embedder } = ctx;
  if (isFittableEmbedder(embedder)) {
    await rt.stage('fit', () => embedder.fit(texts), { checkpoint: false });
  }

  // G1: semantic units, entities and relationships (§2.2).
  const decompositions = await rt.stage('decompose', () =>
    rt.map(texts, (text) => tasks.decomposeSemanticUnits(text, { abortSignal: signal }), {
      label: (_, c) => chunks[c]!.id,
      unit: 'chunks',
      ...concurrency,
    }),
  );
  const graph = new HeteroGraph();
  const unitsOfChunk: string[][] = chunks.map(() => []);
  const unitKeyByText = new Map<string, string>();
  await rt.stage(
    'decompose',
    () => {
      const linked = o.entityLinking ? linkUnits(docs, chunks, decompositions, stats) : undefined;
      let u = 0;
      decompositions.forEach((decomposition, c) => {
        countIssues(decomposition.issues);
        const chunk = chunks[c]!;
        const provenance = { chunks: [chunk.id], docs: [chunk.docId] };
        for (const raw of decomposition.units) {
          const unit = linked ? linked[u]! : raw;
          u++;
          stats.extractedUnits++;
          const text = unit.text.trim();
          if (text === '') {
            bump(stats.skipped, 'blank-unit');
            continue;
          }
          let sKey = unitKeyByText.get(text);
          if (sKey === undefined) {
            sKey = `S:${unitKeyByText.size}`;
            unitKeyByText.set(text, sKey);
          }
          graph.addNode(sKey, 'S', { text, ...provenance });
          if (!unitsOfChunk[c]!.includes(sKey)) unitsOfChunk[c]!.push(sKey);
          const entityKey = (name: string): string | undefined => {
            const id = normalizeEntityName(name);
            if (id === '') {
              bump(stats.skipped, 'nameless-entity');
              return undefined;
            }
            return `N:${id}`;
          };
          const mentioned = new Set<string>();
          const mention = (name: string): string | undefined => {
            const key = entityKey(name);
            if (key === undefined) return undefined;
            if (!mentioned.has(key)) {
              mentioned.add(key);
              graph.addNode(key, 'N', { text: cleanEntityName(name), ...provenance });
              graph.connect(sKey!, key, 'd');
            }
            return key;
          };
          for (const name of unit.entities) mention(name);
          for (const rel of unit.relationships) {
            const source = mention(rel.source);
            const target = mention(rel.target);
            const relation = rel.relation.trim().replace(/\s+/g, ' ');
            if (source === undefined || target === undefined) continue;
            if (source === target) {
              bump(stats.skipped, 'self-relation');
              continue;
            }
            const rKey = `R:${source.slice(2)}|${relation.toLowerCase()}|${target.slice(2)}`;
            const rText = `${graph.node(source).text} ${relation} ${graph.node(target).text}`.trim();
            const isNew = !graph.hasNode(rKey);
            graph.addNode(rKey, 'R', { text: rText, ...provenance });
            if (isNew) {
              graph.connect(rKey, source, 'r');
              graph.connect(rKey, target, 'r');
            }
            if (graph.graph.edge(sKey, rKey) === undefined) graph.connect(sKey, rKey, 'd');
          }
        }
      });
    },
    { checkpoint: false },
  );

  // G2: attributes of important entities (§2.3, appendix C.2).
  const attributes = await rt.stage('attributes', async () => {
    const important = importantEntities(graph.graph, {
      isCandidate: (_, a) => a.type === 'N' && (a.weight as number) >= o.attributeMinMentions,
      coreRule: o.coreRule,
      betweennessSamples: o.betweennessSamples,
      seed: o.seed,
    });
    const summaries = await rt.map(
      important.nodes,
      async (entity) => {
        // Semantic units first, then relationships; within each, the most repeated first.
        const material = [...graph.neighbors(entity, 'S'), ...graph.neighbors(entity, 'R')]
          .map((key) => graph.node(key))
          .sort((a, b) => (a.type === b.type ? b.weight - a.weight : a.type === 'S' ? -1 : 1))
          .map((a) => a.text);
        const fitted = fitTexts(material, o.attributeContextTokens, ctx);
        const summary =
          fitted.length === 0
            ? ''
            : await tasks.summarize(fitted, {
                purpose: 'entity',
                maxTokens: o.attributeTokens,
                abortSignal: signal,
              });
        return summary.trim();
      },
      { label: (entity) => entity, unit: 'entities', ...concurrency },
    );
    return { entities: important.nodes, summaries };
  });
  await rt.stage(
    'attributes',
    () => {
      stats.importantEntities = attributes.entities.length;
      attributes.entities.forEach((entity, i) => {
        const summary = attributes.summaries[i]!;
        if (summary === '') {
          bump(stats.skipped, 'empty-attribute');
          return;
        }
        const node = graph.node(entity);
        const aKey = `A:${entity.slice(2)}`;
        graph.addNode(aKey, 'A', { text: summary, chunks: node.chunks, docs: node.docs });
        graph.connect(entity, aKey, 'a');
        stats.attributes++;
      });
    },
    { checkpoint: false },
  );

  // Embeddings of S and A now (semantic matching needs them), of H and T when they exist (§2.4).
  const vectors = new Map<string, Float32Array>();
  const embed = async (keys: string[]) => {
    const embeddings = await rt.stage('embed', () =>
      rt.embed(
        keys.map((key) => graph.node(key).text),
        { label: (_, i) => keys[i]! },
      ),
    );
    keys.forEach((key, i) => {
      vectors.set(key, embeddings[i]!);
    });
  };
  await embed([...graph.nodes('S'), ...graph.nodes('A')]);

  // G3: Leiden communities, high-level elements and overviews, semantic matching (§2.3, appendix C.3).
  const communities = await rt.stage('communities', async () => {
    const { communities, count } = leiden(graph.graph, {
      seed: o.seed,
      resolution: o.leidenResolution,
      iterations: o.leidenIterations,
    });
    const members: string[][] = Array.from({ length: count }, () => []);
    for (const [key, c] of communities) {
      const type = graph.node(key).type;
      if (type === 'S' || type === 'A') members[c]!.push(key);
    }
    const nonEmpty = members.map((m, c) => ({ m, c })).filter(({ m }) => m.length > 0);
    const elements = await rt.map(
      nonEmpty,
      ({ m }) => {
        const content = fitTexts(
          m.map((key) => graph.node(key).text),
          o.communityContextTokens,
          ctx,
        ).join('\n');
        return tasks.titleAndDescription(content, { abortSignal: signal });
      },
      { label: ({ c }) => `community ${c}`, unit: 'communities', ...concurrency },
    );
    return { count, nonEmpty, elements };
  });
  const { matching, highKeys } = await rt.stage(
    'communities',
    () => {
      const { count, nonEmpty, elements } = communities;
      stats.communities = count;
      stats.emptyCommunities = count - nonEmpty.length;
      const matching: Omit<MatchingNode, 'vector'>[] = [];
      const highKeys: string[] = [];
      nonEmpty.forEach(({ m, c }, i) => {
        const { title, description, issues } = elements[i]!;
        countIssues(issues);
        const text = description.trim();
        if (text === '') {
          bump(stats.skipped, 'empty-high-level-element');
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
        highKeys.push(hKey);
        stats.highLevelElements++;
        const name = title.trim();
        if (name !== '') {
          const oKey = `O:${c}`;
          graph.addNode(oKey, 'O', { text: name, chunks: chunkSet, docs: docSet, extra: { community: c } });
          graph.connect(hKey, oKey, 'o');
        } else {
          bump(stats.skipped, 'untitled-high-level-element');
        }
        for (const key of m)
          matching.push({ id: key, type: graph.node(key).type as 'S' | 'A', community: c });
        matching.push({ id: hKey, type: 'H', community: c });
      });
      return { matching, highKeys };
    },
    { checkpoint: false },
  );
  await embed(highKeys);
  await rt.stage(
    'semantic-matching',
    () => {
      if (highKeys.length === 0) return;
      const nodes: MatchingNode[] = matching.map((node) => ({ ...node, vector: vectors.get(node.id)! }));
      const k = Math.ceil(Math.sqrt(nodes.length));
      if (o.denseMatchingClusterSize > 0 && nodes.length / k <= o.denseMatchingClusterSize) {
        // The official code's shortcut for small graphs: every S and A node of the community.
        for (const node of nodes) {
          if (node.type === 'H') continue;
          graph.connect(node.id, `H:${node.community}`, 'h');
          stats.semanticMatchingEdges++;
        }
        return;
      }
      const { edges, k: used } = semanticMatching(nodes, { seed: o.seed });
      stats.semanticClusters = used;
      for (const [member, h] of edges) {
        graph.connect(member, h, 'h');
        stats.semanticMatchingEdges++;
      }
    },
    { checkpoint: false },
  );

  // G4: text insertion (§2.4).
  const textKeys = chunks.map((chunk, c) => {
    const key = `T:${chunk.id}`;
    graph.addNode(key, 'T', { text: texts[c]!, chunks: [chunk.id], docs: [chunk.docId] });
    for (const sKey of unitsOfChunk[c]!) graph.connect(key, sKey, 's');
    return key;
  });
  await embed(textKeys);

  // G5: HNSW index over the embedded nodes and its base layer as semantic edges (§2.4).
  const vectorKeys = [...textKeys, ...graph.nodes('S'), ...graph.nodes('A'), ...graph.nodes('H')];
  const index = await rt.stage(
    'hnsw',
    async () => {
      const hnsw = new HnswIndex({
        dimensions: embedder.dimensions,
        metric: 'cosine',
        capacity: Math.max(1, vectorKeys.length),
        M: o.hnswM,
        efConstruction: o.hnswEfConstruction,
        efSearch: o.hnswEfSearch,
        seed: o.seed,
      });
      vectorKeys.forEach((key, id) => {
        hnsw.add(id, vectors.get(key)!);
        if ((id + 1) % 1000 === 0 || id + 1 === vectorKeys.length) {
          ctx.onProgress?.({ stage: 'hnsw', done: id + 1, total: vectorKeys.length, unit: 'nodes' });
        }
      });
      if (o.hnswEdges) {
        const counts = await layBaseLayer(graph, hnsw, vectorKeys);
        stats.hnsw = { added: counts.added, reinforced: counts.reinforced };
      }
      return hnsw;
    },
    { checkpoint: false },
  );
  return { ctx, options: o, graph, vectors: index, vectorKeys, chunks, stats };
}

/**
 * Entity linking over the semantic units of a whole corpus (`linkEntities`, one item per unit, the
 * document titles as canonical entities): every unit of a titled document gets its title entity,
 * units that write another title get that entity, aliases fold into their canonical name. Returns
 * the units, in order, with their entity names and relationship ends replaced by canonical names.
 */
function linkUnits(
  docs: readonly Document[],
  chunks: readonly Chunk[],
  decompositions: readonly { units: readonly SemanticUnitRecord[] }[],
  stats: NodeRagBuildStats,
): SemanticUnitRecord[] {
  const titles = new Map<string, string | undefined>(docs.map((d) => [d.id, d.title?.trim()]));
  const units: SemanticUnitRecord[] = [];
  const items: LinkableItem[] = [];
  decompositions.forEach((decomposition, c) => {
    const chunk = chunks[c]!;
    for (const unit of decomposition.units) {
      units.push(unit);
      items.push({
        chunkId: chunk.id,
        docId: chunk.docId,
        text: unit.text,
        extraction: {
          entities: unit.entities.map((name) => ({ name, type: '', description: '' })),
          relations: [],
        },
      });
    }
  });
  const linking = linkEntities(items, { titles });
  const folded = Object.values(linking.stats.folded).reduce((a, b) => a + b, 0);
  stats.linking = {
    names: linking.stats.names,
    entities: linking.stats.entities,
    titleEntities: linking.stats.titleEntities,
    textMentions: linking.stats.textMentions,
    folded,
  };
  return units.map((unit, i) => ({
    text: unit.text,
    entities: linking.items[i]!.extraction.entities.map((e) => e.name),
    relationships: unit.relationships.map((r) => ({
      source: linking.resolve(r.source),
      relation: r.relation,
      target: linking.resolve(r.target),
    })),
  }));
}

/** Add the HNSW base layer (level-0 links) of `hnsw` to `graph` as semantic edges. */
export async function layBaseLayer(
  graph: HeteroGraph,
  hnsw: HnswIndex,
  vectorKeys: readonly string[],
): Promise<{ added: number; reinforced: number }> {
  const layer = await hnsw.baseLayerGraph();
  const lists: [string, string[]][] = [];
  for (const [id, links] of layer) {
    lists.push([vectorKeys[id]!, links.map((l) => vectorKeys[l]!)]);
  }
  return addSemanticEdges(graph, lists);
}
