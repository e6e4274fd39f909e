/** What the reader tests share: one test per question asked of some notes, and its expected answer. */
import type { TaskSuite } from '@grag/core';
import { describe, expect, test } from 'vitest';
import { createOfflineTasks } from '../src/index.js';

const tasks = createOfflineTasks();

/**
 * One test per `[question, expected]` pair: the offline `answer` task, asked `question` with
 * `notes` as the context, answers `expected` exactly.
 */
export function expectAnswers(
  notes: Parameters<TaskSuite['answer']>[1],
  cases: readonly (readonly [question: string, expected: string])[],
): void {
  test.each(cases.map(([question, expected]) => [question, expected]))('%s → %s', async (q, expected) => {
    expect((await tasks.answer(q, notes)).answer).toBe(expected);
  });
}

/** A `describe` block named `title` of one test per `[question, expected]` pair, as {@link expectAnswers}. */
export function describeAnswers(
  title: string,
  notes: Parameters<TaskSuite['answer']>[1],
  cases: readonly (readonly [question: string, expected: string])[],
): void {
  describe(title, () => expectAnswers(notes, cases));
}
