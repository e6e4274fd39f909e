import type { BuildContext } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createOfflineProviders } from '@grag/offline';

/** A build context of the offline embedder and task suite, as many da-rag tests build with. */
export function offlineContext(): BuildContext {
  const { tasks, embedder } = createOfflineProviders();
  return createBuildContext({ embedder, tasks });
}
