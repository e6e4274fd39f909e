/** A step `pruningPower` and `verifyDominance` share (not exported from the package). */
import { InvalidArgumentError } from '@grag/core';
import type { DominanceEmbedder, EmbedGraphOptions, StarEmbeddings } from './embedder.js';
import type { StarGraph } from './graph.js';

/**
 * The data-side vectors a check of `embedder` on `graph` reads: `options.embeddings`, else
 * `embedder.embedGraph(graph, { correction })`. `caller` starts the error message.
 * @throws InvalidArgumentError when they are not one row per node of the embedder's dimensions.
 */
export function graphEmbeddings(
  caller: string,
  embedder: DominanceEmbedder,
  graph: StarGraph,
  options: { embeddings?: StarEmbeddings; correction: EmbedGraphOptions['correction'] },
): StarEmbeddings {
  const data = options.embeddings ?? embedder.embedGraph(graph, { correction: options.correction });
  if (data.size !== graph.ids.length || data.dimensions !== embedder.dimensions) {
    throw new InvalidArgumentError(
      'embeddings',
      `${caller}: embeddings have ${data.size} rows of ${data.dimensions}, the graph has ${graph.ids.length} nodes and the embedder ${embedder.dimensions} dimensions.`,
    );
  }
  return data;
}
