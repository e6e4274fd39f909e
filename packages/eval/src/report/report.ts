/** Reports of a run: JSON, a markdown table comparing methods, and SVG charts. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAIRWISE_CRITERIA } from '../judges/prompts.js';
import type { EvalRun, MethodSummary } from '../run-types.js';
import { modelTokens } from '../usage.js';
import { barChart, scatterChart } from './svg.js';

/** Metric columns in the order tables show them, with their headings. */
export const METRIC_COLUMNS: readonly { key: string; heading: string }[] = [
  { key: 'coverage', heading: 'Coverage' },
  { key: 'recall@2', heading: 'R@2' },
  { key: 'recall@5', heading: 'R@5' },
  { key: 'recall@10', heading: 'R@10' },
  { key: 'em', heading: 'EM' },
  { key: 'f1', heading: 'F1' },
  { key: 'accuracy', heading: 'Acc' },
  { key: 'rougeL', heading: 'ROUGE-L' },
  { key: 'hit1', heading: 'Hit@1' },
  { key: 'entityPrecision', heading: 'P' },
  { key: 'entityRecall', heading: 'R' },
  { key: 'entityF1', heading: 'F1 (entities)' },
  { key: 'judgeCorrect', heading: 'Judge acc' },
  { key: 'density', heading: 'Density' },
  { key: 'diameter', heading: 'Diameter' },
  { key: 'qrScore', heading: 'QRScore' },
  { key: 'pairwiseSimilarity', heading: 'Pair sim' },
];

/** Quality metrics a chart uses, in order of preference, when none is named. */
export const QUALITY_PREFERENCE = [
  'coverage',
  'accuracy',
  'hit1',
  'judgeCorrect',
  'f1',
  'rougeL',
  'recall@5',
];

/** The quality metric a report plots: `preferred` when given, else the first of {@link QUALITY_PREFERENCE} present. */
export function qualityMetric(methods: readonly MethodSummary[], preferred?: string): string | undefined {
  if (preferred !== undefined) return preferred;
  const present = new Set(methods.flatMap((m) => Object.keys(m.metrics)));
  return QUALITY_PREFERENCE.find((k) => present.has(k)) ?? [...present].find((k) => k !== 'contextTokens');
}

const f3 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(3));
const f2 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(2));
const int = (x: number | undefined) =>
  x === undefined || !Number.isFinite(x) ? '–' : Math.round(x).toLocaleString('en-US');

/** The markdown table comparing methods: every metric present, context tokens, index cost, latency, memory. */
export function methodsTable(methods: readonly MethodSummary[]): string {
  const present = METRIC_COLUMNS.filter((c) => methods.some((m) => m.metrics[c.key] !== undefined));
  const head = [
    'method',
    'questions',
    ...present.map((c) => c.heading),
    'ctx tokens',
    'index s',
    'index LLM calls',
    'index tokens',
    'query LLM calls',
    'p50 ms',
    'p95 ms',
    'peak RSS MiB',
  ];
  const align = [
    '---',
    '---:',
    ...present.map(() => '---:'),
    '---:',
    '---:',
    '---:',
    '---:',
    '---:',
    '---:',
    '---:',
    '---:',
  ];
  const rows = methods.map((m) => [
    m.label,
    `${m.questions}${m.failed ? ` (+${m.failed} failed)` : ''}`,
    ...present.map((c) => (c.key === 'diameter' ? f2(m.metrics[c.key]) : f3(m.metrics[c.key]))),
    int(m.contextTokens),
    f2(m.index.seconds),
    int(m.index.usage.total.chatCalls),
    int(modelTokens(m.index.usage.total)),
    int(m.query.usage.total.chatCalls),
    f2(m.latencyMs.p50),
    f2(m.latencyMs.p95),
    int(m.peakRssMiB),
  ]);
  return [head, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** Per-stage build cost of each method: model calls, tokens, embedded texts, wall time. */
export function buildStagesTable(methods: readonly MethodSummary[]): string {
  const lines = [
    '| method | stage | LLM calls | input tokens | output tokens | texts embedded | embedding tokens | wall s |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const m of methods) {
    for (const [stage, u] of Object.entries(m.index.usage.stages)) {
      lines.push(
        `| ${m.label} | ${stage} | ${int(u.chatCalls)} | ${int(u.inputTokens)} | ${int(u.outputTokens)} | ${int(u.embeddedValues)} | ${int(u.embedTokens)} | ${f2(u.wallMs / 1000)} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The whole markdown report of a run. */
export function markdownReport(run: EvalRun, options: { title?: string } = {}): string {
  const { manifest: m } = run;
  const mc = m.machine;
  const sources = run.methods.map(
    (s) => `${s.label}: index ${s.index.source}${s.resumed ? `, ${s.resumed} questions resumed` : ''}`,
  );
  const out = [
    `# ${options.title ?? `Evaluation on ${m.dataset.name}`}`,
    '',
    `Run ${m.updatedAt.slice(0, 10)} on ${mc.cpu} (${mc.cores} cores, ${mc.memoryGiB} GiB), Node ${mc.node}, ${mc.platform}; ` +
      `git ${m.git.commit ? `${m.git.commit.slice(0, 12)}${m.git.dirty ? ' (with uncommitted changes)' : ''}` : 'unknown'}.`,
    `Dataset ${m.dataset.name} (${m.dataset.format}): ${m.dataset.questionsSelected} of ${m.dataset.questionsTotal} questions, ` +
      `${m.dataset.documents.toLocaleString('en-US')} documents, fingerprint ${m.dataset.fingerprint}` +
      `${m.dataset.skippedRecords ? `, ${m.dataset.skippedRecords} input records skipped` : ''}.`,
    `Context budget ${m.options.budgetTokens} tokens; answers ${m.options.generateAnswers ? 'generated' : 'not generated'}; ` +
      `questions run ${m.options.concurrency} at a time; seed ${m.seed}.`,
    `Providers: ${m.methods.map((x) => `${x.label} = ${Object.values(x.providers).join(', ')}`).join('; ')}.`,
    `Sessions: ${sources.join('; ')}.`,
    '',
    methodsTable(run.methods),
    '',
    'Coverage: gold answer or alias found (SQuAD-normalized) in the packed context (KET-RAG §6.1). R@k: share of',
    'supporting passages among the first k distinct passages retrieved. EM/F1: SQuAD. Latency: one `retrieve` call,',
    'wall time. Peak RSS: the whole process so far (methods run one after another in one process).',
    '',
    '## Indexing cost by stage',
    '',
    buildStagesTable(run.methods),
    '',
  ];
  if (run.judge) {
    out.push(`## Model-judged (${run.judge.model})`, '');
    if (run.judge.pairwise) {
      const { baseline, rates } = run.judge.pairwise;
      out.push(
        `Win rates against ${baseline}, both answer orders averaged (DA-RAG §6.1):`,
        '',
        `| method | ${PAIRWISE_CRITERIA.join(' | ')} | judged | failed |`,
        `|---|${PAIRWISE_CRITERIA.map(() => '---:').join('|')}|---:|---:|`,
        ...Object.entries(rates).map(
          ([label, r]) =>
            `| ${label} | ${PAIRWISE_CRITERIA.map((c) => f3(r.winRate[c])).join(' | ')} | ${r.judged} | ${r.failed} |`,
        ),
        '',
      );
    }
    if (run.judge.empowerment) {
      out.push(
        'Empowerment Score 0-3 (SG-RAG appendix K):',
        '',
        '| method | logic (0-2) | insight (0-1) | total (0-3) | judged |',
        '|---|---:|---:|---:|---:|',
        ...Object.entries(run.judge.empowerment).map(
          ([label, e]) => `| ${label} | ${f3(e.logic)} | ${f3(e.insight)} | ${f3(e.total)} | ${e.judged} |`,
        ),
        '',
      );
    }
    if (run.judge.failures.length > 0)
      out.push(`${run.judge.failures.length} judgments failed (see judgments.jsonl).`, '');
  }
  const failed = run.methods.filter((s) => s.failed > 0);
  if (failed.length > 0) {
    out.push('## Failed questions', '');
    for (const s of failed)
      out.push(
        `- ${s.label}: ${s.failed} failed; first: ${s.errors[0]?.questionId}: ${s.errors[0]?.message}`,
      );
    out.push('');
  }
  if (m.command) out.push(`Reproduce: \`${m.command}\``, '');
  return out.join('\n');
}

/** The charts of a run as SVG strings, keyed by file name. */
export function reportCharts(run: EvalRun, options: { quality?: string } = {}): Record<string, string> {
  const quality = qualityMetric(run.methods, options.quality);
  const charts: Record<string, string> = {};
  if (quality !== undefined) {
    // An LLM at indexing time is the cost that matters (KET-RAG, DA-RAG report it); without one, time.
    const usesLlm = run.methods.some((s) => s.index.usage.total.chatCalls > 0);
    const llmTokens = (s: MethodSummary) =>
      s.index.usage.total.inputTokens + s.index.usage.total.outputTokens;
    const rate = run.methods.every((s) => {
      const v = s.metrics[quality];
      return v === undefined || (v >= 0 && v <= 1);
    });
    const yDomain: [number, number] | undefined = rate ? [0, 1] : undefined;
    charts['quality-vs-index-cost.svg'] = scatterChart({
      title: `${quality} vs indexing cost (${run.manifest.dataset.name})`,
      xLabel: usesLlm ? 'indexing LLM tokens (input + output), log scale' : 'indexing time (s)',
      yLabel: quality,
      logX: usesLlm,
      ...(yDomain ? { yDomain } : {}),
      points: run.methods.map((s) => ({
        label: s.label,
        x: usesLlm ? llmTokens(s) : s.index.seconds,
        y: s.metrics[quality] ?? Number.NaN,
      })),
    });
    charts['quality-vs-context-tokens.svg'] = scatterChart({
      title: `${quality} vs retrieved context (${run.manifest.dataset.name})`,
      xLabel: 'mean context tokens per question',
      yLabel: quality,
      ...(yDomain ? { yDomain } : {}),
      points: run.methods.map((s) => ({
        label: s.label,
        x: s.contextTokens,
        y: s.metrics[quality] ?? Number.NaN,
      })),
    });
  }
  charts['latency.svg'] = barChart({
    title: `Retrieval latency (${run.manifest.dataset.name})`,
    yLabel: 'milliseconds per retrieve',
    categories: run.methods.map((s) => s.label),
    series: [
      { name: 'p50', values: run.methods.map((s) => s.latencyMs.p50) },
      { name: 'p95', values: run.methods.map((s) => s.latencyMs.p95) },
    ],
  });
  return charts;
}

/** The JSON report of a run: manifest, method summaries, judge results (per-question results stay in results.jsonl). */
export function jsonReport(run: EvalRun): unknown {
  return {
    manifest: run.manifest,
    methods: run.methods,
    ...(run.judge ? { judge: run.judge } : {}),
    resultsFile: 'results.jsonl',
    skippedLines: run.skippedLines,
  };
}

/** Paths written by {@link writeReports}. */
export interface ReportFiles {
  json: string;
  markdown: string;
  charts: string[];
}

/**
 * Write `report.json`, `report.md` and the SVG charts (`quality-vs-index-cost.svg`,
 * `quality-vs-context-tokens.svg`, `latency.svg`) into `dir`.
 */
export function writeReports(
  run: EvalRun,
  dir: string,
  options: { quality?: string; title?: string } = {},
): ReportFiles {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'report.json');
  writeFileSync(
    json,
    `${JSON.stringify(jsonReport(run), (_, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`,
  );
  const markdown = join(dir, 'report.md');
  writeFileSync(markdown, markdownReport(run, options));
  const charts: string[] = [];
  for (const [name, svg] of Object.entries(reportCharts(run, options))) {
    const path = join(dir, name);
    writeFileSync(path, svg);
    charts.push(path);
  }
  return { json, markdown, charts };
}
