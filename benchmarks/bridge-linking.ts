/**
 * Bridge linking: on each multi-hop dev slice, how many gold bridge entities end up as one graph
 * node that connects the two supporting passages it bridges, after the offline extraction
 * (`@grag/offline` `extractGraph` on every passage, "title\ntext" as the methods give it) and the
 * KG assembly of `@grag/core` — with entity linking off ("before") and on ("after").
 *
 *   npx tsx benchmarks/bridge-linking.ts ../shared/datasets [--datasets musique,hotpotqa,2wikimultihopqa]
 *        [--modes off,on] [--label after] [--repeats 5] [--out benchmarks/results] [--merge before.json]
 *
 * One child process per (dataset, mode), so the build time is its own. The script uses only APIs
 * that also exist before entity linking was added (unknown options are ignored there), so the same
 * file run from a checkout of the older commit measures "before": `--modes off --label before`.
 * `--merge file.json` adds the rows of an earlier run (e.g. that checkout's) to the tables.
 * `--report file.json` only rewrites the markdown from a saved JSON.
 * `--before-checkout dir [--pairs 3] [--pairs-dataset musique]` then times the build before/after in
 * alternating child processes of that checkout and this one (the same load for both).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assembleKnowledgeGraph } from '@grag/core/graph';
import { createOfflineTasks } from '@grag/offline';
import { machine, runInChild } from './lib.js';

const DATASETS = ['musique', 'hotpotqa', '2wikimultihopqa'] as const;
const NAMES: Record<string, string> = {
  musique: 'MuSiQue',
  hotpotqa: 'HotpotQA',
  '2wikimultihopqa': '2Wiki',
};

interface Passage {
  id: string;
  title: string;
  text: string;
}
interface Question {
  id: string;
  question: string;
  type: string;
  supporting: string[];
  supporting_titles: string[];
  decomposition?: { question: string; answer: string; passage: string }[];
  evidences?: [string, string, string][];
}
/** A gold bridge: entity `name` links passage `from` to passage `to`. */
interface Bridge {
  question: string;
  name: string;
  from: string;
  to: string;
}
export interface ModeResult {
  dataset: string;
  label: string;
  mode: 'off' | 'on';
  passages: number;
  bridges: number;
  questionsWithBridges: number;
  /** Share of bridges with one entity node named like the bridge whose chunks include both passages. */
  linked: number;
  /** Share of bridges whose name is some entity node (anywhere). */
  nodeFound: number;
  /** Share of bridges whose two passages share at least one named (non-date, non-concept) entity node. */
  connected: number;
  entities: number;
  relations: number;
  extractSeconds: number;
  assembleSeconds: number;
  buildSeconds: number;
  coldSeconds: number;
  linkingStats?: unknown;
}

/** Gold and node names are compared folded: case, diacritics, punctuation, a trailing "(…)", a leading article or preposition. */
export function fold(name: string): string {
  const words =
    (name.normalize('NFKC').replace(/\s*[([][^()[\]]*[)\]]\s*$/u, '') || name)
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  while (words.length > 1 && LEADING.has(words[0]!)) words.shift();
  return words.join(' ');
}
const LEADING = new Set(['the', 'a', 'an', 'in', 'on', 'at', 'during', 'from', 'by', 'of']);

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Whether the folded `phrase` occurs in the folded `text` as whole words. */
function mentions(text: string, phrase: string): boolean {
  return phrase !== '' && ` ${fold(text)} `.includes(` ${phrase} `);
}

/** The gold bridges of a slice (see the markdown for the definitions). */
export function bridgesOf(dataset: string, questions: Question[], passages: Map<string, Passage>): Bridge[] {
  const out: Bridge[] = [];
  for (const q of questions) {
    if (dataset === 'musique') {
      const steps = q.decomposition ?? [];
      steps.forEach((step, i) => {
        if (i === steps.length - 1) return;
        const users = steps.filter((s, j) => j > i && s.question.includes(`#${i + 1}`));
        for (const user of users.length > 0 ? users : [steps[i + 1]!]) {
          if (user.passage !== step.passage)
            out.push({ question: q.id, name: step.answer, from: step.passage, to: user.passage });
        }
      });
    } else if (dataset === '2wikimultihopqa') {
      const idOf = new Map(q.supporting_titles.map((t, i) => [fold(t), q.supporting[i]!]));
      const seen = new Set<string>();
      for (const [s1, , o1] of q.evidences ?? []) {
        for (const [s2] of q.evidences ?? []) {
          if (fold(s2) !== fold(o1) || fold(s1) === fold(s2)) continue;
          const from = idOf.get(fold(s1));
          const to = idOf.get(fold(s2));
          const key = `${from}|${to}|${fold(o1)}`;
          if (!from || !to || seen.has(key)) continue;
          seen.add(key);
          out.push({ question: q.id, name: o1, from, to });
        }
      }
    } else if (q.type === 'bridge' && q.supporting.length === 2) {
      const [a, b] = q.supporting as [string, string];
      for (const [about, other] of [
        [a, b],
        [b, a],
      ] as const) {
        const title = passages.get(about)?.title ?? '';
        if (mentions(passages.get(other)?.text ?? '', fold(title))) {
          out.push({ question: q.id, name: title, from: other, to: about });
        }
      }
    }
  }
  return out;
}

const NON_NAMED = new Set(['date', 'time', 'money', 'percent', 'concept']);

async function runOne(
  dir: string,
  dataset: string,
  mode: 'off' | 'on',
  label: string,
  repeats: number,
): Promise<ModeResult> {
  const corpus = readJsonl<Passage>(join(dir, dataset, 'corpus.jsonl'));
  const questions = readJsonl<Question>(join(dir, dataset, 'questions.jsonl'));
  const passages = new Map(corpus.map((p) => [p.id, p]));
  const bridges = bridgesOf(dataset, questions, passages);
  // `titleLineSubject` and `entityLinking` do not exist before linking: there they are ignored.
  const tasks = createOfflineTasks({ titleLineSubject: mode === 'on' } as never);
  const titles = new Map(corpus.map((p) => [p.id, p.title]));
  // CPU time of this process (user + system): less sensitive than wall time to other load.
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const build = async () => {
    const started = cpu();
    const items = [];
    for (const p of corpus) {
      const text = `${p.title}\n${p.text}`;
      items.push({ chunkId: p.id, docId: p.id, text, extraction: await tasks.extractGraph(text) });
    }
    const extracted = cpu();
    const kg =
      mode === 'on'
        ? assembleKnowledgeGraph(items, { entityLinking: { titles } } as never)
        : assembleKnowledgeGraph(items);
    const assembled = cpu();
    return { kg, extract: (extracted - started) / 1000, assemble: (assembled - extracted) / 1000 };
  };
  // The first build is cold (wink loads, the JIT warms up); times are the least of `repeats` builds.
  const runs = [];
  for (let r = 0; r < repeats; r++) runs.push(await build());
  const least = (xs: number[]) => Math.min(...xs);
  const kg = runs[0]!.kg;
  const extractSeconds = least(runs.map((r) => r.extract));
  const assembleSeconds = least(runs.map((r) => r.assemble));
  const buildSeconds = least(runs.map((r) => r.extract + r.assemble));
  const coldSeconds = runs[0]!.extract + runs[0]!.assemble;

  // A node answers to its name and, after linking, to the aliases folded into it.
  const aliases = (kg as { linking?: { aliases: Map<string, string[]> } }).linking?.aliases ?? new Map();
  const byName = new Map<string, { chunks: Set<string> }[]>();
  const perChunk = new Map<string, Set<string>>();
  for (const e of kg.entities.values()) {
    const node = { chunks: new Set(e.chunkIds) };
    for (const key of new Set([e.name, ...(aliases.get(e.id) ?? [])].map(fold))) {
      const list = byName.get(key) ?? [];
      list.push(node);
      byName.set(key, list);
    }
    if (NON_NAMED.has(e.types[0] ?? '')) continue;
    for (const c of e.chunkIds) {
      const set = perChunk.get(c) ?? new Set<string>();
      perChunk.set(c, set);
      set.add(e.id);
    }
  }
  let linked = 0;
  let found = 0;
  let connected = 0;
  for (const b of bridges) {
    const nodes = byName.get(fold(b.name)) ?? [];
    if (nodes.length > 0) found++;
    if (nodes.some((n) => n.chunks.has(b.from) && n.chunks.has(b.to))) linked++;
    else if (process.env.BRIDGE_MISSES) {
      const names = (chunk: string) =>
        [...kg.entities.values()].filter((e) => e.chunkIds.includes(chunk)).map((e) => e.name);
      console.error(
        `MISS ${JSON.stringify(b.name)} from ${passages.get(b.from)?.title} [${names(b.from).join('; ')}] to ${passages.get(b.to)?.title} [${names(b.to).join('; ')}]`,
      );
    }
    const x = perChunk.get(b.from) ?? new Set();
    const y = perChunk.get(b.to) ?? new Set();
    if ([...x].some((id) => y.has(id))) connected++;
  }
  const n = Math.max(1, bridges.length);
  const linking = (kg as { linking?: { stats: unknown } }).linking;
  return {
    dataset,
    label,
    mode,
    passages: corpus.length,
    bridges: bridges.length,
    questionsWithBridges: new Set(bridges.map((b) => b.question)).size,
    linked: linked / n,
    nodeFound: found / n,
    connected: connected / n,
    entities: kg.entities.size,
    relations: kg.relations.size,
    extractSeconds,
    assembleSeconds,
    buildSeconds,
    coldSeconds,
    ...(linking ? { linkingStats: linking.stats } : {}),
  };
}

const f3 = (x: number) => x.toFixed(3);
const f2 = (x: number) => x.toFixed(2);

function describeMachine(): string {
  const m = machine();
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}`;
}

interface Paired {
  dataset: string;
  /** Build CPU seconds (least of `repeats` builds) of each before child, in run order. */
  before: number[];
  after: number[];
}

function markdown(rows: ModeResult[], paired?: Paired): string {
  const lines = [
    '# Bridge linking',
    '',
    'Does the offline graph connect the two supporting passages of a multi-hop question through the',
    'entity that bridges them? Every passage of each dev slice (`../shared/datasets`) is extracted',
    'with `@grag/offline` `extractGraph` on "title\\ntext" (what the methods give it, one chunk per',
    'passage) and the extractions are merged by `@grag/core` `assembleKnowledgeGraph`, **before**',
    '(the commit before entity linking; same script) and **after** (`entityLinking: { titles }`, and',
    "the extractor's title-line subject).",
    '',
    '## Definitions',
    '',
    '- **Bridge entity** (a question can have several; each is one row of the count):',
    '  - MuSiQue: the answer of every non-final step of the official `decomposition`; it bridges',
    "    that step's passage and the passage of each later step whose question uses it (`#k`).",
    '  - 2Wiki: the object `o` of an evidence triple `(s, r, o)` that is the subject of another',
    '    evidence triple `(o, r2, x)`; it bridges the passages titled `s` and `o`.',
    '  - HotpotQA (`bridge` questions with two supporting passages): the title of a supporting passage',
    '    that the other supporting passage mentions (folded match, whole words); it bridges the two.',
    '- **linked**: some entity node is named like the bridge and lists both passages among its',
    '  chunks. Names are compared folded: case, diacritics, punctuation, a trailing "(…)", and a',
    '  leading article or preposition ("During the Korean War" = "Korean War") are ignored.',
    '- **node found**: some entity node is named like the bridge (any chunks).',
    '- **connected**: the two passages share at least one named entity node (not a date, number or',
    '  `concept` noun phrase), whatever its name.',
    '- **build s**: CPU seconds (user + system) of the offline extraction of every passage + KG assembly',
    '  (linking included), the least of five builds in one process (extract s and assemble s: the least',
    '  of each part); **cold s**: the first build (wink loading, JIT warm-up). CPU time, because the',
    '  machine is shared and wall time varied by ±40% between identical runs.',
    '',
    '## Results',
    '',
    '| slice | run | bridges (questions) | linked | node found | connected | entities | relations | build s | extract s | assemble s | cold s |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const dataset of DATASETS) {
    for (const r of rows.filter((x) => x.dataset === dataset)) {
      lines.push(
        `| ${NAMES[dataset]} | ${r.label} | ${r.bridges} (${r.questionsWithBridges}) | ${f3(r.linked)} | ${f3(r.nodeFound)} | ${f3(r.connected)} | ${r.entities} | ${r.relations} | ${f2(r.buildSeconds)} | ${f2(r.extractSeconds)} | ${f2(r.assembleSeconds)} | ${f2(r.coldSeconds)} |`,
      );
    }
  }
  if (paired) {
    const min = (xs: number[]) => Math.min(...xs);
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const change = (a: number, b: number) => `${b >= a ? '+' : ''}${Math.round((100 * (b - a)) / a)}%`;
    lines.push(
      '',
      `## Build time, paired (${NAMES[paired.dataset]})`,
      '',
      `${paired.before.length} pairs of child processes, alternating before (the older checkout, linking off) and after`,
      '(linking on), so that both see the same load; each number is the least CPU time of five builds.',
      '',
      '| | before s | after s | change |',
      '|---|---:|---:|---:|',
      `| least | ${f2(min(paired.before))} | ${f2(min(paired.after))} | ${change(min(paired.before), min(paired.after))} |`,
      `| median | ${f2(med(paired.before))} | ${f2(med(paired.after))} | ${change(med(paired.before), med(paired.after))} |`,
      `| runs | ${paired.before.map(f2).join(', ')} | ${paired.after.map(f2).join(', ')} | |`,
    );
  }
  const withStats = rows.filter((r) => r.linkingStats);
  if (withStats.length > 0) {
    lines.push('', '## What linking did (after)', '', '```json');
    for (const r of withStats) lines.push(`${NAMES[r.dataset]}: ${JSON.stringify(r.linkingStats)}`);
    lines.push('```');
  }
  lines.push(
    '',
    `Machine: ${describeMachine()}; times are CPU seconds on a shared machine (load average 10-15 during these runs).`,
    '',
    'Reproduce: `npx tsx benchmarks/bridge-linking.ts ../shared/datasets` (after); the "before" rows come from',
  );
  lines.push(
    'the same script run in a worktree of the previous commit with `--modes off --label before`, merged with `--merge`;',
    'the paired build times come from `--before-checkout <that worktree> --pairs 3`.',
  );
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      datasets: { type: 'string', default: DATASETS.join(',') },
      modes: { type: 'string', default: 'off,on' },
      label: { type: 'string' },
      out: { type: 'string', default: 'benchmarks/results' },
      merge: { type: 'string' },
      report: { type: 'string' },
      'before-checkout': { type: 'string' },
      pairs: { type: 'string', default: '3' },
      'pairs-dataset': { type: 'string', default: 'musique' },
      child: { type: 'string' },
      repeats: { type: 'string', default: '5' },
    },
  });
  const dir = resolve(positionals[0] ?? '../shared/datasets');
  if (values.report) {
    // Rewrite the markdown from a JSON written earlier.
    const saved = JSON.parse(readFileSync(values.report, 'utf8')) as { rows: ModeResult[]; paired?: Paired };
    writeFileSync(join(values.out, 'bridge-linking.md'), markdown(saved.rows, saved.paired));
    return;
  }
  if (values.child) {
    const [dataset, mode, label] = values.child.split(':') as [string, 'off' | 'on', string];
    console.log(JSON.stringify(await runOne(dir, dataset, mode, label, Number(values.repeats))));
    return;
  }
  const rows: ModeResult[] = values.merge
    ? (JSON.parse(readFileSync(values.merge, 'utf8')) as { rows: ModeResult[] }).rows
    : [];
  const script = fileURLToPath(import.meta.url);
  for (const dataset of values.datasets.split(',')) {
    for (const mode of values.modes.split(',') as ('off' | 'on')[]) {
      const label = values.label ?? (mode === 'on' ? 'after' : 'linking off');
      console.error(`${dataset} ${label}…`);
      const row = runInChild<ModeResult>(script, [
        dir,
        '--child',
        `${dataset}:${mode}:${label}`,
        '--repeats',
        values.repeats,
      ]);
      console.error(
        `  linked ${f3(row.linked)} connected ${f3(row.connected)} build ${f2(row.buildSeconds)} s`,
      );
      rows.push(row);
    }
  }
  // Build time before/after, paired: alternate a child of the older checkout (linking off) and one of
  // this checkout (linking on), so both see the same machine load.
  let paired: Paired | undefined;
  const checkout = values['before-checkout'];
  if (checkout) {
    const dataset = values['pairs-dataset'];
    paired = { dataset, before: [], after: [] };
    for (let i = 0; i < Number(values.pairs); i++) {
      const before = execFileSync(
        process.execPath,
        [
          ...process.execArgv,
          join(checkout, 'benchmarks/bridge-linking.ts'),
          dir,
          '--child',
          `${dataset}:off:before`,
          '--repeats',
          values.repeats,
        ],
        { cwd: checkout, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      paired.before.push((JSON.parse(before.trim().split('\n').at(-1)!) as ModeResult).buildSeconds);
      const after = runInChild<ModeResult>(script, [
        dir,
        '--child',
        `${dataset}:on:after`,
        '--repeats',
        values.repeats,
      ]);
      paired.after.push(after.buildSeconds);
      console.error(
        `  pair ${i + 1}: before ${f2(paired.before.at(-1)!)} s, after ${f2(after.buildSeconds)} s`,
      );
    }
  }
  mkdirSync(values.out, { recursive: true });
  writeFileSync(
    join(values.out, 'bridge-linking.json'),
    `${JSON.stringify({ machine: machine(), rows, ...(paired ? { paired } : {}) }, null, 2)}\n`,
  );
  writeFileSync(join(values.out, 'bridge-linking.md'), markdown(rows, paired));
}

await main();
