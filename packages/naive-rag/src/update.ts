/** Local updates of both baselines: which units go, which come, and the report of a change. */
import type { Chunk, UpdateReport } from '@grag/core';
import {
  type BuildRuntime,
  type IndexChangePlan,
  keptChunkPositions,
  type PreparedUpdate,
} from '@grag/core/kit';

import type { ChunkingOptions } from './options.js';
import { type BaseIndex, unitsOf } from './units.js';

/** The units of an index after a change, and where they came from. */
export interface ChangedUnits {
  plan: IndexChangePlan;
  /** The prepared update's report. */
  report: PreparedUpdate<unknown>['report'];
  /** Positions (ids) in the old index of the units dropped. */
  dropped: number[];
  /** Positions in the old index of the units kept, in order: they come first in the new index. */
  kept: number[];
  /** The units of the added documents: they follow the kept ones. */
  added: { chunks: Chunk[]; texts: string[] };
  /** All units of the new index. */
  chunks: Chunk[];
  texts: string[];
}

/**
 * Apply the planned change to `index`'s units and chunk the added documents: the kept units stay
 * in their order, the added ones follow, as a build of the kept documents followed by the added
 * ones would order them.
 */
export async function changeUnits<O extends ChunkingOptions>(
  update: PreparedUpdate<unknown>,
  index: BaseIndex<O>,
  rt: BuildRuntime,
): Promise<ChangedUnits> {
  const { plan, ctx } = update;
  const { kept, dropped } = keptChunkPositions(plan, index.chunks);
  const added = await rt.stage('chunk', () => unitsOf(plan.add, ctx, index.options), { checkpoint: false });
  return {
    plan,
    report: update.report,
    dropped,
    kept,
    added,
    chunks: [...kept.map((i) => index.chunks[i]!), ...added.chunks],
    texts: [...kept.map((i) => index.texts[i]!), ...added.texts],
  };
}

/** The report of a change, once its stages ran. */
export function reportOf(
  units: ChangedUnits,
  parts: Pick<UpdateReport, 'embedded' | 'local' | 'global' | 'trace'>,
): UpdateReport {
  return units.report({
    chunks: { removed: units.dropped.length, added: units.added.chunks.length, total: units.chunks.length },
    ...parts,
  });
}
