/** The assertions every resumed build of a `checkResumableBuild` report must pass. */
import { expect } from 'vitest';
import type { ResumeReport } from './resume.js';

/**
 * Expect every resumed run of `report` to be clean: no model call repeated, the calls of its first
 * run and of its resumed run adding up to the uninterrupted build's, and the same files written;
 * with `restored`, that stage was restored (not redone) in every run.
 */
export function expectCleanResume(report: ResumeReport, restored?: string): void {
  for (const run of report.runs) {
    expect(run.repeatedCalls).toBe(0);
    expect(run.firstRunCalls + run.resumedCalls).toBe(report.totalCalls);
    expect(run.differingFiles).toEqual([]);
    if (restored !== undefined) expect(run.resumedStages).toContain(restored);
  }
}
