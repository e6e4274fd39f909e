/** Adding up `Meter` snapshots across sessions of a resumed run. */
import type { MeterSnapshot, StageUsage } from '@grag/core';

const COUNTERS = [
  'chatCalls',
  'inputTokens',
  'outputTokens',
  'embedCalls',
  'embeddedValues',
  'embedTokens',
  'wallMs',
] as const;

/** An all-zero stage usage. */
export function emptyStageUsage(): StageUsage {
  return {
    chatCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    embedCalls: 0,
    embeddedValues: 0,
    embedTokens: 0,
    wallMs: 0,
    models: {},
  };
}

function addStage(into: StageUsage, from: StageUsage): void {
  for (const key of COUNTERS) into[key] += from[key];
  for (const [model, m] of Object.entries(from.models)) {
    const t = into.models[model] ?? { calls: 0, inputTokens: 0, outputTokens: 0 };
    into.models[model] = t;
    t.calls += m.calls;
    t.inputTokens += m.inputTokens;
    t.outputTokens += m.outputTokens;
  }
}

/** The sum of several meter snapshots, stage by stage. */
export function addSnapshots(snapshots: readonly MeterSnapshot[]): MeterSnapshot {
  const stages: Record<string, StageUsage> = {};
  const total = emptyStageUsage();
  for (const s of snapshots) {
    for (const [name, usage] of Object.entries(s.stages)) {
      const into = stages[name] ?? emptyStageUsage();
      stages[name] = into;
      addStage(into, usage);
    }
    addStage(total, s.total);
  }
  return { stages, total };
}

/** Model tokens of a usage: chat input + output + embedding tokens. */
export function modelTokens(usage: StageUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.embedTokens;
}
