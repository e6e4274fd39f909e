/**
 * What a build reuses from an earlier index instead of calling a model (updates): vectors and
 * extractions of kept units, summaries of unchanged description lists, and the kept core chunks.
 */
import type { StoredExtraction } from './types.js';

/** Results of an earlier index that a build takes instead of computing them again. */
export interface KetRagReuse {
  /** Ids of the kept chunks (the others are new). */
  keptChunks: ReadonlySet<string>;
  /**
   * Ids of the kept chunks that were core chunks: they stay core (their extraction is kept), unless
   * {@link KetRagReuse.full} selects the core set again.
   */
  keptCore: ReadonlySet<string>;
  /**
   * Select the core chunks again over the whole corpus as a build does (`UpdateOptions.full`):
   * kept chunks that become core are extracted, kept core chunks that are no longer core lose their
   * extraction. Otherwise kept core chunks stay core and new chunks fill the budget.
   */
  full: boolean;
  /** Kept chunk id → its embedding. */
  chunkVectors: ReadonlyMap<string, Float32Array>;
  /** Kept sub-chunk id → its embedding. */
  subChunkVectors: ReadonlyMap<string, Float32Array>;
  /** Kept sub-chunk id → the embeddings of its sentences, in order. */
  sentenceVectors: ReadonlyMap<string, readonly Float32Array[]>;
  /** Kept core chunk id → its extraction. */
  extractions: ReadonlyMap<string, StoredExtraction>;
  /** `JSON.stringify(descriptions)` → the model's summary of those descriptions. */
  summaries: ReadonlyMap<string, string>;
  /** Entity text (`name: description`) → its embedding. */
  entityVectors: ReadonlyMap<string, Float32Array>;
  /** What the build sent to the models (counted as it goes). */
  tally: { embedded: number; extracted: number; summarized: number };
}

/** The key of a description list in {@link KetRagReuse.summaries}. */
export const summaryKey = (descriptions: readonly string[]): string => JSON.stringify(descriptions);

/** Stage options: with reuse (an update), stages are not checkpointed (their numbering is the build's). */
export const stageOptions = (reuse: KetRagReuse | undefined): { checkpoint?: false } =>
  reuse ? { checkpoint: false } : {};

/**
 * Embed `texts` with `embed`, taking the vectors `known` gives (by position) and sending the rest
 * only: `known(i)` is the kept vector of text `i`, or undefined. The distinct texts sent are added
 * to `tally.embedded`.
 */
export async function embedMissing(
  texts: readonly string[],
  known: (i: number) => Float32Array | undefined,
  embed: (texts: string[], positions: number[]) => Promise<Float32Array[]>,
  tally?: KetRagReuse['tally'],
): Promise<Float32Array[]> {
  const out: (Float32Array | undefined)[] = texts.map((_, i) => known(i));
  const missing = out.flatMap((v, i) => (v === undefined ? [i] : []));
  if (missing.length > 0) {
    const sent = missing.map((i) => texts[i]!);
    if (tally) tally.embedded += new Set(sent).size;
    const fresh = await embed(sent, missing);
    missing.forEach((i, j) => {
      out[i] = fresh[j]!;
    });
  }
  return out as Float32Array[];
}
