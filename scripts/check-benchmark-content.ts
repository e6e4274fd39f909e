/**
 * check-benchmark-content: no benchmark question, answer or passage text in the packages or examples.
 *
 * The dev slices in `../shared/datasets` (MuSiQue, HotpotQA, 2WikiMultihopQA) are for measuring the
 * methods, never for writing them: a fixture or a comment built from a dev question tunes the code
 * to the very questions it is scored on. Examples are invented instead (the demo corpus's world in
 * packages/cli/demo: Port Halvard, Merrow Falls, the Kessler Shipyard…).
 *
 * What it checks, on every text file git tracks or would track (`git ls-files -co --exclude-standard`)
 * under `packages/` and `examples/` (not dist/ or node_modules/; files holding a NUL byte are skipped):
 * - every word 6-gram of every question and every answer of the three QA slices;
 * - every word 8-gram of every corpus passage (title and text separately): eight words in a row from
 *   a passage are not written by chance.
 * Words are the lower-cased runs of letters and digits; punctuation and line breaks are ignored, so a
 * sentence split over two comment lines still matches. An n-gram with fewer than two words that are
 * not English function words ("what is the name of the") is ordinary phrasing and is not checked.
 * Overlapping matches are reported as one hit:
 *   path:line: "<the matched words>" (from <slice> question <id>)
 *   path:line: "<the matched words>" (from <slice> passage <id> "<title>")
 * and the exit code is 1 when there is any. Benchmark scripts (benchmarks/) may hold dataset content
 * and are not scanned.
 *
 * Usage:
 *   npx tsx scripts/check-benchmark-content.ts [--datasets ../shared/datasets]
 * The default is `../shared/datasets` from the repository root; a given path is taken from the
 * current directory. Without the datasets folder it prints one line saying so and exits 1 in CI (CI=true), 0 otherwise.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SLICES = ['musique', 'hotpotqa', '2wikimultihopqa'] as const;
const SCANNED = ['packages', 'examples'];
/** Word n-gram lengths: questions and answers, passages and titles. */
const QUESTION_N = 6;
const PASSAGE_N = 8;
/** A hit longer than this many words is printed shortened. */
const MAX_PRINTED_WORDS = 30;

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

const given = argValue('--datasets');
const datasets = given === undefined ? resolve(root, '../shared/datasets') : resolve(given);
const inCi = process.env.CI === 'true' || process.env.CI === '1';

const missing = SLICES.flatMap((s) =>
  ['questions.jsonl', 'corpus.jsonl'].map((f) => join(s, f)).filter((f) => !existsSync(join(datasets, f))),
);
if (missing.length > 0) {
  const what = missing.length === SLICES.length * 2 ? 'no datasets' : `missing ${missing.join(', ')}`;
  if (inCi) {
    console.error(`benchmark-content: ${what} at ${datasets}: cannot check (CI needs ../shared/datasets)`);
    process.exit(1);
  }
  console.warn(`benchmark-content: warning: ${what} at ${datasets}, check skipped`);
  process.exit(0);
}

interface Token {
  word: string;
  line: number;
}

const WORD = /[\p{L}\p{N}]+/gu;

function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The words of a file with the line each starts on (1-based). */
function tokens(text: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let last = 0;
  for (const m of text.toLowerCase().matchAll(WORD)) {
    for (let i = last; i < m.index; i++) if (text.charCodeAt(i) === 10) line++;
    last = m.index;
    out.push({ word: m[0], line });
  }
  return out;
}

/**
 * English function words. An n-gram with fewer than {@link MIN_CONTENT_WORDS} other words is
 * ordinary phrasing, not benchmark content ("what is the name of the", "who is the father of the"),
 * and is not checked.
 */
const FUNCTION_WORDS = new Set(
  (
    'a an the and or but nor so yet if then than as of in on at to from by for with about into onto ' +
    'over under after before between through during without within upon against among off out up down ' +
    'is are was were be been being am do does did done has have had having will would shall should can ' +
    'could may might must i me my we us our you your he him his she her it its they them their this ' +
    'that these those there here who whom whose what which where when why how not no all any both each ' +
    'few more most other some such only own same very just also too s t'
  ).split(' '),
);
const MIN_CONTENT_WORDS = 2;

/** n-gram (words joined by one space) → where it comes from; the first source seen wins. */
type Grams = Map<string, string>;

function addGrams(grams: Grams, text: string, n: number, source: string): void {
  const w = words(text);
  for (let i = 0; i + n <= w.length; i++) {
    const gram = w.slice(i, i + n);
    if (gram.filter((x) => !FUNCTION_WORDS.has(x)).length < MIN_CONTENT_WORDS) continue;
    const g = gram.join(' ');
    if (!grams.has(g)) grams.set(g, source);
  }
}

function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const questionGrams: Grams = new Map();
const passageGrams: Grams = new Map();
for (const slice of SLICES) {
  for (const q of readJsonl(join(datasets, slice, 'questions.jsonl'))) {
    const source = `${slice} question ${String(q.id)}`;
    addGrams(questionGrams, String(q.question ?? ''), QUESTION_N, source);
    for (const a of (q.answers as unknown[] | undefined) ?? [])
      addGrams(questionGrams, String(a), QUESTION_N, source);
  }
  for (const p of readJsonl(join(datasets, slice, 'corpus.jsonl'))) {
    const source = `${slice} passage ${String(p.id)} ${JSON.stringify(String(p.title ?? ''))}`;
    addGrams(passageGrams, String(p.title ?? ''), PASSAGE_N, source);
    addGrams(passageGrams, String(p.text ?? ''), PASSAGE_N, source);
  }
}

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z', '--', ...SCANNED], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
})
  .split('\0')
  .filter((f) => f !== '' && !/(^|\/)(dist|node_modules)\//.test(f));

interface Hit {
  path: string;
  line: number;
  words: string;
  source: string;
}

const hits: Hit[] = [];
let checked = 0;
for (const path of files) {
  const abs = join(root, path);
  if (!existsSync(abs)) continue; // deleted in the working tree
  const buf = readFileSync(abs);
  if (buf.includes(0)) continue; // binary
  checked++;
  const toks = tokens(buf.toString('utf8'));
  // covered[i]: the source of a matched n-gram covering token i (the leftmost one), or undefined.
  const covered: (string | undefined)[] = new Array(toks.length);
  const cover = (start: number, n: number, source: string): void => {
    for (let k = start; k < start + n; k++) covered[k] ??= source;
  };
  for (let i = 0; i < toks.length; i++) {
    if (i + QUESTION_N <= toks.length) {
      const g = toks
        .slice(i, i + QUESTION_N)
        .map((t) => t.word)
        .join(' ');
      const s = questionGrams.get(g);
      if (s !== undefined) cover(i, QUESTION_N, s);
    }
    if (i + PASSAGE_N <= toks.length) {
      const g = toks
        .slice(i, i + PASSAGE_N)
        .map((t) => t.word)
        .join(' ');
      const s = passageGrams.get(g);
      if (s !== undefined) cover(i, PASSAGE_N, s);
    }
  }
  for (let i = 0; i < toks.length; ) {
    const source = covered[i];
    if (source === undefined) {
      i++;
      continue;
    }
    let j = i;
    while (j < toks.length && covered[j] !== undefined) j++;
    const run = toks.slice(i, j).map((t) => t.word);
    const shown =
      run.length > MAX_PRINTED_WORDS
        ? `${run.slice(0, MAX_PRINTED_WORDS).join(' ')} … (${run.length} words)`
        : run.join(' ');
    hits.push({ path, line: toks[i]!.line, words: shown, source });
    i = j;
  }
}

for (const h of hits) console.log(`${h.path}:${h.line}: "${h.words}" (from ${h.source})`);
if (hits.length > 0) {
  console.log(
    `benchmark-content: ${hits.length} hit(s) in ${new Set(hits.map((h) => h.path)).size} of ${checked} files: ` +
      'benchmark text must not appear in packages/ or examples/ (invent examples instead; see README, Contributing)',
  );
  process.exit(1);
}
console.log(
  `benchmark-content: ${checked} files checked, no ${QUESTION_N}-word sequence of the dev questions or answers` +
    ` and no ${PASSAGE_N}-word sequence of their passages`,
);
