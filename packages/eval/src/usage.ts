/** Adding up `Meter` snapshots across sessions of a resumed run. */
import type { MeterSnapshot, StageUsage } from '@grag/core';
import { addStageUsage, emptyStageUsage } from '@grag/core/kit';

/** The sum of several meter snapshots, stage by stage. */
export function addSnapshots(snapshots: readonly MeterSnapshot[]): MeterSnapshot {
  const stages: Record<string, StageUsage> = {};
  const total = emptyStageUsage();
  for (const s of snapshots) {
    for (const [name, usage] of Object.entries(s.stages)) {
      const into = stages[name] ?? emptyStageUsage();
      stages[name] = into;
      addStageUsage(into, usage);
    }
    addStageUsage(total, s.total);
  }
  return { stages, total };
}

/** Model tokens of a usage: chat input + output + embedding tokens. */
export function modelTokens(usage: StageUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.embedTokens;
}
