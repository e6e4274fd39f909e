import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MeterSnapshot } from '@grag/core';
import { addStageUsage, emptyStageUsage } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import {
  barChart,
  type EvalRun,
  escapeXml,
  type MethodSummary,
  markdownReport,
  methodsTable,
  niceTicks,
  qualityMetric,
  reportCharts,
  scatterChart,
  writeReports,
} from '../src/index.js';

/** Check that `xml` is well-formed: balanced tags, quoted attributes, escaped text, one root. */
function wellFormed(xml: string): { root: string; elements: string[] } {
  const tag =
    /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<&]*(?:&(?:amp|lt|gt|quot|apos);[^"<&]*)*")*)\s*(\/?)>/g;
  const stack: string[] = [];
  const elements: string[] = [];
  let root: string | undefined;
  let last = 0;
  const checkText = (text: string) => {
    expect(text).not.toMatch(/[<>]/);
    expect(text).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
  };
  for (const m of xml.matchAll(tag)) {
    checkText(xml.slice(last, m.index));
    last = (m.index as number) + m[0].length;
    const [, closing, name, , selfClosing] = m;
    if (closing) {
      expect(stack.pop()).toBe(name);
      continue;
    }
    elements.push(name as string);
    if (stack.length === 0) {
      expect(root).toBeUndefined();
      root = name;
    }
    if (!selfClosing) stack.push(name as string);
  }
  checkText(xml.slice(last));
  expect(stack).toEqual([]);
  return { root: root as string, elements };
}

const count = (elements: string[], name: string) => elements.filter((e) => e === name).length;

function usage(stages: Record<string, Partial<ReturnType<typeof emptyStageUsage>>>): MeterSnapshot {
  const out: MeterSnapshot = { stages: {}, total: emptyStageUsage() };
  for (const [name, u] of Object.entries(stages)) {
    const full = { ...emptyStageUsage(), ...u };
    out.stages[name] = full;
    addStageUsage(out.total, full);
  }
  return out;
}

function summary(
  label: string,
  metrics: Record<string, number>,
  extra: Partial<MethodSummary> = {},
): MethodSummary {
  return {
    label,
    method: label,
    key: `${label}-key`,
    options: {},
    providers: { embedder: 'offline:tfidf:512' },
    questions: 100,
    failed: 0,
    errors: [],
    resumed: 0,
    metrics,
    metricCounts: Object.fromEntries(Object.keys(metrics).map((k) => [k, 100])),
    latencyMs: { p50: 2.5, p95: 14.25, mean: 4 },
    contextTokens: 11_995,
    index: {
      seconds: 2.07,
      usage: usage({ embed: { embedCalls: 6, embeddedValues: 1465, wallMs: 2000 } }),
      source: 'built',
    },
    query: { usage: usage({}) },
    peakRssMiB: 203.4,
    ...extra,
  };
}

function run(methods: MethodSummary[]): EvalRun {
  return {
    manifest: {
      tool: { name: '@grag/eval', version: '0.0.0' },
      createdAt: '2026-11-21T10:00:00.000Z',
      updatedAt: '2026-11-21T10:05:00.000Z',
      command: 'grag eval ../shared/datasets/musique --methods naive-dense,bm25',
      dataset: {
        name: 'musique',
        format: 'grag-jsonl',
        documents: 1465,
        questionsTotal: 100,
        questionsSelected: 100,
        skippedRecords: 0,
        fingerprint: '0123456789abcdef',
      },
      options: {
        budgetTokens: 12000,
        generateAnswers: false,
        concurrency: 1,
        recallAt: [2, 5],
        shuffle: false,
        warmup: true,
        subgraphMetrics: true,
      },
      methods: methods.map((m) => ({
        label: m.label,
        method: m.method,
        formatVersion: 1,
        options: {},
        retrieve: {},
        providers: m.providers,
        key: m.key,
      })),
      seed: 1,
      git: { commit: '9e59c95aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', dirty: false },
      machine: { cpu: 'AMD EPYC', cores: 2, memoryGiB: 24, node: 'v20.20.2', platform: 'linux-x64' },
      node: 'v20.20.2',
    },
    methods,
    results: [],
    skippedLines: [],
  };
}

describe('SVG charts', () => {
  it('draws a well-formed scatter plot with one point per entry and escaped labels', () => {
    const svg = scatterChart({
      title: 'Coverage vs cost <test>',
      xLabel: 'seconds',
      yLabel: 'coverage',
      yDomain: [0, 1],
      points: [
        { label: 'bm25', x: 0.41, y: 0.9 },
        { label: 'a<b>&"c"', x: 2.07, y: 0.76 },
        { label: 'broken', x: Number.NaN, y: 0.5 },
      ],
    });
    const { root, elements } = wellFormed(svg);
    expect(root).toBe('svg');
    // a point and a legend marker per plottable entry
    expect(count(elements, 'circle')).toBe(4);
    expect(svg).toContain('a&lt;b&gt;&amp;&quot;c&quot;');
    expect(svg).toContain('not plotted (no value): broken');
    expect(svg).toContain('<title>Coverage vs cost &lt;test&gt;</title>');
    // y ticks 0 .. 1 by 0.2
    for (const t of ['0', '0.2', '0.4', '0.6', '0.8', '1']) expect(svg).toContain(`>${t}</text>`);
  });

  it('uses powers of ten on a log axis', () => {
    const svg = scatterChart({
      title: 't',
      xLabel: 'tokens',
      yLabel: 'q',
      logX: true,
      points: [
        { label: 'cheap', x: 2_000, y: 0.5 },
        { label: 'costly', x: 3_000_000, y: 0.8 },
      ],
    });
    wellFormed(svg);
    for (const t of ['1.0k', '10k', '100k', '1.0M', '10M']) expect(svg).toContain(`>${t}</text>`);
  });

  it('draws grouped bars with their values', () => {
    const svg = barChart({
      title: 'Latency',
      yLabel: 'ms',
      categories: ['naive-dense', 'bm25'],
      series: [
        { name: 'p50', values: [3.58, 2.29] },
        { name: 'p95', values: [17.77, 14.56] },
      ],
    });
    const { elements } = wellFormed(svg);
    // background + 4 bars + frame + 2 legend swatches
    expect(count(elements, 'rect')).toBe(8);
    for (const v of ['3.6', '2.3', '18', '15']) expect(svg).toContain(`>${v}</text>`);
  });

  it('picks round ticks', () => {
    expect(niceTicks(0, 0.87)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    // 11,995 / 5 = 2,399 → the first of 1k, 2k, 5k steps at least that is 5k
    expect(niceTicks(0, 11_995)).toEqual([0, 5000, 10000, 15000]);
    // a single value is padded by 10%: [4.5, 5.5] in steps of 0.2 from 4.4
    expect(niceTicks(5, 5)).toEqual([4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6]);
    expect(escapeXml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;');
  });
});

describe('reports', () => {
  const methods = [
    summary('naive-dense', { coverage: 0.76, 'recall@2': 0.329, 'recall@5': 0.445, contextTokens: 11_995 }),
    summary(
      'bm25',
      { coverage: 0.9, 'recall@2': 0.388, 'recall@5': 0.475, contextTokens: 11_875 },
      {
        failed: 2,
        errors: [{ questionId: 'q7', message: 'boom' }],
        index: { seconds: 0.41, usage: usage({ chunk: { wallMs: 100 } }), source: 'loaded' },
      },
    ),
  ];

  it('tables every metric present with cost, latency and memory', () => {
    const table = methodsTable(methods);
    const lines = table.split('\n');
    expect(lines[0]).toBe(
      '| method | questions | Coverage | R@2 | R@5 | ctx tokens | index s | index LLM calls | index tokens | query LLM calls | p50 ms | p95 ms | peak RSS MiB |',
    );
    expect(lines[2]).toBe(
      '| naive-dense | 100 | 0.760 | 0.329 | 0.445 | 11,995 | 2.07 | 0 | 0 | 0 | 2.50 | 14.25 | 203 |',
    );
    expect(lines[3]).toContain('| bm25 | 100 (+2 failed) | 0.900 |');
  });

  it('writes JSON, markdown and the three charts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'grag-eval-report-'));
    const files = writeReports(run(methods), dir);
    expect(files.charts.map((p) => p.slice(dir.length + 1)).sort()).toEqual([
      'latency.svg',
      'quality-vs-context-tokens.svg',
      'quality-vs-index-cost.svg',
    ]);
    const md = readFileSync(files.markdown, 'utf8');
    expect(md).toContain('# Evaluation on musique');
    expect(md).toContain('AMD EPYC (2 cores, 24 GiB), Node v20.20.2, linux-x64; git 9e59c95aaaaa.');
    expect(md).toContain('| naive-dense | embed | 0 | 0 | 0 | 1,465 | 0 | 2.00 |');
    expect(md).toContain('- bm25: 2 failed; first: q7: boom');
    expect(md).toContain('Reproduce: `grag eval ../shared/datasets/musique --methods naive-dense,bm25`');
    const json = JSON.parse(readFileSync(files.json, 'utf8'));
    expect(json.methods.map((m: MethodSummary) => m.label)).toEqual(['naive-dense', 'bm25']);
    expect(json.manifest.dataset.fingerprint).toBe('0123456789abcdef');
    for (const path of files.charts) {
      const svg = readFileSync(path, 'utf8');
      expect(wellFormed(svg).root).toBe('svg');
      expect(svg).toContain('>naive-dense</text>');
      expect(svg).toContain('>bm25</text>');
    }
    const cost = readFileSync(join(dir, 'quality-vs-index-cost.svg'), 'utf8');
    expect(cost).toContain('coverage vs indexing cost (musique)');
    expect(cost).toContain('indexing time (s)');
  });

  it('plots indexing cost in model tokens on a log axis once a method calls a model', () => {
    const withLlm = [
      ...methods,
      summary(
        'graph',
        { coverage: 0.95, contextTokens: 8000 },
        {
          index: {
            seconds: 600,
            usage: usage({ extract: { chatCalls: 900, inputTokens: 1_500_000, outputTokens: 400_000 } }),
            source: 'built',
          },
        },
      ),
    ];
    const charts = reportCharts(run(withLlm));
    const svg = charts['quality-vs-index-cost.svg'] as string;
    wellFormed(svg);
    expect(svg).toContain('indexing LLM tokens (input + output), log scale');
    // 1.9M tokens: decades 1M..10M, and the baselines' zero one decade below, labelled 0
    expect([...svg.matchAll(/text-anchor="middle">([^<]*)<\/text>/g)].map((m) => m[1]).slice(0, 3)).toEqual([
      '0',
      '1.0M',
      '10M',
    ]);
    expect(svg).not.toContain('not plotted');
    expect(methodsTable(withLlm).split('\n')[4]).toContain('| 900 | 1,900,000 |');
  });

  it('prefers Coverage, then accuracy, then Hit@1 as the plotted quality', () => {
    expect(qualityMetric(methods)).toBe('coverage');
    expect(qualityMetric([summary('x', { accuracy: 0.5, f1: 0.2 })])).toBe('accuracy');
    expect(qualityMetric([summary('x', { hit1: 0.5, f1: 0.2 })])).toBe('hit1');
    expect(qualityMetric(methods, 'recall@5')).toBe('recall@5');
  });

  it('adds judge tables when a run was judged', () => {
    const judged = run(methods);
    judged.judge = {
      model: 'openai:gpt-4o-mini',
      pairwise: {
        baseline: 'naive-dense',
        rates: { bm25: { winRate: { comprehensiveness: 0.6, overall: 0.55 }, judged: 100, failed: 0 } },
      },
      empowerment: { bm25: { logic: 1.5, insight: 0.5, total: 2, judged: 100 } },
      failures: [],
      usage: usage({}),
    };
    const md = markdownReport(judged);
    expect(md).toContain('| bm25 | 0.600 | – | – | 0.550 | 100 | 0 |');
    expect(md).toContain('| bm25 | 1.500 | 0.500 | 2.000 | 100 |');
  });
});
