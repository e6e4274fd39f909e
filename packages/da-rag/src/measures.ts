import { InvalidArgumentError } from '@grag/core';
import {
  averagePairwiseSimilarity,
  density,
  type SubgraphMeasures,
  subgraphDiameter,
  type TrussGraph,
} from '@grag/ktruss';
import type { TracedCommunity } from './pack.js';
import type { DaRagIndex, Layer } from './types.js';

/** The whole graph of a layer (the global graph diameters are measured in). */
export function layerGraph(index: DaRagIndex, layer: Layer): TrussGraph {
  if (layer === 'chunk') return index.chunkLayer;
  if (layer === 'kg') return index.kgLayer;
  if (index.simLayer === null) {
    throw new InvalidArgumentError(
      'layer',
      'da-rag layerGraph: this index was built without the Similarity layer.',
    );
  }
  return index.simLayer;
}

/**
 * The four subgraph measures of DA-RAG appendix B.3 (its Figure 5) for one retrieved community of the
 * trace (`retrieval.trace.communities`): QRScore (as computed at retrieval), density over the
 * community's own edges, diameter by shortest paths in the whole layer, and the average pairwise
 * cosine similarity of its node embeddings (chunk title + description, or entity).
 *
 * @throws InvalidArgumentError when a node of the community is not in the layer.
 */
export function communityMeasures(index: DaRagIndex, community: TracedCommunity): SubgraphMeasures {
  const graph = layerGraph(index, community.layer);
  const nodes = community.nodes.map((key) => {
    const v = graph.index.get(key);
    if (v === undefined) {
      throw new InvalidArgumentError(
        'community',
        `da-rag communityMeasures: node "${key}" is not in the ${community.layer} layer of this index.`,
      );
    }
    return v;
  });
  const vectors = community.layer === 'chunk' ? index.chunkVectors : index.entityVectors;
  return {
    nodes: nodes.length,
    edges: community.edges.length,
    qrScore: community.qrScore,
    density: density(nodes.length, community.edges.length),
    diameter: subgraphDiameter(graph, nodes),
    pairwiseSimilarity: averagePairwiseSimilarity(nodes.map((v) => vectors[v]!)),
  };
}
