import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AbortError,
  type BuildContext,
  type Document,
  InvalidArgumentError,
  type Method,
  OutputError,
  type RetrievedItem,
  type TaskSuite,
} from '@grag/core';
import { createBuildContext, Meter, meteredChat, readJson, readManifest, writeJson } from '@grag/core/kit';
import { writeIndexDir } from '@grag/core/store';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import {
  answerMetrics,
  answerQuery,
  type EvalDataset,
  type EvalQuestion,
  type QuestionResult,
  type RunOptions,
  runEval,
} from '../src/index.js';

const corpus: Document[] = [
  { id: 'p1', title: 'Ada', text: 'Ada Lovelace was born in London.' },
  { id: 'p2', title: 'Babbage', text: 'Charles Babbage designed the Analytical Engine.' },
  { id: 'p3', title: 'Paris', text: 'Paris is the capital of France.' },
  { id: 'p4', title: 'Engine', text: 'The Engine was never finished.' },
];

const questions: EvalQuestion[] = [
  { id: 'q1', question: 'Where was Ada born?', answers: ['London'], supporting: ['p1'] },
  {
    id: 'q2',
    question: 'What did Babbage design, and was it finished?',
    answers: ['Analytical Engine'],
    supporting: ['p2', 'p4'],
  },
  { id: 'q3', question: 'What is the capital of France?', answers: ['Paris'], supporting: ['p3'] },
];

const dataset: EvalDataset = { name: 'tiny', format: 'test', corpus, questions, skipped: [] };

/** What the fake method retrieves for each question, in rank order. */
const PLAN: Record<string, string[]> = {
  'Where was Ada born?': ['p1', 'p3'],
  'What did Babbage design, and was it finished?': ['p3', 'p2'],
  'What is the capital of France?': ['p1'],
};

interface FakeIndex {
  docs: Document[];
}

interface FakeLog {
  builds: number;
  loads: number;
  retrieves: string[];
}

/** A method whose retrievals are planned, whose build makes two metered model calls, and which persists. */
function fakeMethod(log: FakeLog, hooks: { onRetrieve?: (query: string) => void } = {}): Method<FakeIndex> {
  return {
    name: 'fake',
    description: 'a test method',
    capabilities: { uses: [] },
    formatVersion: 1,
    async build(docs, ctx) {
      log.builds++;
      await ctx.meter.stage('extract', async () => {
        for (const d of docs.slice(0, 2))
          await ctx.chat?.doGenerate({ messages: [{ role: 'user', content: d.text }] });
      });
      return { docs };
    },
    async retrieve(index, query) {
      log.retrieves.push(query);
      hooks.onRetrieve?.(query);
      const items: RetrievedItem[] = (PLAN[query] ?? []).map((id, rank) => {
        const doc = index.docs.find((d) => d.id === id) as Document;
        return {
          id,
          kind: 'chunk',
          text: doc.text,
          score: 1 - rank / 10,
          source: { chunkIds: [id], docIds: [id] },
        };
      });
      const context = items.map((i) => i.text).join('\n\n');
      const subgraph =
        query === 'Where was Ada born?'
          ? { nodes: ['a', 'b', 'c'], edges: [['a', 'b']] as [string, string][] }
          : undefined;
      return {
        context,
        items,
        tokens: context.split(/\s+/).length,
        trace: { planned: true },
        ...(subgraph ? { subgraph } : {}),
      };
    },
    async save(index, dir: string) {
      await writeIndexDir(
        dir,
        { method: 'fake', formatVersion: 1, params: {}, providers: {} },
        async (tmp) => {
          await writeJson(join(tmp, 'docs.json'), index.docs);
        },
      );
    },
    async load(dir: string) {
      log.loads++;
      await readManifest(dir, { method: 'fake', formatVersion: 1 });
      return { docs: await readJson<Document[]>(join(dir, 'docs.json')) };
    },
  };
}

const VECTORS: Record<string, number[]> = {
  'Where was Ada born?': [1, 0],
  a: [1, 0],
  b: [0, 1],
  c: [1, 1],
};

/** Scripted providers: a metered scripted chat for the build, planned answers, vectors for subgraph metrics. */
function scriptedContext(answers: Record<string, string> = {}): () => BuildContext {
  return () => {
    const meter = new Meter();
    const chat = meteredChat(
      createScriptedChatModel(() => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 3 } }), {
        modelId: 'extractor',
      }),
      meter,
    );
    const tasks = {
      id: 'scripted-tasks',
      async answer(query: string) {
        const q = query.split('\n')[0] as string;
        return { answer: answers[q] ?? 'unknown', citations: [], issues: [] };
      },
    } as unknown as TaskSuite;
    const embedder = createScriptedEmbedder({ dimensions: 2, embed: (t) => VECTORS[t] ?? [0.5, 0.5] });
    return createBuildContext({ embedder, tasks, chat, meter });
  };
}

/** `runEval` of `fakeMethod(log)` on the dataset with the scripted context, into `out`, with `options`. */
/** `runEval` of `method` alone on the dataset, with a scripted context, writing to `out`. */
function runMethod(method: Method<FakeIndex>, out: string, options: Partial<RunOptions> = {}) {
  return runEval({ dataset, methods: [{ method }], context: scriptedContext(), out, ...options });
}

function runFake(log: FakeLog, out: string, options: Partial<RunOptions> = {}) {
  return runMethod(fakeMethod(log), out, options);
}

const tmp = () => mkdtempSync(join(tmpdir(), 'grag-eval-run-'));
/** The readable lines of results.jsonl (a line cut short by a crash is left out). */
const readResults = (out: string): QuestionResult[] =>
  readFileSync(join(out, 'results.jsonl'), 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as QuestionResult];
      } catch {
        return [];
      }
    });

describe('runEval', () => {
  it('records per-question and aggregate metrics that match hand-computed values', async () => {
    const log: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    const out = tmp();
    const run = await runEval({
      dataset,
      methods: [
        {
          method: fakeMethod(log),
          graph: () => [
            ['a', 'b'],
            ['b', 'c'],
          ],
        },
      ],
      context: scriptedContext({
        'Where was Ada born?': 'London',
        'What did Babbage design, and was it finished?': 'the Engine',
        'What is the capital of France?': 'Lyon',
      }),
      out,
      recallAt: [1, 2],
      generateAnswers: true,
      concurrency: 2,
    });
    const [s] = run.methods;
    expect(s?.label).toBe('fake');
    expect(s?.questions).toBe(3);
    // coverage 1, 1, 0; R@1 1, 0, 0; R@2 1, 1/2, 0
    expect(s?.metrics.coverage).toBeCloseTo(2 / 3, 12);
    expect(s?.metrics['recall@1']).toBeCloseTo(1 / 3, 12);
    expect(s?.metrics['recall@2']).toBeCloseTo(0.5, 12);
    // EM 1, 0, 0; F1 1, 2/3 ("engine" vs "analytical engine"), 0
    expect(s?.metrics.em).toBeCloseTo(1 / 3, 12);
    expect(s?.metrics.f1).toBeCloseTo(5 / 9, 12);
    // q1's subgraph {a, b, c} with edge a-b: density 1/3; diameter 2 in the global path a-b-c;
    // QRScore mean(cos(q,a)=1, cos(q,b)=0, cos(q,c)=√½); pairwise mean(0, √½, √½)
    expect(s?.metrics.density).toBeCloseTo(1 / 3, 12);
    expect(s?.metrics.diameter).toBe(2);
    expect(s?.metrics.qrScore).toBeCloseTo((1 + Math.SQRT1_2) / 3, 6);
    expect(s?.metrics.pairwiseSimilarity).toBeCloseTo((2 * Math.SQRT1_2) / 3, 6);
    expect(s?.metricCounts.density).toBe(1);
    // build cost: two metered model calls in the 'extract' stage
    expect(s?.index.usage.stages.extract).toMatchObject({ chatCalls: 2, inputTokens: 20, outputTokens: 6 });
    expect(s?.index.source).toBe('built');
    expect(s?.contextTokens).toBeCloseTo((12 + 12 + 6) / 3, 12);
    expect(Number.isFinite(s?.latencyMs.p95)).toBe(true);
    expect(s?.peakRssMiB).toBeGreaterThan(0);
    // one warm-up retrieval, then one per question
    expect(log.retrieves).toHaveLength(4);
    expect(
      readResults(out)
        .map((r) => r.questionId)
        .sort(),
    ).toEqual(['q1', 'q2', 'q3']);
    expect(readResults(out).find((r) => r.questionId === 'q2')).toMatchObject({
      answer: 'the Engine',
      passages: ['p3', 'p2'],
      trace: { planned: true },
    });
    // the manifest names the dataset, options, providers, seed, git, machine and Node
    const manifest = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(manifest).toMatchObject({
      dataset: { name: 'tiny', documents: 4, questionsTotal: 3, questionsSelected: 3 },
      options: { budgetTokens: 12000, generateAnswers: true, concurrency: 2, recallAt: [1, 2] },
      methods: [
        {
          label: 'fake',
          providers: {
            embedder: 'scripted:scripted-embedder:2',
            tasks: 'scripted-tasks',
            chat: 'scripted:extractor',
          },
        },
      ],
      seed: 1,
      node: process.version,
    });
    expect(manifest.dataset.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(manifest.machine.cores).toBeGreaterThan(0);
    expect('commit' in manifest.git).toBe(true);
  });

  it('resumes an interrupted run without recomputing finished questions or rebuilding', async () => {
    const out = tmp();
    const first: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    const controller = new AbortController();
    let seen = 0;
    const interrupted = fakeMethod(first, {
      onRetrieve: () => {
        // the warm-up and two questions succeed; the third question is interrupted
        seen++;
        if (seen === 4) {
          controller.abort();
          throw new AbortError();
        }
      },
    });
    await expect(
      runEval({
        dataset,
        methods: [{ method: interrupted }],
        context: scriptedContext(),
        out,
        concurrency: 1,
        signal: controller.signal,
      }),
    ).rejects.toSatisfy((e: unknown) => AbortError.isInstance(e));
    expect(readResults(out).map((r) => r.questionId)).toEqual(['q1', 'q2']);
    expect(first.builds).toBe(1);
    // a crash cut the last line short
    appendFileSync(join(out, 'results.jsonl'), '{"method":"fake","key":"x","questionId":"q');

    const second: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    const run = await runFake(second, out, { concurrency: 1 });
    expect(second.builds).toBe(0);
    expect(second.loads).toBe(1);
    // warm-up + the one missing question
    expect(second.retrieves).toEqual(['What is the capital of France?', 'What is the capital of France?']);
    expect(run.methods[0]).toMatchObject({ questions: 3, resumed: 2, index: { source: 'loaded' } });
    expect(run.methods[0]?.index.usage.stages.extract?.chatCalls).toBe(2);
    expect(run.skippedLines).toHaveLength(1);
    expect(run.methods[0]?.metrics.coverage).toBeCloseTo(2 / 3, 12);

    const third: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    const again = await runFake(third, out);
    expect(third).toEqual({ builds: 0, loads: 0, retrieves: [] });
    expect(again.methods[0]).toMatchObject({ questions: 3, resumed: 3, index: { source: 'skipped' } });
    expect(readResults(out).filter((r) => r.key === again.methods[0]?.key)).toHaveLength(3);
  });

  it('refuses to mix results made with other settings unless told to restart', async () => {
    const out = tmp();
    const log: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    await runFake(log, out, { budgetTokens: 500 });
    await expect(runFake(log, out, { budgetTokens: 900 })).rejects.toSatisfy(
      (e: unknown) => InvalidArgumentError.isInstance(e) && /other settings.*restart/.test(e.message),
    );
    const run = await runFake(log, out, { budgetTokens: 900, restart: true });
    // The budget is not the index's: the saved one is loaded.
    expect(run.methods[0]).toMatchObject({ questions: 3, resumed: 0, index: { source: 'loaded' } });
    expect(log).toMatchObject({ builds: 1, loads: 1 });
  });

  it('loads the saved index when only retrieve settings change, and builds for other build options', async () => {
    const out = tmp();
    const log: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    const sources: (string | undefined)[] = [];
    const settings: [Record<string, unknown>, Record<string, unknown>, Partial<RunOptions>][] = [
      [{}, {}, {}],
      [{}, { mode: 'b' }, {}],
      [{}, { mode: 'b' }, { topK: 2, budgetTokens: 700 }],
      [{ size: 2 }, {}, {}],
      [{ size: 2 }, { mode: 'c' }, {}],
      // Back to the first build options: out/indexes/fake holds the size-2 index now.
      [{}, { mode: 'd' }, {}],
      [{}, { mode: 'b' }, {}],
    ];
    for (const [options, retrieve, run] of settings) {
      const { methods } = await runEval({
        dataset,
        methods: [{ method: fakeMethod(log), options, retrieve }],
        context: scriptedContext(),
        out,
        restart: true,
        ...run,
      });
      sources.push(methods[0]?.index.source);
    }
    expect(sources).toEqual(['built', 'loaded', 'loaded', 'built', 'loaded', 'built', 'skipped']);
    expect(log).toMatchObject({ builds: 3, loads: 3 });
    const builds = readFileSync(join(out, 'builds.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [first, second, third] = builds.map((b) => b.buildKey);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect([second === first, third === first]).toEqual([false, true]);
  });

  it('records a failing question with its error and counts it, and retries it on resume', async () => {
    const out = tmp();
    const log: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    let fail = true;
    const method = fakeMethod(log, {
      onRetrieve: (q) => {
        if (fail && q === 'What is the capital of France?' && log.retrieves.length > 1)
          throw new Error('index corrupted');
      },
    });
    const run = await runMethod(method, out, { concurrency: 1 });
    expect(run.methods[0]).toMatchObject({
      questions: 2,
      failed: 1,
      errors: [{ questionId: 'q3', message: 'Error: index corrupted' }],
    });
    fail = false;
    const again = await runMethod(method, out, { concurrency: 1 });
    expect(again.methods[0]).toMatchObject({ questions: 3, failed: 0, resumed: 2 });
  });

  it('runs judges on the answers and resumes their judgments', async () => {
    const out = tmp();
    const judgeReplies = (call: { messages: { content: string }[] }) => {
      const prompt = call.messages.at(-1)?.content ?? '';
      if (prompt.includes('Answer to grade'))
        return JSON.stringify({ correct: prompt.includes('Answer to grade:\nLondon') });
      if (prompt.includes('Answer 1:')) {
        const first = /Answer 1:\n([^\n]*)/.exec(prompt)?.[1] ?? '';
        const winner = first.startsWith('London') ? 'Answer 1' : 'Answer 2';
        return JSON.stringify({
          comprehensiveness: winner,
          diversity: 'tie',
          empowerment: winner,
          overall: winner,
        });
      }
      return JSON.stringify({ 'Answer A': { logic: 2, insight: 1 }, 'Answer B': { logic: 2, insight: 1 } });
    };
    const judge = createScriptedChatModel((call) => judgeReplies(call), { modelId: 'judge' });
    const log: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    const options = {
      dataset: { ...dataset, questions: dataset.questions.slice(0, 1) },
      methods: [
        {
          label: 'good',
          method: fakeMethod(log),
          context: scriptedContext({ 'Where was Ada born?': 'London' }),
        },
        {
          label: 'bad',
          method: fakeMethod(log),
          context: scriptedContext({ 'Where was Ada born?': 'Paris' }),
        },
      ],
      out,
      generateAnswers: true,
      judge: { model: judge, pairwiseBaseline: 'bad', empowerment: true },
    };
    const run = await runEval(options);
    expect(run.methods.map((m) => m.metrics.judgeCorrect)).toEqual([1, 0]);
    expect(run.judge?.pairwise).toEqual({
      baseline: 'bad',
      rates: {
        good: {
          winRate: { comprehensiveness: 1, diversity: 0.5, empowerment: 1, overall: 1 },
          judged: 1,
          failed: 0,
        },
      },
    });
    expect(run.judge?.empowerment).toEqual({
      good: { logic: 2, insight: 1, total: 3, judged: 1 },
      bad: { logic: 2, insight: 1, total: 3, judged: 1 },
    });
    // 2 correctness + 2 pairwise showings + 2 empowerment showings
    expect(judge.calls).toHaveLength(6);
    expect(run.judge?.usage.total.chatCalls).toBe(6);
    await runEval(options);
    expect(judge.calls).toHaveLength(6);
  });

  it('rejects judges without answers, unknown baselines and duplicate labels', async () => {
    const judge = createScriptedChatModel([]);
    const log: FakeLog = { builds: 0, loads: 0, retrieves: [] };
    const base = { dataset, context: scriptedContext(), out: tmp() };
    await expect(
      runEval({ ...base, methods: [{ method: fakeMethod(log) }], judge: { model: judge } }),
    ).rejects.toThrow(/set generateAnswers: true/);
    await expect(
      runEval({
        ...base,
        methods: [{ method: fakeMethod(log) }],
        generateAnswers: true,
        judge: { model: judge, pairwiseBaseline: 'x' },
      }),
    ).rejects.toThrow(/pairwise baseline "x" is not one of the methods \(fake\)/);
    await expect(
      runEval({ ...base, methods: [{ method: fakeMethod(log) }, { method: fakeMethod(log) }] }),
    ).rejects.toThrow(/two methods are labelled "fake"/);
    await expect(runEval({ dataset, out: tmp(), methods: [{ method: fakeMethod(log) }] })).rejects.toThrow(
      /no providers/,
    );
  });

  it('evaluates a real method offline, saving its index for the next session', async () => {
    const out = tmp();
    const context = () => {
      const { tasks, embedder } = createOfflineProviders();
      return createBuildContext({ tasks, embedder });
    };
    const run = await runEval({
      dataset,
      methods: [{ method: bm25Rag, options: { chunking: 'document' } }],
      context,
      out,
      budgetTokens: 40,
      recallAt: [1],
    });
    const s = run.methods[0];
    // each question's own words pick its passage first
    expect(s?.metrics['recall@1']).toBeCloseTo((1 + 0.5 + 1) / 3, 12);
    expect(s?.metrics.coverage).toBe(1);
    expect(s?.contextTokens).toBeLessThanOrEqual(40);
    expect(existsSync(join(out, 'indexes', 'bm25', 'manifest.json'))).toBe(true);
    expect(readdirSync(out).sort()).toEqual([
      'builds.jsonl',
      'indexes',
      'results.jsonl',
      'run.json',
      'sessions.jsonl',
    ]);
  });
});

describe('answer formats', () => {
  it('shows the options of a multiple-choice question and scores the letter', () => {
    const q: EvalQuestion = {
      id: 'm',
      question: 'Which city is in France?',
      answers: ['Paris'],
      supporting: [],
      format: 'multiple-choice',
      options: ['London', 'Paris'],
      correctOption: 1,
    };
    expect(answerQuery(q)).toBe(
      'Which city is in France?\nOptions:\nA. London\nB. Paris\nAnswer with the letter of the correct option.',
    );
    expect(answerMetrics(q, 'B')).toEqual({ accuracy: 1 });
    expect(answerMetrics(q, 'London')).toEqual({ accuracy: 0 });
  });

  it('scores open answers with ROUGE-L and F1, entity answers with Hit@1 / P / R / F1', () => {
    const open: EvalQuestion = {
      id: 'o',
      question: 'Q',
      answers: ['the cat was on the mat'],
      supporting: [],
      format: 'open',
    };
    expect(answerMetrics(open, 'the cat sat on the mat').rougeL).toBeCloseTo(5 / 6, 12);
    const entity: EvalQuestion = {
      id: 'e',
      question: 'Which film?',
      answers: ['Kung Fu Panda'],
      supporting: [],
      format: 'entity',
      entities: [['Kung Fu Panda']],
    };
    expect(answerQuery(entity)).toBe('Which film?\nAnswer with the entity name only.');
    expect(answerMetrics(entity, 'Kung Fu Panda; Shrek')).toMatchObject({
      hit1: 1,
      entityPrecision: 0.5,
      entityRecall: 1,
      entityF1: 2 / 3,
      em: 0,
    });
  });
});

describe('runEval output directory', () => {
  it('refuses a directory that holds files of someone else and changes nothing', async () => {
    const out = mkdtempSync(join(tmpdir(), 'grag-eval-'));
    writeFileSync(join(out, 'report.md'), 'my own report');
    const error = await runFake({ builds: 0, loads: 0, retrieves: [] }, out).catch((e) => e);
    expect(OutputError.isInstance(error)).toBe(true);
    expect(error.message).toContain(out);
    expect(readdirSync(out)).toEqual(['report.md']);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toBe('my own report');
  });
});

describe('runEval passage ranking', () => {
  it("reads Recall@k through the method's passageRanking, and a spec's override", async () => {
    const recall = async (
      spec: { passageRanking?: { kinds?: string[]; order?: 'context' | 'score' } },
      method: Method<FakeIndex>,
    ) => {
      const out = mkdtempSync(join(tmpdir(), 'grag-eval-'));
      const run = await runEval({
        dataset,
        methods: [{ method, ...spec }],
        context: scriptedContext(),
        out,
        recallAt: [1],
      });
      return run.methods[0]?.metrics['recall@1'];
    };
    const log = () => ({ builds: 0, loads: 0, retrieves: [] });
    // In plan order only q1 has a gold passage first (p1 of [p1]): (1 + 0 + 0) / 3.
    expect(await recall({}, fakeMethod(log()))).toBeCloseTo(1 / 3, 12);
    // A method whose declared evidence is another kind ranks no passage.
    expect(await recall({}, { ...fakeMethod(log()), passageRanking: { kinds: ['summary'] } })).toBe(0);
    // By score, reversed here: q1 ranks p3 first (0), q2 its gold p2 (1 of 2 gold), q3 p1 (0): 1/6.
    const reversed = fakeMethod(log());
    const retrieve = reversed.retrieve.bind(reversed);
    reversed.retrieve = async (index, query) => {
      const r = await retrieve(index, query);
      return { ...r, items: r.items.map((i, n) => ({ ...i, score: n })) };
    };
    expect(await recall({ passageRanking: { order: 'score' } }, reversed)).toBeCloseTo(1 / 6, 12);
  });
});
