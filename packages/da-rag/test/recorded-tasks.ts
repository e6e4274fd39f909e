/**
 * Task suites for the update tests that record the text of every extraction and title call (the
 * model's work), so a test can check which chunks an update asked the model about.
 */
import type { TaskSuite } from '@grag/core';
import { createOfflineTasks } from '@grag/offline';

/** `base` (default: the offline tasks) with its `extractGraph` and `titleAndDescription` texts recorded. */
export function recordedTasks(base: TaskSuite = createOfflineTasks()): {
  tasks: TaskSuite;
  extracted: string[];
  described: string[];
} {
  const extracted: string[] = [];
  const described: string[] = [];
  const tasks: TaskSuite = Object.create(base);
  Object.assign(tasks, {
    id: base.id,
    extractGraph: (text: string, options?: Parameters<TaskSuite['extractGraph']>[1]) => {
      extracted.push(text);
      return base.extractGraph(text, options);
    },
    titleAndDescription: (text: string, options?: { abortSignal?: AbortSignal }) => {
      described.push(text);
      return base.titleAndDescription(text, options);
    },
  });
  return { tasks, extracted, described };
}
