/**
 * Fuzz test of every task parser: 10,000 seeded malformed outputs each, built from valid outputs
 * (each generator reproduces the task's renderer exactly in its canonical style, which is checked)
 * by the mutations small local models make: prose around the answer, code fences, trailing commas,
 * single quotes, bare keys, other key spellings and cases, UPPER/lower/mixed-case names, other or
 * missing tuple delimiters, extra spaces, list markers, garbage records in between, and truncation
 * at a random point.
 *
 * The output is assembled from tagged parts, so the test knows which records lie completely before
 * the cut. For each case it checks: no exception; every record present in the input is recovered
 * (names compared case-insensitively, text with whitespace runs collapsed); every garbage record
 * present is reported in an issue's raw text (or was read as a record: never dropped silently);
 * and, where the format makes a cut visible, a record cut in the middle gives a 'truncated' issue.
 */
import { describe, expect, it } from 'vitest';
import type { ParseIssue } from '../src/contracts/tasks.js';
import {
  normalizeRelevanceScore,
  parseAnswer,
  parseCommunityAssessment,
  parseGraphExtraction,
  parseQueryEntities,
  parseQueryGraph,
  parseRelationshipTriple,
  parseSemanticUnits,
  parseSummary,
  parseTitleDescription,
  parseYesNo,
  renderAnswer,
  renderCommunityAssessment,
  renderGraphExtraction,
  renderQueryEntities,
  renderQueryGraph,
  renderSemanticUnits,
  renderSummary,
  renderTitleDescription,
  renderYesNo,
} from '../src/tasks/index.js';
import { mulberry32 } from '../src/test/random.js';

const RUNS = 10_000;
const SEED = 0x5eed_2024;

// ---------------------------------------------------------------------------------------------
// Seeded choices

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  /** `n` distinct items (case-insensitively distinct strings). */
  distinct(items: readonly string[], n: number): string[] {
    const out: string[] = [];
    for (let guard = 0; out.length < n && guard < 100; guard++) {
      const item = this.pick(items);
      if (!out.some((o) => o.toLowerCase() === item.toLowerCase())) out.push(item);
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary: realistic names and sentences, with apostrophes, ampersands, digits, accents,
// parentheses, commas and quoted phrases, but none of the delimiters a mutation introduces.

const NAMES = [
  'Marie Curie',
  'Pierre Curie',
  'Warsaw',
  'Paris',
  'University of Paris',
  'Nobel Prize',
  'Radium Institute',
  'Sorbonne',
  'Poland',
  'Albert Einstein',
  'Irène Joliot-Curie',
  'Solvay Conference',
  'Lake Geneva',
  'Seine',
  'Acme Corp',
  'Bank of England',
  "O'Neill Group",
  "St. Mary's Hospital",
  'R&D Lab',
  '3M',
  'Apollo 11',
  'Zürich',
  'Kraków',
  'World War I',
  'ESPCI',
];
const UNIT_NAMES = [...NAMES, 'Washington, D.C.', 'Smith, Jones & Co.'];
const TYPES = ['person', 'organization', 'geo', 'event', 'Person', 'GEO'];
const WORDS = [
  'studied',
  'radioactivity',
  'with',
  'her',
  'husband',
  'in',
  'the',
  'city',
  'of',
  'won',
  'two',
  'prizes',
  'founded',
  'a',
  'laboratory',
  'near',
  'river',
  'capital',
  'known',
  'for',
  'research',
  'chemistry',
  'physics',
  'lived',
  'worked',
  '1867',
  '1903',
  'first',
  'woman',
  'to',
  'teach',
  'at',
  'institute',
  "Curie's",
  'R&D',
  'élite',
  'and',
];
const RELATIONS = ['won', 'founded', 'lived in', 'worked with', 'is located in', 'married', 'studied at'];

function sentence(rng: Rng, min = 3, max = 9): string {
  const words: string[] = [];
  const n = rng.range(min, max);
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  if (n >= 4 && rng.chance(0.3)) words.splice(rng.range(1, n - 2), 0, '"Mme Curie"');
  let s = words.join(' ');
  if (n >= 3 && rng.chance(0.3)) s = s.replace(/ /, ', ');
  if (rng.chance(0.2)) s += ` (since ${rng.range(1850, 1950)})`;
  s = s[0]!.toUpperCase() + s.slice(1);
  return rng.chance(0.5) ? `${s}.` : s;
}

type CaseFn = (s: string) => string;
const AS_IS: CaseFn = (s) => s;
function caseFn(rng: Rng): CaseFn {
  return rng.pick<CaseFn>([
    AS_IS,
    (s) => s.toUpperCase(),
    (s) => s.toLowerCase(),
    (s) => s.replace(/\p{L}+/gu, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase()),
    (s) => [...s].map((c, i) => (i % 2 ? c.toLowerCase() : c.toUpperCase())).join(''),
  ]);
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const lc = (s: string) => norm(s).toLowerCase();

// ---------------------------------------------------------------------------------------------
// Tagged output: parts of text, some of them records (with a check of the parse) or garbage.

type Check<R> = (out: R) => string | undefined;

interface Part<R> {
  text: string;
  check?: Check<R>;
  garbage?: string;
}

class Doc<R> {
  readonly parts: Part<R>[] = [];
  add(text: string, tag: Omit<Part<R>, 'text'> = {}): this {
    if (text || tag.check) this.parts.push({ text, ...tag });
    return this;
  }
  get text(): string {
    return this.parts.map((p) => p.text).join('');
  }
}

/** A generated output, cut or not, with what lies completely before the cut. */
interface Cut<R> {
  text: string;
  checks: Check<R>[];
  garbage: string[];
  /** The cut falls inside a record. */
  inside: boolean;
  cut: boolean;
}

function cutDoc<R>(doc: Doc<R>, rng: Rng, p = 0.35): Cut<R> {
  const full = doc.text;
  const cut = rng.chance(p);
  const at = cut ? rng.int(full.length + 1) : full.length;
  const out: Cut<R> = { text: full.slice(0, at), checks: [], garbage: [], inside: false, cut };
  let pos = 0;
  for (const part of doc.parts) {
    const end = pos + part.text.length;
    if (end <= at) {
      if (part.check) out.checks.push(part.check);
      if (part.garbage) out.garbage.push(part.garbage);
    } else if (pos < at && part.check) {
      out.inside = true;
    }
    pos = end;
  }
  return out;
}

/** Prose, fences. */
const PREFIXES = ['Sure! Here is the output:\n', 'Here are the results [as requested]:\n\n', 'Output:\n'];
const SUFFIXES = ['\n\nLet me know if you need anything else.', '\nI hope this helps!'];
const FENCES: [string, string][] = [
  ['```\n', '\n```'],
  ['```json\n', '\n```'],
  ['```text\n', '\n```'],
  ['~~~\n', '\n~~~'],
];

interface Wrap {
  prefix: string;
  open: string;
  close: string;
  suffix: string;
}
function wrap(rng: Rng, canonical: boolean, allowSuffix = true): Wrap {
  if (canonical) return { prefix: '', open: '', close: '', suffix: '' };
  const fence = rng.chance(0.4) ? rng.pick(FENCES) : ['', ''];
  return {
    prefix: rng.chance(0.4) ? rng.pick(PREFIXES) : '',
    open: fence[0]!,
    close: fence[1]!,
    suffix: allowSuffix && rng.chance(0.4) ? rng.pick(SUFFIXES) : '',
  };
}

// ---------------------------------------------------------------------------------------------
// JSON writing with the mutations models make

interface JsonStyle {
  quote: '"' | "'";
  escape: boolean;
  bare: boolean;
  trailing: boolean;
  pretty: boolean;
  keyCase: CaseFn;
  aliases: boolean;
}
const CANONICAL_JSON: JsonStyle = {
  quote: '"',
  escape: true,
  bare: false,
  trailing: false,
  pretty: false,
  keyCase: AS_IS,
  aliases: false,
};
function jsonStyle(rng: Rng): JsonStyle {
  return {
    quote: rng.chance(0.3) ? "'" : '"',
    escape: rng.chance(0.5),
    bare: rng.chance(0.3),
    trailing: rng.chance(0.3),
    pretty: rng.chance(0.5),
    keyCase: rng.chance(0.3)
      ? rng.pick<CaseFn>([(s) => s.toUpperCase(), (s) => s[0]!.toUpperCase() + s.slice(1)])
      : AS_IS,
    aliases: rng.chance(0.3),
  };
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function jString(s: string, st: JsonStyle): string {
  if (st.quote === '"') return JSON.stringify(s);
  return `'${st.escape ? s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") : s}'`;
}
function jKey(key: string, st: JsonStyle): string {
  const k = st.keyCase(key);
  return st.bare && /^[A-Za-z_]\w*$/.test(k) ? k : jString(k, st);
}
function jValue(v: Json, st: JsonStyle): string {
  const [comma, colon] = st.pretty ? [', ', ': '] : [',', ':'];
  const tail = st.trailing ? ',' : '';
  if (typeof v === 'string') return jString(v, st);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (Array.isArray(v)) return v.length ? `[${v.map((x) => jValue(x, st)).join(comma)}${tail}]` : '[]';
  const entries = Object.entries(v).map(([k, x]) => `${jKey(k, st)}${colon}${jValue(x, st)}`);
  return entries.length ? `{${entries.join(comma)}${tail}}` : '{}';
}

/** Pick one spelling of a key when the style uses aliases. */
function alias(rng: Rng, st: JsonStyle, key: string, others: readonly string[]): string {
  return st.aliases && rng.chance(0.5) ? rng.pick(others) : key;
}

/** A JSON value as a part of the doc: written with the style, or given as raw text. */
interface Item<R> {
  value?: Json;
  raw?: string;
  check?: Check<R>;
  garbage?: string;
}

/**
 * A JSON object written part by part: a member with `list` is an array whose elements are parts
 * (records, garbage); a member with `scalar` is one part, `key: value`, which also takes the
 * separator after it when `withNext` (a number is only complete once something follows it).
 */
function jsonObject<R>(
  doc: Doc<R>,
  st: JsonStyle,
  members: { key: string; list?: Item<R>[]; scalar?: Item<R> & { withNext?: boolean } }[],
): void {
  const nl = st.pretty ? '\n' : '';
  const ind = st.pretty ? '  ' : '';
  const [comma, colon] = st.pretty ? [',', ': '] : [',', ':'];
  const write = (item: Item<R>) => item.raw ?? jValue(item.value ?? null, st);
  doc.add(`{${nl}`);
  let closed = false;
  members.forEach((member, mi) => {
    // What follows the member: a comma (unless last, without trailing commas) and a line break.
    const tail = `${mi < members.length - 1 || st.trailing ? comma : ''}${nl}`;
    if (member.scalar) {
      const text = `${ind}${jKey(member.key, st)}${colon}${write(member.scalar)}`;
      const tag = { check: member.scalar.check, garbage: member.scalar.garbage };
      if (member.scalar.withNext) {
        // The value counts as written once the next character is: the comma, or the brace.
        const follow = tail || '}';
        closed = tail === '';
        doc.add(text + follow[0], tag).add(follow.slice(1));
      } else {
        doc.add(text, tag).add(tail);
      }
      return;
    }
    const items = member.list ?? [];
    doc.add(`${ind}${jKey(member.key, st)}${colon}[${items.length ? nl : ''}`);
    items.forEach((item, i) => {
      doc.add(`${ind}${ind}${write(item)}`, { check: item.check, garbage: item.garbage });
      doc.add(i < items.length - 1 || st.trailing ? `${comma}${nl}` : nl);
    });
    doc.add(`${items.length ? ind : ''}]${tail}`);
  });
  if (!closed) doc.add('}');
}

/** Insert marked garbage elements into a list, each place with probability `p`. */
function interleave<R>(rng: Rng, list: Item<R>[], p: number, make: (marker: string) => string): void {
  for (let i = 0; i <= list.length; i++) {
    if (rng.chance(p)) {
      const marker = `zq${rng.range(100, 999)}x`;
      list.splice(i, 0, { raw: make(marker), garbage: marker });
      i++;
    }
  }
}

/** Malformed JSON elements with a marker in them. */
function jsonGarbage(
  rng: Rng,
  st: JsonStyle,
  marker: string,
  kind: 'entity' | 'relation' | 'unit' | 'node' | 'edge',
) {
  const q = st.quote;
  const options: string[] = [
    `{${q}${marker}${q}: true}`,
    `{${q}name${q}: ${q}${marker}${q}, ${q}type${q}: }`,
    `{name ${q}${marker}${q} type ${q}x${q}}`,
  ];
  if (kind === 'relation')
    options.push(`{${q}source${q}: ${q}${marker}${q}, ${q}description${q}: ${q}no target${q}}`);
  if (kind === 'edge') options.push(`{${q}source${q}: ${q}${marker}${q}, ${q}target${q}: ${q}nowhere${q}}`);
  return rng.pick(options);
}

/** Markers are matched case-insensitively: a case mutation may have changed them. */
function issuesMention(issues: ParseIssue[], marker: string): boolean {
  return issues.some((i) => i.raw.toLowerCase().includes(marker));
}

// ---------------------------------------------------------------------------------------------
// The harness

interface Outcome {
  issues: ParseIssue[];
  /** Text of everything recovered, to look for garbage markers read as records. */
  recovered: () => string;
}

interface Stats {
  runs: number;
  cut: number;
  garbage: number;
  canonical: number;
  recordsChecked: number;
}

function fuzz<R>(
  name: string,
  seed: number,
  generate: (rng: Rng) => { cut: Cut<R>; canonical?: { text: string; rendered: string } },
  parse: (text: string) => R,
  outcome: (out: R) => Outcome,
  options: { truncatedIssue?: (cut: Cut<R>) => boolean } = {},
): Stats {
  const rng = new Rng(seed);
  const stats: Stats = { runs: 0, cut: 0, garbage: 0, canonical: 0, recordsChecked: 0 };
  const failures: string[] = [];
  for (let run = 0; run < RUNS && failures.length < 5; run++) {
    const { cut, canonical } = generate(rng);
    stats.runs++;
    if (cut.cut) stats.cut++;
    if (cut.garbage.length) stats.garbage++;
    const problems: string[] = [];
    if (canonical) {
      stats.canonical++;
      if (canonical.text !== canonical.rendered)
        problems.push(`canonical style differs from the renderer: ${canonical.rendered}`);
    }
    let out: R;
    try {
      out = parse(cut.text);
    } catch (error) {
      failures.push(`${name} #${run} threw ${String(error)}\n--- input ---\n${cut.text}`);
      continue;
    }
    for (const check of cut.checks) {
      stats.recordsChecked++;
      const problem = check(out);
      if (problem) problems.push(problem);
    }
    const { issues, recovered } = outcome(out);
    for (const marker of cut.garbage) {
      if (!issuesMention(issues, marker) && !recovered().toLowerCase().includes(marker)) {
        problems.push(`garbage ${marker} dropped without an issue`);
      }
    }
    for (const issue of issues) {
      if (typeof issue.raw !== 'string') problems.push('issue without raw text');
    }
    if (options.truncatedIssue?.(cut) && !issues.some((i) => i.kind === 'truncated')) {
      problems.push('a record was cut but no truncated issue was reported');
    }
    if (problems.length) {
      failures.push(
        `${name} #${run}: ${problems.join('; ')}\n--- input ---\n${cut.text}\n--- parsed ---\n${JSON.stringify(out, null, 1)}`,
      );
    }
  }
  expect(failures).toEqual([]);
  return stats;
}

/** The cases exercised cuts, canonical output and (`garbage`) garbage records: no vacuous pass. */
function expectCoverage(stats: Stats, garbage = true, records = RUNS): void {
  expect(stats.runs).toBe(RUNS);
  expect(stats.cut).toBeGreaterThan(RUNS / 5);
  expect(stats.canonical).toBeGreaterThan(RUNS / 20);
  expect(stats.recordsChecked).toBeGreaterThan(records);
  if (garbage) expect(stats.garbage).toBeGreaterThan(RUNS / 20);
}

// ---------------------------------------------------------------------------------------------
// Graph extraction

interface Ent {
  name: string;
  type: string;
  description: string;
}
interface Rel {
  source: string;
  target: string;
  description: string;
  weight: number;
}
type GraphOut = ReturnType<typeof parseGraphExtraction>;

function genGraph(rng: Rng): { entities: Ent[]; relations: Rel[] } {
  const names = rng.distinct(NAMES, rng.range(1, 5));
  const entities = names.map((name) => ({ name, type: rng.pick(TYPES), description: sentence(rng) }));
  const relations: Rel[] = [];
  const n = names.length > 1 ? rng.range(0, 4) : 0;
  for (let i = 0; i < n; i++) {
    const [source, target] = rng.distinct(names, 2) as [string, string];
    relations.push({
      source,
      target,
      description: sentence(rng),
      weight: rng.chance(0.8) ? rng.range(1, 10) : rng.range(2, 19) / 2,
    });
  }
  return { entities, relations };
}

/** Same text, up to case and runs of whitespace (cheap test first). */
const sameName = (a: string, b: string) => a === b || lc(a) === lc(b);
const sameText = (a: string, b: string) => a === b || norm(a) === norm(b);

function entityCheck(e: Ent): Check<GraphOut> {
  const type = e.type.toLowerCase();
  return (out) =>
    out.entities.some(
      (p) => p.type === type && sameName(p.name, e.name) && sameText(p.description, e.description),
    )
      ? undefined
      : `entity ${e.name} not recovered`;
}
function relationCheck(r: Rel): Check<GraphOut> {
  return (out) =>
    out.relations.some(
      (p) =>
        p.weight === r.weight &&
        sameName(p.source, r.source) &&
        sameName(p.target, r.target) &&
        sameText(p.description, r.description),
    )
      ? undefined
      : `relation ${r.source} -> ${r.target} not recovered`;
}

const graphOutcome = (out: GraphOut): Outcome => ({
  issues: out.issues,
  recovered: () => JSON.stringify(out.entities) + JSON.stringify(out.relations),
});

interface TupleStyle {
  d: string;
  q: string;
  kindCase: CaseFn;
  parens: boolean;
  sep: string;
  done: string;
  spaces: boolean;
  list: boolean;
}
const CANONICAL_TUPLES: TupleStyle = {
  d: '<|>',
  q: '"',
  kindCase: AS_IS,
  parens: true,
  sep: '##\n',
  done: '<|COMPLETE|>',
  spaces: false,
  list: false,
};
function tupleStyle(rng: Rng): TupleStyle {
  const parens = rng.chance(0.8);
  const sep = rng.pick(parens ? ['##\n', '##', '\n', ' ## ', '\n##\n', ''] : ['##\n', '##', '\n', '\n##\n']);
  return {
    d: rng.pick(['<|>', '<|>', '|', ' | ', ';', '\t', '<||>']),
    q: rng.pick(['"', '"', '', "'"]),
    kindCase: rng.chance(0.3)
      ? rng.pick<CaseFn>([(s) => s.toUpperCase(), (s) => s[0]!.toUpperCase() + s.slice(1)])
      : AS_IS,
    parens,
    sep,
    done: rng.pick(['<|COMPLETE|>', '<|COMPLETE|>', '', '\n<|COMPLETE|>', '\n<COMPLETE>']),
    spaces: rng.chance(0.25),
    list: sep.includes('\n') && rng.chance(0.2),
  };
}

function tupleRecord(kind: string, fields: string[], st: TupleStyle): string {
  const sp = st.spaces ? ' ' : '';
  const body = [`${st.q}${st.kindCase(kind)}${st.q}`, ...fields].join(`${sp}${st.d}${sp}`);
  return st.parens ? `(${sp}${body}${sp})` : body;
}

function tupleGarbage(rng: Rng, st: TupleStyle, marker: string): string {
  const [kind, fields] = rng.pick<[string, string[]]>([
    ['entity', ['', marker, 'a record without a name']],
    ['relationship', [marker, '', 'a relation without a target', '3']],
    [marker, ['foo', 'bar']],
    ['claim', [marker, 'something else']],
  ]);
  return tupleRecord(kind, fields, st);
}

function genGraphTuples(rng: Rng) {
  const g = genGraph(rng);
  const canonical = rng.chance(0.1);
  const st = canonical ? CANONICAL_TUPLES : tupleStyle(rng);
  const names = canonical ? AS_IS : caseFn(rng);
  const w = wrap(rng, canonical);
  const doc = new Doc<GraphOut>();
  doc.add(w.prefix).add(w.open);
  type Item = { text: string; check?: Check<GraphOut>; garbage?: string };
  const items: Item[] = [
    ...g.entities.map((e) => ({
      text: tupleRecord('entity', [names(e.name), e.type, e.description], st),
      check: entityCheck(e),
    })),
    ...g.relations.map((r) => ({
      text: tupleRecord(
        'relationship',
        [names(r.source), names(r.target), r.description, String(r.weight)],
        st,
      ),
      check: relationCheck(r),
    })),
  ];
  if (!canonical) {
    for (let i = 0; i <= items.length; i++) {
      if (rng.chance(0.12)) {
        const marker = `zq${rng.range(100, 999)}x`;
        items.splice(i, 0, { text: tupleGarbage(rng, st, marker), garbage: marker });
        i++;
      }
    }
  }
  items.forEach((item, i) => {
    const last = i === items.length - 1;
    if (st.list) doc.add(i % 2 ? `${i + 1}. ` : '- ');
    if (st.parens) {
      doc.add(item.text, { check: item.check, garbage: item.garbage });
      doc.add(last ? st.done : st.sep);
    } else {
      // Without parentheses a record ends where its delimiter does: keep them together.
      doc.add(item.text + (last ? st.done : st.sep), { check: item.check, garbage: item.garbage });
    }
  });
  if (items.length === 0) doc.add(st.done);
  doc.add(w.close).add(w.suffix);
  const cut = cutDoc(doc, rng);
  return {
    cut,
    canonical: canonical ? { text: doc.text, rendered: renderGraphExtraction(g) } : undefined,
    parens: st.parens,
  };
}

function genGraphJson(rng: Rng) {
  const g = genGraph(rng);
  const canonical = rng.chance(0.1);
  const st = canonical ? CANONICAL_JSON : jsonStyle(rng);
  const names = canonical ? AS_IS : caseFn(rng);
  const w = wrap(rng, canonical);
  const doc = new Doc<GraphOut>();
  doc.add(w.prefix).add(w.open);
  const nested = !canonical && rng.chance(0.1);
  if (nested) doc.add(`{${jKey('graph', st)}: `);
  const entities: Item<GraphOut>[] = g.entities.map((e) => ({
    value: {
      [alias(rng, st, 'name', ['entity_name', 'entity', 'Name'])]: names(e.name),
      [alias(rng, st, 'type', ['entity_type', 'category'])]: e.type,
      [alias(rng, st, 'description', ['entity_description', 'desc'])]: e.description,
    },
    check: entityCheck(e),
  }));
  const relations: Item<GraphOut>[] = g.relations.map((r) => ({
    value: {
      [alias(rng, st, 'source', ['source_entity', 'src', 'head'])]: names(r.source),
      [alias(rng, st, 'target', ['target_entity', 'tgt', 'tail'])]: names(r.target),
      [alias(rng, st, 'description', ['relationship_description'])]: r.description,
      [alias(rng, st, 'strength', ['weight', 'relationship_strength'])]:
        !canonical && rng.chance(0.2) ? String(r.weight) : r.weight,
    },
    check: relationCheck(r),
  }));
  if (!canonical) {
    interleave(rng, entities, 0.1, (m) => jsonGarbage(rng, st, m, 'entity'));
    interleave(rng, relations, 0.1, (m) => jsonGarbage(rng, st, m, 'relation'));
  }
  jsonObject(doc, st, [
    { key: canonical ? 'entities' : rng.pick(['entities', 'entities', 'nodes']), list: entities },
    {
      key: canonical ? 'relationships' : rng.pick(['relationships', 'relationships', 'relations', 'edges']),
      list: relations,
    },
  ]);
  if (nested) doc.add('}');
  doc.add(w.close).add(w.suffix);
  const cut = cutDoc(doc, rng);
  return {
    cut,
    canonical: canonical
      ? { text: doc.text, rendered: renderGraphExtraction(g, { format: 'json' }) }
      : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Semantic units

type UnitsOut = ReturnType<typeof parseSemanticUnits>;
interface Unit {
  text: string;
  entities: string[];
  relationships: { source: string; relation: string; target: string }[];
}

function genUnits(rng: Rng): Unit[] {
  const units: Unit[] = [];
  const n = rng.range(1, 4);
  for (let i = 0; i < n; i++) {
    const entities = rng.distinct(UNIT_NAMES, rng.range(1, 3));
    const relationships: Unit['relationships'] = [];
    if (entities.length > 1) {
      for (let j = rng.range(0, 3); j > 0; j--) {
        const [source, target] = rng.distinct(entities, 2) as [string, string];
        relationships.push({ source, relation: rng.pick(RELATIONS), target });
      }
    }
    units.push({ text: `${sentence(rng, 4, 12)} (${i})`, entities, relationships });
  }
  return units;
}

function unitCheck(u: Unit): Check<UnitsOut> {
  return (out) => {
    const found = out.units.find((p) => sameText(p.text, u.text));
    if (!found) return `unit "${u.text}" not recovered`;
    for (const e of u.entities) {
      if (!found.entities.some((p) => sameName(p, e))) return `entity ${e} of unit "${u.text}" not recovered`;
    }
    for (const r of u.relationships) {
      const ok = found.relationships.some(
        (p) =>
          sameName(p.source, r.source) && sameName(p.target, r.target) && sameText(p.relation, r.relation),
      );
      if (!ok) return `relationship ${r.source} ${r.relation} ${r.target} not recovered`;
    }
    return undefined;
  };
}

function genUnitsOutput(rng: Rng) {
  const units = genUnits(rng);
  const canonical = rng.chance(0.1);
  const st = canonical ? CANONICAL_JSON : jsonStyle(rng);
  const names = canonical ? AS_IS : caseFn(rng);
  const w = wrap(rng, canonical);
  const relForm = canonical ? 'string' : rng.pick(['string', 'string', 'pipe', 'arrow', 'array', 'object']);
  const doc = new Doc<UnitsOut>();
  doc.add(w.prefix).add(w.open);
  const items: Item<UnitsOut>[] = units.map((u) => {
    const entities = u.entities.map(names);
    let garbage: string | undefined;
    const relationships: Json[] = u.relationships.map((r) => {
      const [a, b] = [names(r.source), names(r.target)];
      if (relForm === 'pipe') return `${a} | ${r.relation} | ${b}`;
      if (relForm === 'arrow') return `${a} -> ${r.relation} -> ${b}`;
      if (relForm === 'array') return [a, r.relation, b];
      if (relForm === 'object') return { source: a, relation: r.relation, target: b };
      // What the renderer writes: the string form unless it would split differently.
      const rendered = JSON.parse(
        renderSemanticUnits({ units: [{ ...u, entities, relationships: [{ ...r, source: a, target: b }] }] }),
      );
      return rendered.units[0].relationships[0] as Json;
    });
    if (!canonical && rng.chance(0.1)) {
      garbage = `zq${rng.range(100, 999)}x`;
      relationships.splice(rng.int(relationships.length + 1), 0, garbage);
    }
    return {
      value: {
        [alias(rng, st, 'semantic_unit', ['unit', 'text', 'Semantic_Unit'])]: u.text,
        entities,
        relationships,
      },
      check: unitCheck(u),
      garbage,
    };
  });
  if (!canonical) interleave(rng, items, 0.08, (m) => jsonGarbage(rng, st, m, 'unit'));
  const bare = !canonical && rng.chance(0.15);
  if (bare) {
    // A bare array of units.
    doc.add('[');
    items.forEach((item, i) => {
      doc.add(item.raw ?? jValue(item.value ?? null, st), { check: item.check, garbage: item.garbage });
      if (i < items.length - 1 || st.trailing) doc.add(', ');
    });
    doc.add(']');
  } else {
    jsonObject(doc, st, [
      { key: canonical ? 'units' : rng.pick(['units', 'units', 'semantic_units']), list: items },
    ]);
  }
  doc.add(w.close).add(w.suffix);
  return generated(doc, rng, canonical, () => renderSemanticUnits({ units }));
}

/**
 * The body of a two-field output (title and description, score and report): labelled lines, bold
 * or not, or one JSON object; in either order unless canonical. `lines` is asked for after the
 * bold draw and `members` instead of it, so the draws come in one order.
 */
function twoFields<R>(
  rng: Rng,
  doc: Doc<R>,
  st: JsonStyle,
  form: { canonical: boolean; labelled: boolean },
  lines: () => [string, string, Check<R>][],
  members: () => Parameters<typeof jsonObject<R>>[2],
): void {
  const swap = !form.canonical && rng.chance(0.2);
  if (form.labelled) {
    const bold = rng.chance(0.5) ? '**' : '';
    const list = lines();
    if (swap) list.reverse();
    list.forEach(([label, value, check], i) => {
      doc.add(`${bold}${label}:${bold} `);
      // A line is complete once its line break is written (or, last, at the end).
      doc.add(value + (i === 0 ? '\n' : ''), { check });
    });
  } else {
    const list = members();
    if (swap) list.reverse();
    jsonObject(doc, st, list);
  }
}

/** A generated output: the document, cut or not, and when canonical its text beside the renderer's. */
function generated<R>(doc: Doc<R>, rng: Rng, canonical: boolean, rendered: () => string) {
  return {
    cut: cutDoc(doc, rng),
    canonical: canonical ? { text: doc.text, rendered: rendered() } : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Title and description

type TitleOut = ReturnType<typeof parseTitleDescription>;

function genTitleOutput(rng: Rng) {
  const title = sentence(rng, 2, 6).replace(/\.$/, '');
  const description = sentence(rng, 6, 16);
  const canonical = rng.chance(0.1);
  const labelled = !canonical && rng.chance(0.3);
  const st = canonical ? CANONICAL_JSON : jsonStyle(rng);
  // Labelled lines run on to the next label, so no prose may follow them.
  const w = wrap(rng, canonical, !labelled);
  const titleCheck: Check<TitleOut> = (out) =>
    sameText(out.title, title) ? undefined : `title "${title}" not recovered`;
  const descriptionCheck: Check<TitleOut> = (out) =>
    sameText(out.description, description) ? undefined : `description "${description}" not recovered`;
  const doc = new Doc<TitleOut>();
  doc.add(w.prefix).add(w.open);
  twoFields(
    rng,
    doc,
    st,
    { canonical, labelled },
    () => [
      ['Title', title, titleCheck],
      ['Description', description, descriptionCheck],
    ],
    () => [
      { key: 'title', scalar: { value: title, check: titleCheck } },
      {
        key: alias(rng, st, 'description', ['summary', 'desc']),
        scalar: { value: description, check: descriptionCheck },
      },
    ],
  );
  doc.add(w.close).add(w.suffix);
  return generated(doc, rng, canonical, () => renderTitleDescription({ title, description }));
}

// ---------------------------------------------------------------------------------------------
// Query entities

type EntitiesOut = ReturnType<typeof parseQueryEntities>;

function genQueryEntitiesOutput(rng: Rng) {
  const entities = rng.distinct(NAMES, rng.range(1, 6));
  const canonical = rng.chance(0.1);
  const form = canonical
    ? 'json'
    : rng.pick(['json', 'json', 'json', 'array', 'bullets', 'numbered', 'comma', 'lines']);
  const st = canonical ? CANONICAL_JSON : jsonStyle(rng);
  const names = canonical ? AS_IS : caseFn(rng);
  const w = wrap(rng, canonical);
  const check =
    (name: string): Check<EntitiesOut> =>
    (out) =>
      out.entities.some((e) => sameName(e, name)) ? undefined : `entity ${name} not recovered`;
  const doc = new Doc<EntitiesOut>();
  doc.add(w.prefix).add(w.open);
  if (form === 'json' || form === 'array') {
    const items: Item<EntitiesOut>[] = entities.map((e) => ({
      value: !canonical && rng.chance(0.15) ? { name: names(e) } : names(e),
      check: check(e),
    }));
    if (!canonical) interleave(rng, items, 0.1, (m) => jsonGarbage(rng, st, m, 'entity'));
    if (form === 'array') {
      doc.add('[');
      items.forEach((item, i) => {
        doc.add(item.raw ?? jValue(item.value ?? null, st), { check: item.check, garbage: item.garbage });
        if (i < items.length - 1) doc.add(', ');
      });
      doc.add(']');
    } else {
      jsonObject(doc, st, [
        { key: canonical ? 'entities' : rng.pick(['entities', 'Entities', 'keywords']), list: items },
      ]);
    }
  } else if (form === 'comma') {
    doc.add(rng.pick(['Entities: ', 'The entities are: ', '']));
    entities.forEach((e, i) => {
      doc.add(names(e), { check: check(e) }).add(i < entities.length - 1 ? ', ' : '');
    });
  } else {
    entities.forEach((e, i) => {
      doc.add(form === 'bullets' ? '- ' : form === 'numbered' ? `${i + 1}. ` : '');
      doc.add(names(e), { check: check(e) }).add(i < entities.length - 1 ? '\n' : '');
    });
  }
  doc.add(w.close).add(w.suffix);
  return generated(doc, rng, canonical, () => renderQueryEntities({ entities }));
}

// ---------------------------------------------------------------------------------------------
// Query graph

type GraphQOut = ReturnType<typeof parseQueryGraph>;
interface QNode {
  id: string;
  label: string | null;
  isTarget: boolean;
}

function genQueryGraphOutput(rng: Rng) {
  const labels = rng.distinct(NAMES, rng.range(1, 4));
  const nodes: QNode[] = [{ id: 'n1', label: null, isTarget: true }];
  labels.forEach((label, i) => {
    nodes.push({ id: `n${i + 2}`, label: rng.chance(0.15) ? null : label, isTarget: false });
  });
  const edges: { source: string; target: string; relation: string }[] = [];
  for (let i = rng.range(0, 3); i > 0; i--) {
    const [a, b] = rng.distinct(
      nodes.map((n) => n.id),
      2,
    );
    if (a && b) edges.push({ source: a, target: b, relation: rng.pick(RELATIONS) });
  }
  const canonical = rng.chance(0.1);
  const st = canonical ? CANONICAL_JSON : jsonStyle(rng);
  const names = canonical ? AS_IS : caseFn(rng);
  const w = wrap(rng, canonical);
  const doc = new Doc<GraphQOut>();
  doc.add(w.prefix).add(w.open);
  const nodeItems: Item<GraphQOut>[] = nodes.map((n) => ({
    value: {
      id: n.id,
      label:
        n.label === null ? (canonical ? 'UNK' : rng.pick(['UNK', 'unk', 'Unknown', '?'])) : names(n.label),
      [alias(rng, st, 'target', ['is_target'])]:
        !canonical && rng.chance(0.2) ? String(n.isTarget) : n.isTarget,
    },
    check: (out) =>
      out.nodes.some(
        (p) =>
          p.id === n.id &&
          p.isTarget === n.isTarget &&
          (n.label === null ? p.label === null : p.label !== null && sameName(p.label, n.label)),
      )
        ? undefined
        : `node ${n.id} not recovered`,
  }));
  // An endpoint may be written as the node's label when that label is a name.
  const ref = (id: string) => {
    const label = nodes.find((n) => n.id === id)?.label;
    return !canonical && label && rng.chance(0.2) ? names(label) : id;
  };
  const edgeItems: Item<GraphQOut>[] = edges.map((e) => ({
    value: { source: ref(e.source), target: ref(e.target), relation: e.relation },
    check: (out) =>
      out.edges.some(
        (p) => p.source === e.source && p.target === e.target && sameText(p.relation, e.relation),
      )
        ? undefined
        : `edge ${e.source} -> ${e.target} not recovered`,
  }));
  if (!canonical) {
    interleave(rng, nodeItems, 0.08, (m) => jsonGarbage(rng, st, m, 'node'));
    interleave(rng, edgeItems, 0.08, (m) => jsonGarbage(rng, st, m, 'edge'));
  }
  jsonObject(doc, st, [
    { key: 'nodes', list: nodeItems },
    { key: 'edges', list: edgeItems },
  ]);
  doc.add(w.close).add(w.suffix);
  return generated(doc, rng, canonical, () => renderQueryGraph({ nodes, edges }));
}

// ---------------------------------------------------------------------------------------------
// Community assessment

type AssessmentOut = ReturnType<typeof parseCommunityAssessment>;

function genAssessmentOutput(rng: Rng) {
  const score = rng.chance(0.8) ? rng.range(0, 10) : rng.range(1, 19) / 2;
  const report = sentence(rng, 5, 18);
  const canonical = rng.chance(0.1);
  const labelled = !canonical && rng.chance(0.3);
  const st = canonical ? CANONICAL_JSON : jsonStyle(rng);
  const w = wrap(rng, canonical, !labelled);
  const scoreCheck: Check<AssessmentOut> = (out) =>
    out.score === score ? undefined : `score ${score} not recovered`;
  const reportCheck: Check<AssessmentOut> = (out) =>
    sameText(out.report, report) ? undefined : `report "${report}" not recovered`;
  const doc = new Doc<AssessmentOut>();
  doc.add(w.prefix).add(w.open);
  twoFields(
    rng,
    doc,
    st,
    { canonical, labelled },
    () => {
      const scoreText = rng.pick([String(score), `${score}/10`, `${score * 10}/100`]);
      return [
        [rng.pick(['Score', 'Relevance score', 'Rating']), scoreText, scoreCheck],
        [rng.pick(['Report', 'Summary']), report, reportCheck],
      ];
    },
    () => {
      const scoreValue: Json = canonical
        ? score
        : rng.pick<Json>([score, score, String(score), `${score}/10`, `${score * 10}%`]);
      return [
        {
          key: alias(rng, st, 'score', ['relevance_score', 'relevance']),
          scalar: { value: scoreValue, check: scoreCheck, withNext: true },
        },
        { key: 'report', scalar: { value: report, check: reportCheck } },
      ];
    },
  );
  doc.add(w.close).add(w.suffix);
  return generated(doc, rng, canonical, () => renderCommunityAssessment({ score, report }));
}

// ---------------------------------------------------------------------------------------------
// Answer with citations

type AnswerOut = ReturnType<typeof parseAnswer>;
const ID_POOL = ['c1', 'c2', 'c3', 'doc1#0', 'doc2#4', 'chunk-7', 'p12'];

function genAnswerOutput(rng: Rng) {
  const knownIds = rng.distinct(ID_POOL, rng.range(1, 5));
  const canonical = rng.chance(0.1);
  const json = !canonical && rng.chance(0.2);
  const idCase = canonical ? AS_IS : caseFn(rng);
  const w = wrap(rng, canonical);
  const doc = new Doc<AnswerOut>();
  doc.add(w.prefix).add(w.open);
  if (!canonical && rng.chance(0.2)) doc.add(json ? '' : rng.pick(['Answer: ', '**Answer:** ']));
  // Inside a JSON string, text is escaped.
  const esc = (text: string) => (json ? JSON.stringify(text).slice(1, -1) : text);
  if (json) doc.add('{"answer": "');
  const cited: string[] = [];
  const sentences = rng.range(1, 4);
  let answerText = '';
  for (let i = 0; i < sentences; i++) {
    const text = `${sentence(rng, 4, 10).replace(/\.$/, '')}`;
    doc.add(esc(`${i ? ' ' : ''}${text}`), {
      check: (out) =>
        norm(out.answer).includes(norm(text)) ? undefined : `sentence "${text}" not in the answer`,
    });
    answerText += `${i ? ' ' : ''}${text}`;
    if (rng.chance(0.8)) {
      const ids = rng.distinct(knownIds, rng.range(1, 2));
      const shown = ids.map(idCase);
      const marker = canonical
        ? ` ${shown.map((id) => `[${id}]`).join('')}`
        : rng.pick([
            ` [${shown.join(', ')}]`,
            ` ${shown.map((id) => `[${id}]`).join('')}`,
            ` (source: ${shown.join(', ')})`,
            ` [Source: ${shown[0]}]${shown[1] ? ` [${shown[1]}]` : ''}`,
          ]);
      doc.add(esc(marker), {
        check: (out) =>
          ids.every((id) => out.citations.includes(id))
            ? undefined
            : `citation ${ids.join(', ')} not recovered`,
      });
      answerText += marker;
      for (const id of ids) if (!cited.includes(id)) cited.push(id);
    }
    if (!canonical && rng.chance(0.1)) {
      const marker = `zq${rng.range(100, 999)}x`;
      doc.add(esc(` [${marker}]`), { garbage: marker });
    }
    doc.add(esc('.'));
    answerText += '.';
  }
  if (json) doc.add('"}');
  doc.add(w.close).add(w.suffix);
  return {
    cut: cutDoc(doc, rng),
    knownIds,
    canonical: canonical
      ? { text: doc.text, rendered: renderAnswer({ answer: answerText, citations: cited }) }
      : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Summary and yes/no

function genSummaryOutput(rng: Rng) {
  const sentences = Array.from(
    { length: rng.range(1, 4) },
    () => `${sentence(rng, 4, 14).replace(/\.$/, '')}.`,
  );
  const canonical = rng.chance(0.1);
  const form = canonical
    ? 'plain'
    : rng.pick(['plain', 'plain', 'label', 'bold', 'heading', 'lead-in', 'json', 'prose-json']);
  const doc = new Doc<string>();
  const fence = !canonical && form !== 'prose-json' && rng.chance(0.25) ? rng.pick(FENCES) : ['', ''];
  doc.add(fence[0]!);
  const json = form === 'json' || form === 'prose-json';
  doc.add(
    {
      plain: '',
      label: 'Summary: ',
      bold: '**Summary:** ',
      heading: '## Summary\n',
      'lead-in': 'Here is a summary of the passages:\n\n',
      json: '{"summary": "',
      'prose-json': 'Here is the JSON you asked for: {"summary": "',
    }[form]!,
  );
  sentences.forEach((text, i) => {
    const t = `${i ? ' ' : ''}${text}`;
    doc.add(json ? JSON.stringify(t).slice(1, -1) : t, {
      check: (out) => (norm(out).includes(norm(text)) ? undefined : `sentence "${text}" not in the summary`),
    });
  });
  if (json) doc.add('"}');
  doc.add(fence[1]!);
  return generated(doc, rng, canonical, () => renderSummary(sentences.join(' ')));
}

function genYesNoOutput(rng: Rng) {
  const yes = rng.chance(0.5);
  const canonical = rng.chance(0.1);
  const doc = new Doc<boolean>();
  const word = canonical
    ? renderYesNo(yes)
    : caseFn(rng)(rng.pick(yes ? ['YES', 'Yes', 'Y', 'Yep'] : ['NO', 'No', 'N', 'Nope']));
  if (!canonical) {
    const fence = rng.chance(0.15) ? rng.pick(FENCES) : ['', ''];
    doc.add(fence[0]!);
    doc.add(rng.pick(['', '', '**', '"', 'Answer: ', '**Answer:** ', '  ']));
    // The answer is given once its first letter is.
    doc.add(word[0]!, { check: (out) => (out === yes ? undefined : `${yes ? 'yes' : 'no'} not recovered`) });
    doc.add(word.slice(1));
    doc.add(rng.pick(['', '.', '**', '"', yes ? ', there are a few more.' : ', that is all.', '\n']));
    doc.add(fence[1]!);
  } else {
    doc.add(word, { check: (out) => (out === yes ? undefined : `${yes ? 'yes' : 'no'} not recovered`) });
  }
  return generated(doc, rng, canonical, () => renderYesNo(yes));
}

// ---------------------------------------------------------------------------------------------
// Helpers exported with the parsers: relationship triples and relevance scores

type TripleOut = ReturnType<typeof parseRelationshipTriple>;

function genTripleOutput(rng: Rng) {
  const [source, target] = rng.distinct(UNIT_NAMES, 2) as [string, string];
  const relation = rng.pick([...RELATIONS, 'works, with', 'is part of']);
  const canonical = rng.chance(0.1);
  const names = canonical ? AS_IS : caseFn(rng);
  const sep = canonical ? ', ' : rng.pick([', ', ',', ' | ', '|', ' -> ', '->', '; ', '\t']);
  // A relation with a comma is only unambiguous between entities the list names.
  const rel = relation.includes(',') && (sep.trim() === ',' || sep.trim() === ';') ? 'won' : relation;
  const text = [names(source), rel, names(target)].join(sep);
  const [open, close] = canonical
    ? ['', '']
    : rng.pick([
        ['', ''],
        ['', ''],
        ['"', '"'],
        ['(', ')'],
        ['  ', ' '],
      ]);
  const doc = new Doc<TripleOut>();
  doc.add(open);
  doc.add(text + close, {
    check: (out) =>
      out && sameName(out.source, source) && sameName(out.target, target) && sameText(out.relation, rel)
        ? undefined
        : `triple ${text} not recovered`,
  });
  return {
    cut: cutDoc(doc, rng),
    entities: [source, target],
    canonical: canonical
      ? {
          text: doc.text,
          rendered: JSON.parse(
            renderSemanticUnits({
              units: [
                { text: 't', entities: [source, target], relationships: [{ source, relation: rel, target }] },
              ],
            }),
          ).units[0].relationships[0],
        }
      : undefined,
  };
}

const SCORE_VALUES: unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -1e300,
  1e300,
  null,
  undefined,
  {},
  [],
  true,
];

function genScore(rng: Rng): unknown {
  const n = rng.range(-20, 120) / (rng.chance(0.5) ? 1 : 2);
  return rng.pick<() => unknown>([
    () => n,
    () => String(n),
    () => `${n}/10`,
    () => `${n} out of ${rng.range(0, 100)}`,
    () => `${n}%`,
    () => `score: ${n}`,
    () => sentence(rng),
    () => rng.pick(SCORE_VALUES),
    () => `${n}/${rng.pick(['0', '', 'x', '-5'])}`,
  ])();
}

const noOutcome = (issues: ParseIssue[] = []): Outcome => ({ issues, recovered: () => '' });

// ---------------------------------------------------------------------------------------------

describe('parsers on 10,000 malformed outputs each', () => {
  it('parseGraphExtraction, tuple format', () => {
    let parens = false;
    const stats = fuzz(
      'tuples',
      SEED + 1,
      (rng) => {
        const out = genGraphTuples(rng);
        parens = out.parens;
        return out;
      },
      (text) => parseGraphExtraction(text),
      graphOutcome,
      { truncatedIssue: (cut) => parens && cut.inside },
    );
    expectCoverage(stats);
  });

  it('parseGraphExtraction, JSON format', () => {
    const stats = fuzz(
      'graph-json',
      SEED + 2,
      genGraphJson,
      (text) => parseGraphExtraction(text),
      graphOutcome,
      {
        truncatedIssue: (cut) => cut.inside && cut.checks.length > 0,
      },
    );
    expectCoverage(stats);
  });
  it('parseSemanticUnits', () => {
    const stats = fuzz(
      'units',
      SEED + 3,
      genUnitsOutput,
      (text) => parseSemanticUnits(text),
      (out) => ({ issues: out.issues, recovered: () => JSON.stringify(out.units) }),
      { truncatedIssue: (cut) => cut.inside && cut.checks.length > 0 },
    );
    expectCoverage(stats);
  });

  it('parseTitleDescription', () => {
    const stats = fuzz(
      'title',
      SEED + 4,
      genTitleOutput,
      (text) => parseTitleDescription(text),
      (out) => noOutcome(out.issues),
    );
    expectCoverage(stats, false);
  });

  it('parseQueryEntities', () => {
    const stats = fuzz(
      'query-entities',
      SEED + 5,
      genQueryEntitiesOutput,
      (text) => parseQueryEntities(text),
      (out) => ({ issues: out.issues, recovered: () => JSON.stringify(out.entities) }),
    );
    expectCoverage(stats);
  });

  it('parseQueryGraph', () => {
    const stats = fuzz(
      'query-graph',
      SEED + 6,
      genQueryGraphOutput,
      (text) => parseQueryGraph(text),
      (out) => ({ issues: out.issues, recovered: () => JSON.stringify(out) }),
      { truncatedIssue: (cut) => cut.inside && cut.checks.length > 0 },
    );
    expectCoverage(stats);
  });

  it('parseCommunityAssessment', () => {
    const stats = fuzz(
      'assessment',
      SEED + 7,
      genAssessmentOutput,
      (text) => parseCommunityAssessment(text),
      (out) => noOutcome(out.issues),
    );
    expectCoverage(stats, false);
  });

  it('parseAnswer', () => {
    let knownIds: string[] = [];
    const stats = fuzz(
      'answer',
      SEED + 8,
      (rng) => {
        const out = genAnswerOutput(rng);
        knownIds = out.knownIds;
        return out;
      },
      (text) => parseAnswer(text, knownIds),
      (out) => ({ issues: out.issues, recovered: () => JSON.stringify(out.citations) }),
    );
    expectCoverage(stats);
  });

  it('parseSummary', () => {
    const stats = fuzz(
      'summary',
      SEED + 9,
      genSummaryOutput,
      (text) => parseSummary(text),
      () => noOutcome(),
    );
    expectCoverage(stats, false);
  });

  it('parseYesNo', () => {
    const stats = fuzz(
      'yes-no',
      SEED + 10,
      genYesNoOutput,
      (text) => parseYesNo(text),
      () => noOutcome(),
    );
    expect(stats.runs).toBe(RUNS);
    expect(stats.cut).toBeGreaterThan(RUNS / 5);
  });

  it('parseRelationshipTriple', () => {
    let entities: string[] = [];
    const stats = fuzz(
      'triple',
      SEED + 11,
      (rng) => {
        const out = genTripleOutput(rng);
        entities = out.entities;
        return out;
      },
      (text) => parseRelationshipTriple(text, entities),
      () => noOutcome(),
    );
    expectCoverage(stats, false, RUNS / 2);
  });

  it('normalizeRelevanceScore', () => {
    const rng = new Rng(SEED + 12);
    let exact = 0;
    for (let run = 0; run < RUNS; run++) {
      const value = genScore(rng);
      const out = normalizeRelevanceScore(value, 'raw');
      if (out === undefined) continue;
      expect(Number.isFinite(out.score) && out.score >= 0 && out.score <= 10).toBe(true);
      // "n/10" with n in 0-10 is exactly n, and needs no issue.
      const m = typeof value === 'string' ? /^(\d+(?:\.\d+)?)\/10$/.exec(value) : null;
      if (m && Number(m[1]) <= 10) {
        expect(out).toEqual({ score: Number(m[1]) });
        exact++;
      }
    }
    expect(exact).toBeGreaterThan(RUNS / 200);
  });
});
