/** The stages an E2GraphRAG update recomputes, locally and globally, with why (its report's lists). */
import type { UpdateReport } from '@grag/core';

/** How the update ran, as far as its stages go. */
export interface UpdateStagesInput {
  /** The update was asked with `full` (the tree is regrouped from scratch). */
  full: boolean;
  /** The embedder was fitted again (a full update with a fittable embedder), so every node was embedded again. */
  refit: boolean;
  entityLinking: boolean;
  /** The index has a BM25 view. */
  bm25: boolean;
}

/**
 * `local` and `global` of an update's report, in the order a build runs the stages: the tree is
 * local along the paths of a change, global with `full`; embedding is local unless the embedder
 * was fitted again; the graph, the vector index and BM25 are always rebuilt (no model call).
 */
export function updateStages(input: UpdateStagesInput): Pick<UpdateReport, 'local' | 'global'> {
  const local = ['chunk', 'entities'];
  const global: UpdateReport['global'] = [];
  if (input.full) {
    global.push({
      stage: 'summarize',
      reason:
        'full: the summary tree is regrouped over every chunk as a build groups it; a summary whose exact inputs the index already summarized is reused, every other one is asked for',
    });
  } else {
    local.push('summarize');
  }
  global.push({
    stage: 'graph',
    reason: input.entityLinking
      ? 'entity linking folds names across the whole corpus, so the graph and its indexes are rebuilt from every chunk’s kept extraction (no model call)'
      : 'entity ids are positions of first occurrence, so the graph and its indexes are rebuilt from every chunk’s kept extraction (no model call)',
  });
  if (input.refit) {
    global.push(
      {
        stage: 'fit',
        reason:
          'full: the embedder is fitted again on every node text of the changed corpus, as a build fits it',
      },
      {
        stage: 'embed',
        reason: 'full: the embedder was fitted again, so every tree node is embedded again with the new fit',
      },
    );
  } else {
    local.push('embed');
  }
  global.push({
    stage: 'vector-index',
    reason: input.refit
      ? 'vector ids are tree node positions, so the index is reloaded from the new embeddings'
      : 'vector ids are tree node positions, which shift when the tree changes, so the index is reloaded from the kept embeddings and the new ones (none is embedded again)',
  });
  if (input.bm25) {
    global.push({
      stage: 'bm25',
      reason: 'BM25 ids are tree node positions too; rebuilt over the node texts (no model call)',
    });
  }
  return { local, global };
}
