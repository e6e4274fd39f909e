/**
 * The markdown of the E2GraphRAG long-document benchmark (benchmarks/e2graphrag-long.ts) from its
 * JSON result.
 */
import type { MeterSnapshot } from '@grag/core';
import { type machine, pct } from './lib.js';

/** One configuration's numbers, all read from what `grag eval` wrote. */
export interface LongRow {
  label: string;
  /** The `grag eval` command (the book directory shown as `<book>`). */
  command: string;
  questions: number;
  coverage: number;
  /** Coverage per question kind (mean of the per-question values of results.jsonl). */
  coverageByKind: Record<string, number>;
  contextTokens: number;
  indexSeconds: number;
  /** Wall time of each build stage, seconds (entities and summaries run side by side). */
  stages: Record<string, number>;
  p50Ms: number;
  p95Ms: number;
  /** E2GraphRAG only: questions per `trace.mode` and per `trace.branch`. */
  modes?: Record<string, number>;
  branches?: Record<string, number>;
  /** E2GraphRAG only: questions per hop distance of the closest pair of query entities (`none`: no pair within h). */
  closestPair?: Record<string, number>;
  /** E2GraphRAG only: the index's stats. */
  index?: { chunks: number; summaries: number; levels: number[]; entities: number; edges: number };
}

/** A `grag index --estimate --json` result. */
export interface LongEstimate {
  method: string;
  /** The `grag index` command (the book shown as `<book>/book.txt`). */
  command: string;
  stages: MeterSnapshot['stages'];
  total: MeterSnapshot['total'];
}

/** What the benchmark writes to benchmarks/results/e2graphrag-long.json. */
export interface LongResult {
  benchmark: 'e2graphrag-long';
  date: string;
  machine: ReturnType<typeof machine>;
  /** Seconds the whole run took. */
  seconds: number;
  /** One-minute load average of the machine when the run started and when it ended. */
  load: [number, number];
  book: {
    seed: number;
    chapters: number;
    characters: number;
    places: number;
    words: number;
    tokens: number;
    title: string;
    /** Questions per kind. */
    questions: Record<string, number>;
  };
  /** `grag index --estimate` of E2GraphRAG, then of DA-RAG (per-chunk extraction) for scale. */
  estimates: LongEstimate[];
  /** At the default 12k-token budget. */
  rows: LongRow[];
  /** The same configurations at a 2k-token budget. */
  budget2k: LongRow[];
}

const int = (v: number) => Math.round(v).toLocaleString('en-US');

/** A markdown table. */
function table(head: readonly string[], rows: readonly (readonly string[])[], left = 1): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i < left ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

const KINDS = ['gift', 'sword', 'accord', 'founding', 'steward', 'omen'] as const;
const KIND_NOTES: Record<(typeof KINDS)[number], string> = {
  gift: 'two characters and a place ("What did X give to Y at P?")',
  sword: 'two characters and a place ("What was the name of the sword with which X wounded Y at P?")',
  accord:
    'three characters and a place, paraphrased ("What agreement did X, Y and Z seal at P?"; the text says "set their seals to the … Accord")',
  founding: 'one character and a river ("What was the name of the village that X founded on the R?")',
  steward:
    "two hops: the town X founded (one chapter), then its steward, told 3 to 12 chapters later by the town's name only",
  omen: 'no named entity ("What did the common people call the great comet that crossed the sky?")',
};

function coverageTable(rows: readonly LongRow[], withLatency: boolean): string {
  const head = [
    'configuration',
    'Coverage',
    ...KINDS,
    'ctx tokens',
    ...(withLatency ? ['index s', 'p50 ms', 'p95 ms', 'local / global'] : ['p50 ms']),
  ];
  return table(
    head,
    rows.map((r) => [
      r.label,
      pct(r.coverage),
      ...KINDS.map((k) => pct(r.coverageByKind[k])),
      int(r.contextTokens),
      ...(withLatency
        ? [
            r.indexSeconds.toFixed(1),
            r.p50Ms.toFixed(1),
            r.p95Ms.toFixed(1),
            r.modes ? `${r.modes.local ?? 0} / ${r.modes.global ?? 0}` : '–',
          ]
        : [r.p50Ms.toFixed(1)]),
    ]),
  );
}

/** The markdown report of a {@link LongResult}. */
export function longMarkdown(result: LongResult): string {
  const { book, machine: m } = result;
  const e2 = result.rows.filter((r) => r.index);
  const defaults = result.rows.find((r) => r.label === 'e2graphrag (offline preset)') ?? e2[0]!;
  const ix = defaults.index!;
  const g = 5;
  const stageNames = [...new Set(e2.flatMap((r) => Object.keys(r.stages)))];
  const commands = [...result.rows, ...result.budget2k].map(
    (r) => `- ${r.label}${r.command.includes('--budget') ? ' (2k)' : ''}: \`${r.command}\``,
  );
  return [
    '# E2GraphRAG on a long document',
    '',
    `Run ${result.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB), Node ${m.node}, ${m.platform}; the cores are shared with other jobs, so times are noisy (one-minute load average ${result.load[0].toFixed(1)} at the start, ${result.load[1].toFixed(1)} at the end). The whole run took ${Math.round(result.seconds)} s.`,
    '',
    `The book: "${book.title}", written by \`benchmarks/e2graphrag-chronicle.ts\` (seed ${book.seed}, ${book.chapters} chapters): ${int(book.tokens)} tokens (cl100k), ${int(book.words)} words; ${book.characters} recurring characters and ${book.places} places that meet, quarrel and trade in every chapter, and ${Object.values(book.questions).reduce((a, b) => a + b, 0)} events, each with a question whose answer is a name the book uses only for that event (and, for gifts and towns, a few later mentions). Every retrieval number is what \`grag eval\` prints for the book written as a single-book dataset directory (\`book.txt\` + \`questions.jsonl\`, read by \`@grag/eval\`'s \`loadBookDataset\`): offline providers, one run per configuration. Coverage: the gold answer appears (SQuAD-normalized) in the packed context. There are no gold passages in a book, so no R@k.`,
    '',
    'Question kinds:',
    '',
    ...KINDS.map((k) => `- **${k}** (${book.questions[k] ?? 0}): ${KIND_NOTES[k]}.`),
    '',
    '## The index',
    '',
    table(
      ['chunks n', 'summaries', 'nodes per level', 'summary levels', 'n/(g−1)', 'entities', 'edges'],
      [
        [
          int(ix.chunks),
          int(ix.summaries),
          ix.levels.join(' → '),
          String(ix.levels.length - 1),
          (ix.chunks / (g - 1)).toFixed(1),
          int(ix.entities),
          int(ix.edges),
        ],
      ],
      0,
    ),
    '',
    `Chunks of 1,200 tokens with 100 overlap (§3.1), g = ${g}; the tree stops at the first level of at most 1.2·g nodes. The paper's call count n/(g−1) is the limit of an infinite tree; the build asks for one summary per non-leaf node.`,
    '',
    '## Offline build by stage',
    '',
    'Wall seconds per build stage (offline providers: extractive summaries, wink entities, hashed TF-IDF embedder). `entities` and `summarize` run side by side, so the total is below the sum.',
    '',
    table(
      ['stage', ...e2.map((r) => r.label)],
      [
        ...stageNames.map((s) => [s, ...e2.map((r) => (r.stages[s] ?? 0).toFixed(2))]),
        ['total (build)', ...e2.map((r) => r.indexSeconds.toFixed(2))],
      ],
    ),
    '',
    '## What a paid build would call',
    '',
    "`grag index <book>/book.txt --method … --estimate --json`: the calls and tokens a build with an OpenAI-compatible endpoint would make (no model is called; the offline heuristics stand in for the answers, so output tokens are the offline summarizer's length), priced at the CLI's default price table. DA-RAG, which extracts entities and relations from every chunk as GraphRAG and LightRAG do, is estimated on the same book for scale (its own chunking and prompts).",
    '',
    table(
      ['method', 'stage', 'chat calls', 'input tok', 'output tok', 'embedded', 'embed tok', 'USD'],
      result.estimates.flatMap((e) =>
        [...Object.entries(e.stages), ['total', e.total] as const]
          .filter(([, u]) => u.chatCalls > 0 || u.embedCalls > 0 || u.embeddedValues > 0)
          .map(([s, u]) => [
            e.method,
            s,
            int(u.chatCalls),
            int(u.inputTokens),
            int(u.outputTokens),
            int(u.embeddedValues),
            int(u.embedTokens),
            u.usd.toFixed(4),
          ]),
      ),
      2,
    ),
    '',
    '## Retrieval at the default 12k-token budget',
    '',
    'Coverage in %, overall and per question kind; latency of one `retrieve` call; local / global: questions per mode of Algorithm 1 (`trace.mode`).',
    '',
    coverageTable(result.rows, true),
    '',
    '## Retrieval at a 2k-token budget',
    '',
    coverageTable(result.budget2k, false),
    '',
    '## Algorithm 1 on the book',
    '',
    table(
      ['configuration', 'branch (questions)', 'closest pair of query entities, hops (questions)'],
      e2
        .filter((r) => r.branches)
        .map((r) => [
          r.label,
          Object.entries(r.branches!)
            .map(([b, n]) => `${b} ${n}`)
            .join(', '),
          Object.entries(r.closestPair ?? {})
            .map(([h, n]) => `${h}: ${n}`)
            .join(', '),
        ]),
    ),
    '',
    '## Commands',
    '',
    ...commands,
    ...result.estimates.map((e) => `- estimate ${e.method}: \`${e.command}\``),
    '',
    `Reproduce: \`pnpm tsx benchmarks/e2graphrag-long.ts --seed ${book.seed} --chapters ${book.chapters}\`.`,
    '',
  ].join('\n');
}
