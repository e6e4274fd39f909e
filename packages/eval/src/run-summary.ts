/** The summary of one method's results in a run: mean metrics, failures, latency, cost and memory. */
import type { MeterSnapshot } from '@grag/core';
import type { MethodSpec, MethodSummary, QuestionResult, SessionRecord } from './run-types.js';
import { mean, percentile } from './stats.js';
import { addSnapshots } from './usage.js';

/** The summary of a method's results (`results`, of every selected question), its build and sessions. */
export function summarize(
  label: string,
  spec: MethodSpec,
  key: string,
  providers: Record<string, string>,
  results: QuestionResult[],
  resumed: number,
  build: {
    seconds: number;
    usage: MeterSnapshot;
    source: 'built' | 'loaded' | 'skipped';
    peakRssMiB: number;
  },
  sessions: SessionRecord[],
): MethodSummary {
  const ok = results.filter((r) => r.error === undefined);
  const failed = results.filter((r) => r.error !== undefined);
  const values = new Map<string, number[]>();
  for (const r of ok) {
    for (const [name, v] of Object.entries(r.metrics)) {
      if (!Number.isFinite(v)) continue;
      let list = values.get(name);
      if (!list) {
        list = [];
        values.set(name, list);
      }
      list.push(v);
    }
  }
  const metrics: Record<string, number> = {};
  const metricCounts: Record<string, number> = {};
  for (const [name, list] of values) {
    metrics[name] = mean(list);
    metricCounts[name] = list.length;
  }
  const latencies = ok.map((r) => r.retrieveMs);
  const answerTimes = ok.flatMap((r) => (r.answerMs === undefined ? [] : [r.answerMs]));
  return {
    label,
    method: spec.method.name,
    key,
    options: spec.options ?? {},
    providers,
    questions: ok.length,
    failed: failed.length,
    errors: failed.slice(0, 5).map((r) => ({ questionId: r.questionId, message: r.error as string })),
    resumed,
    metrics,
    metricCounts,
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), mean: mean(latencies) },
    ...(answerTimes.length > 0
      ? {
          answerMs: {
            p50: percentile(answerTimes, 50),
            p95: percentile(answerTimes, 95),
            mean: mean(answerTimes),
          },
        }
      : {}),
    contextTokens: mean(ok.map((r) => r.contextTokens)),
    index: { seconds: build.seconds, usage: build.usage, source: build.source },
    query: { usage: addSnapshots(sessions.map((s) => s.usage)) },
    peakRssMiB: (() => {
      const known = [build.peakRssMiB, ...sessions.map((s) => s.peakRssMiB)].filter(Number.isFinite);
      return known.length > 0 ? Math.max(...known) : Number.NaN;
    })(),
  };
}
