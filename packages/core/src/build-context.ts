/** {@link createBuildContext}: a build context with grag's defaults filled in. */
import type { BuildContext } from './contracts/method.js';
import { Meter, meteredEmbedder } from './meter.js';
import { getTokenizer } from './tokenizer.js';
import { flatIndexFactory } from './vector/flat.js';

/**
 * A {@link BuildContext} with defaults: the cl100k_base tokenizer, a new {@link Meter}, the exact
 * flat vector index, no checkpoints (pass `runtime: { checkpoints, concurrency }` to make builds
 * resumable; see `startBuild`). The embedder is wrapped so its calls are metered (pass
 * `meterEmbedder: false` when it already is, e.g. under a call cache).
 */
export function createBuildContext(
  parts: Pick<BuildContext, 'embedder' | 'tasks'> & Partial<BuildContext> & { meterEmbedder?: boolean },
): BuildContext {
  const { meterEmbedder = true, ...rest } = parts;
  const tokenizer = rest.tokenizer ?? getTokenizer();
  const meter = rest.meter ?? new Meter();
  return {
    ...rest,
    tokenizer,
    meter,
    vectorIndex: rest.vectorIndex ?? flatIndexFactory,
    embedder: meterEmbedder ? meteredEmbedder(rest.embedder, meter, tokenizer) : rest.embedder,
  };
}
