/**
 * Reworded copies of the QA dev slices: the same corpus and the same questions, asked in everyday
 * words, to measure how much an answer reader depends on the benchmark's own phrasing.
 *
 *   npx tsx benchmarks/reword.ts [--datasets ../shared/datasets] [--out benchmarks/.reworded]
 *
 * For each slice it writes `<out>/<slice>/corpus.jsonl` (a byte copy) and `<out>/<slice>/questions.jsonl`
 * (each record unchanged except `question`, plus `original_question` and `reworded_by`), and
 * `<out>/summary.json`. A question gets, in order of precedence: its hand rewording from
 * `benchmarks/reworded/<slice>.hand.jsonl`, else the rule rewording of {@link rewordQuestion}, else
 * (when no rule fits) its original text.
 *
 * The rules are written from how people phrase questions (synonyms of relations, kinship and life
 * events, moved clauses, options named first, turned-around yes/no questions), keyed on words and
 * phrasing patterns only, never on a question id, title or answer; the id only seeds the choice
 * among equivalent phrasings, so every run gives the same output. Named entities (runs of
 * capitalised words, quoted titles, numbers) are masked before any word substitution, and a
 * self-check reports every rewording that lost one.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const SLICES = ['musique', 'hotpotqa', '2wikimultihopqa'] as const;
export type RewordedBy = 'hand' | 'rules' | 'unchanged';

// ---------------------------------------------------------------------------------------------
// Deterministic choice

/** 32-bit FNV-1a of a string. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function choose<T>(options: readonly T[], id: string, salt: string): T {
  return options[fnv1a(`${id}\u0000${salt}`) % options.length]!;
}

// ---------------------------------------------------------------------------------------------
// Named entities

/** Words that are capitalised only because they open the question. */
const OPENING_WORDS = new Set(
  (
    'a an the which what who whom whose where when why how is are was were do does did has have had can ' +
    'could will would should in on at of for from by with during along besides aside between this that ' +
    'these those name both and or but if as after before since among apart other another'
  ).split(' '),
);

/** Short lower-case words that may sit inside a title ("Songs of the Marsh", "Ode to Vessa"). */
const TITLE_LINKS = new Set(
  'of the a an and in on at for to by de la le les des del di da du von van y & - with from or'.split(' '),
);

export interface EntitySpan {
  start: number;
  end: number;
  /** Opens the text, so its first letter may legitimately be lower-cased when moved. */
  opening: boolean;
  kind: 'caps' | 'quoted' | 'number';
}

const CAP_RE = /^[("'“‘«[]*[\p{Lu}\p{N}]/u;
const LEAD_PUNCT = /^[("'“‘«[]+/u;
const TRAIL_PUNCT = /(?:['’]s)?[,;:?!"'”’»)\]]*$/u;

/**
 * Named entities of a question: maximal runs of capitalised words (words that only open the
 * question, such as "Which" or "The", are not counted), quoted titles and numbers. With
 * `linkTitles`, short lower-case words between two capitalised words are taken into the run (used to
 * mask titles against word substitutions; the self-check uses the strict runs).
 */
export function entitySpans(text: string, linkTitles = false): EntitySpan[] {
  const spans: EntitySpan[] = [];
  const tokens = [...text.matchAll(/\S+/g)].map((m) => ({
    s: m[0],
    start: m.index!,
    end: m.index! + m[0].length,
  }));
  let i = 0;
  while (i < tokens.length) {
    if (!CAP_RE.test(tokens[i]!.s)) {
      i++;
      continue;
    }
    let j = i;
    // extend the run
    while (j + 1 < tokens.length && !/[,;:?!]["'”’)]*$/.test(tokens[j]!.s)) {
      const next = tokens[j + 1]!;
      if (CAP_RE.test(next.s)) {
        j++;
        continue;
      }
      if (linkTitles && TITLE_LINKS.has(next.s.toLowerCase())) {
        let k = j + 1;
        while (k < tokens.length && TITLE_LINKS.has(tokens[k]!.s.toLowerCase())) k++;
        if (k < tokens.length && CAP_RE.test(tokens[k]!.s) && k - j <= 3) {
          j = k;
          continue;
        }
      }
      break;
    }
    let first = i;
    const prev = i === 0 ? '' : tokens[i - 1]!.s;
    const opening = i === 0 || /[?.!:]["'”’)]*$/.test(prev) || /^[—–-]$/.test(prev);
    if (opening) {
      while (first <= j && OPENING_WORDS.has(tokens[first]!.s.replace(LEAD_PUNCT, '').toLowerCase())) first++;
    }
    if (first <= j) {
      let start = tokens[first]!.start;
      let end = tokens[j]!.end;
      const lead = text.slice(start, end).match(LEAD_PUNCT);
      if (lead) start += lead[0].length;
      const trail = text.slice(start, end).match(TRAIL_PUNCT);
      if (trail) end -= trail[0].length;
      if (end > start) spans.push({ start, end, opening: opening && first === i, kind: 'caps' });
    }
    i = j + 1;
  }
  for (const m of text.matchAll(/"([^"]+)"|“([^”]+)”/g)) {
    const inner = m[1] ?? m[2]!;
    const start = m.index! + 1;
    spans.push({ start, end: start + inner.length, opening: false, kind: 'quoted' });
  }
  for (const m of text.matchAll(/\d+(?:[.,:–-]\d+)*/g)) {
    spans.push({ start: m.index!, end: m.index! + m[0].length, opening: false, kind: 'number' });
  }
  return spans;
}

/** The entity strings of `text` with whether each may start lower-case elsewhere. */
export function namedEntities(text: string): { text: string; opening: boolean }[] {
  const seen = new Set<string>();
  const out: { text: string; opening: boolean }[] = [];
  for (const s of entitySpans(text)) {
    const t = text.slice(s.start, s.end).trim();
    if (!t || seen.has(t)) continue;
    seen.add(t);
    out.push({ text: t, opening: s.opening });
  }
  return out;
}

/** Entities of `original` that no longer appear (exactly, or lower-cased first letter if opening) in `reworded`. */
export function missingEntities(original: string, reworded: string): string[] {
  return namedEntities(original)
    .filter((e) => {
      if (reworded.includes(e.text)) return false;
      if (e.opening && reworded.includes(e.text[0]!.toLowerCase() + e.text.slice(1))) return false;
      return true;
    })
    .map((e) => e.text);
}

// ---------------------------------------------------------------------------------------------
// Helpers for the patterns

/** A literal part of a template's output: protected from the word substitutions that follow. */
interface Seg {
  t: string;
  lit: boolean;
}
type Out = Seg[];
const L = (t: string): Seg => ({ t, lit: true });
const V = (t: string): Seg => ({ t, lit: false });

/** `tpl` with `{name}` holes: the text around holes is literal, the holes are the captured clauses. */
function fill(tpl: string, vars: Record<string, string>): Out {
  const out: Out = [];
  let last = 0;
  for (const m of tpl.matchAll(/\{(\w+)\}/g)) {
    if (m.index! > last) out.push(L(tpl.slice(last, m.index!)));
    const v = vars[m[1]!];
    if (v === undefined) throw new Error(`template ${tpl}: no value for ${m[1]}`);
    out.push(V(v));
    last = m.index! + m[0].length;
  }
  if (last < tpl.length) out.push(L(tpl.slice(last)));
  return out;
}

/** Splits "A or B" / "A and B" at its only top-level connector; undefined when there are several. */
function splitPair(s: string, word: 'or' | 'and'): [string, string] | undefined {
  const parts = s.split(` ${word} `);
  if (parts.length !== 2) return undefined;
  const [a, b] = [parts[0]!.trim().replace(/,$/, ''), parts[1]!.trim().replace(/,$/, '')];
  if (!a || !b) return undefined;
  return [a, b];
}

/** Whether `s` reads as a name or title: capitalised words, with short linking words inside. */
function isNamed(s: string): boolean {
  const words = s.split(' ');
  return (
    /^["“(]?[\p{Lu}\p{N}]/u.test(words[0]!) &&
    words.every((w) => /^["“(]?[\p{Lu}\p{N}]/u.test(w) || TITLE_LINKS.has(w.toLowerCase()))
  );
}

/** "X's": no possessive after a closing bracket or punctuation. */
function possessive(x: string): string | undefined {
  if (/[)\]!?.,"]$/.test(x)) return undefined;
  return /s$/.test(x) ? `${x}'` : `${x}'s`;
}

const PAST: Record<string, string> = {
  die: 'died',
  end: 'ended',
  become: 'became',
  begin: 'began',
  start: 'started',
  happen: 'happened',
  leave: 'left',
  marry: 'married',
  win: 'won',
  join: 'joined',
  open: 'opened',
  close: 'closed',
  occur: 'occurred',
  change: 'changed',
  take: 'took',
  get: 'got',
  come: 'came',
  move: 'moved',
  sell: 'sold',
  buy: 'bought',
  write: 'wrote',
  make: 'made',
  release: 'released',
  found: 'founded',
  form: 'formed',
  retire: 'retired',
  return: 'returned',
  arrive: 'arrived',
  lose: 'lost',
  publish: 'published',
  invade: 'invaded',
  sign: 'signed',
  graduate: 'graduated',
};

// Comparisons: each meaning with the ways people say it (third person, for a person or a director).
const COMPARE: Record<string, string[]> = {
  bornEarly: [
    'was born first',
    'was born earlier',
    'is older',
    'came into the world first',
    'is the elder one',
  ],
  bornLate: [
    'was born later',
    'is younger',
    'came into the world later',
    'was born more recently',
    'is the younger one',
  ],
  diedEarly: [
    'died first',
    'died earlier',
    'passed away first',
    'passed away earlier',
    'was the first to pass away',
  ],
  diedLate: [
    'died later',
    'passed away later',
    'outlived the other',
    'was the last of the two to die',
    'died more recently',
  ],
  livedLonger: ['lived longer', 'had the longer life', 'had the longer lifespan', 'lived to a greater age'],
  releasedEarly: [
    'came out first',
    'was released earlier',
    'is older',
    'came out earlier',
    'was released first',
  ],
  releasedLate: [
    'came out more recently',
    'is newer',
    'came out later',
    'is the more recent one',
    'was released later',
  ],
};

function normCompare(phrase: string): string {
  return phrase
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(who|that) /, '')
    .replace(/^(was|is) /, '')
    .replace(/ than the other$/, '');
}

function compareKind(phrase: string): string | undefined {
  const p = normCompare(phrase);
  if (/^(born (first|earlier)|older)$/.test(p)) return 'bornEarly';
  if (/^(born later|younger)$/.test(p)) return 'bornLate';
  if (/^died (first|earlier)$/.test(p)) return 'diedEarly';
  if (/^died later$/.test(p)) return 'diedLate';
  if (/^lived longer$/.test(p)) return 'livedLonger';
  if (/^(released|came out|published) (first|earlier)$/.test(p)) return 'releasedEarly';
  if (/^(released|came out|published) (later|more recently)$/.test(p)) return 'releasedLate';
  return undefined;
}

/** A phrasing of the comparison `kind` other than the one the question used. */
function comparePhrase(kind: string, used: string, id: string, salt: string): string {
  const u = normCompare(used);
  const pool = COMPARE[kind]!.filter((p) => normCompare(p) !== u);
  return choose(pool, id, salt);
}

const PLURAL: Record<string, string> = {
  film: 'films',
  movie: 'movies',
  album: 'albums',
  magazine: 'magazines',
  song: 'songs',
  book: 'books',
  novel: 'novels',
  band: 'bands',
};

// ---------------------------------------------------------------------------------------------
// Stage 1: whole-question patterns (clause order, options first, polar questions turned around)

interface Pattern {
  name: string;
  re: RegExp;
  make: (m: RegExpMatchArray, id: string) => Out | undefined;
}

/** "the director of film X" in other words, for 2Wiki-style chains. */
function _directorOf(x: string, id: string, salt: string): string {
  const pos = possessive(x);
  const forms = [
    `the person who directed ${x}`,
    `the director of the film ${x}`,
    `the filmmaker behind ${x}`,
  ];
  if (pos) forms.push(`${pos} director`);
  return choose(forms, id, salt);
}

const RELATIVE = /(?:^|\s)(?:who|whom|whose|which|that|where|when|while|but)(?:\s|$)/i;
const PREPS = new Set('in on at for with by from to of into during about under over against'.split(' '));
/** Past or present verb forms that can take "did"/"does", with their base form. */
const BASE: Record<string, [string, 'did' | 'does']> = {};
for (const [base, past] of Object.entries(PAST)) BASE[past] = [base, 'did'];
for (const [form, base] of Object.entries({
  played: 'play',
  voiced: 'voice',
  defeated: 'defeat',
  directed: 'direct',
  starred: 'star',
  recorded: 'record',
  portrayed: 'portray',
  produced: 'produce',
  composed: 'compose',
  created: 'create',
  designed: 'design',
  invented: 'invent',
  led: 'lead',
  coached: 'coach',
  attended: 'attend',
  replaced: 'replace',
  sang: 'sing',
  hosted: 'host',
  built: 'build',
  acquired: 'acquire',
  represented: 'represent',
  managed: 'manage',
  owned: 'own',
})) {
  BASE[form] = [base, 'did'];
}
for (const base of 'play voice manage own lead represent host win sing make sell write direct produce run'.split(
  ' ',
)) {
  BASE[base.endsWith('s') ? `${base}es` : `${base}s`] = [base, 'does'];
}

/**
 * A statement with its question word inside ("Nine Lanterns is a novel set in what city?") asked the
 * usual way round ("What city is Nine Lanterns a novel set in?"). Only for a plain subject and a plain
 * predicate: no commas or relative clauses, where moving the question word could change what it
 * asks about.
 */
function whInSitu(question: string, id: string): Out | undefined {
  const words = question.replace(/\?$/, '').trim().split(' ');
  const whs = words.map((w, i) => (/^(what|which)$/i.test(w) ? i : -1)).filter((i) => i >= 0);
  if (whs.length !== 1 || whs[0]! < 2) return undefined;
  const k = whs[0]!;
  const wh = words[k]!.toLowerCase();
  const prep = PREPS.has(words[k - 1]!.toLowerCase()) ? words[k - 1]! : '';
  let np = words.slice(k + 1);
  let tail: string[] = [];
  if (np.length && PREPS.has(np[0]!.toLowerCase())) {
    tail = np;
    np = [];
  }
  if (RELATIVE.test(np.join(' ')) || np.join(' ').includes(',') || np.length > 8) return undefined;
  const left = words.slice(0, prep ? k - 1 : k);
  const v = left.findIndex((w, i) => i > 0 && (/^(is|are|was|were)$/.test(w) || BASE[w] !== undefined));
  if (v < 1) return undefined;
  const subj = left.slice(0, v).join(' ');
  let rest = left.slice(v + 1);
  const verb = left[v]!;
  if (
    RELATIVE.test(subj) ||
    subj.includes(',') ||
    RELATIVE.test(rest.join(' ')) ||
    rest.join(' ').includes(',')
  ) {
    return undefined;
  }
  if (tail.length && (RELATIVE.test(tail.join(' ')) || tail.join(' ').includes(','))) return undefined;
  const Wh = wh[0]!.toUpperCase() + wh.slice(1);
  const head = [Wh, ...np].join(' ');
  let both = '';
  if (rest[0] === 'both') {
    both = 'both ';
    rest = rest.slice(1);
  }
  const after = [...rest, prep, ...tail].filter(Boolean).join(' ');
  const vars = {
    s: decapitalise(subj),
    after,
    head,
    pp: prep ? `${prep[0]!.toUpperCase()}${prep.slice(1)} ${wh} ${np.join(' ')}`.trim() : '',
  };
  const afterNoPrep = [...rest, ...tail].filter(Boolean).join(' ');
  let tpls: string[];
  if (/^(is|are|was|were)$/.test(verb)) {
    tpls = [`{head} ${verb} ${both}{s}${after ? ' {after}' : ''}?`];
    if (prep) tpls.push(`{pp} ${verb} ${both}{s}${afterNoPrep ? ' {afterNoPrep}' : ''}?`);
  } else {
    if (both) return undefined;
    const [base, aux] = BASE[verb]!;
    tpls = [`{head} ${aux} {s} ${base}${after ? ' {after}' : ''}?`];
    if (prep) tpls.push(`{pp} ${aux} {s} ${base}${afterNoPrep ? ' {afterNoPrep}' : ''}?`);
  }
  return fill(choose(tpls, id, 'wis'), { ...vars, afterNoPrep });
}

const PATTERNS: Pattern[] = [
  // ---- 2Wiki-style chains through a film's director
  {
    name: 'director-born-where',
    re: /^(?:Where was the director of (?:the )?film (.+) born|What is the place of birth of the director of (?:the )?film (.+))\?$/,
    make: (m, id) => {
      const x = m[1] ?? m[2]!;
      const pos = possessive(x);
      const tpls = [
        'The director of the film {x} — where was he or she born?',
        'Where did the person who directed {x} come into the world?',
        'What is the birthplace of the filmmaker behind {x}?',
      ];
      if (pos) tpls.push('{pos} director was born where?');
      return fill(choose(tpls, id, 'dbw'), { x, pos: pos ?? '' });
    },
  },
  {
    name: 'director-died-where',
    re: /^(?:Where did the director of (?:the )?film (.+) die|Where was the place of death of the director of (?:the )?film (.+)|What is the place of death of the director of (?:the )?film (.+))\?$/,
    make: (m, id) => {
      const x = m[1] ?? m[2] ?? m[3]!;
      const pos = possessive(x);
      const tpls = [
        'Where did the person who directed {x} pass away?',
        'The director of the film {x} — where did he or she die?',
        'In what place did the filmmaker behind {x} die?',
      ];
      if (pos) tpls.push('{pos} director died where?');
      return fill(choose(tpls, id, 'ddw'), { x, pos: pos ?? '' });
    },
  },
  {
    name: 'director-nationality',
    re: /^What nationality (?:is|was) the director of (?:the )?film (.+)\?$/,
    make: (m, id) =>
      fill(
        choose(
          [
            'What is the citizenship of the person who directed {x}?',
            'Which country does the filmmaker behind {x} come from?',
            'The director of the film {x} — what is his or her nationality?',
          ],
          id,
          'dn',
        ),
        { x: m[1]! },
      ),
  },
  {
    name: 'director-studied-where',
    re: /^Where did the director of (?:the )?film (.+) study\?$/,
    make: (m, id) =>
      fill(
        choose(
          [
            'Where was the person who directed {x} educated?',
            'The director of the film {x} — where did he or she go to study?',
            'At which school did the filmmaker behind {x} study?',
          ],
          id,
          'ds',
        ),
        { x: m[1]! },
      ),
  },
  {
    name: 'director-parent',
    re: /^Who (?:is|was) the (father|mother) of the director of (?:the )?film (.+)\?$/,
    make: (m, id) => {
      const rel = m[1]!;
      const casual = rel === 'father' ? 'dad' : 'mom';
      const tpls = [
        `Who is the ${rel} of the person who directed {x}?`,
        `The director of the film {x} — who is his or her ${rel}?`,
        `Who is the ${casual} of the filmmaker behind {x}?`,
      ];
      return fill(choose(tpls, id, 'dp'), { x: m[2]! });
    },
  },
  {
    name: 'composer-born-where',
    re: /^(?:Where was the composer of (?:the )?song (.+) born|What is the place of birth of the composer of (?:the )?song (.+))\?$/,
    make: (m, id) =>
      fill(
        choose(
          [
            'Where did the person who wrote the music for the song {x} come into the world?',
            'The composer of the song {x} — where was he or she born?',
            'What is the birthplace of the person who composed the song {x}?',
          ],
          id,
          'cbw',
        ),
        { x: m[1] ?? m[2]! },
      ),
  },
  {
    name: 'performer-country',
    re: /^(?:Which|What) country (?:is )?the performer of (?:the )?song (.+?) (?:is )?from\?$/,
    make: (m, id) =>
      fill(
        choose(
          [
            'What country does the artist who performed the song {x} come from?',
            'The performer of the song {x} comes from which country?',
            'Which country is the singer or band behind the song {x} from?',
          ],
          id,
          'pc',
        ),
        { x: m[1]! },
      ),
  },
  // ---- kinship and life events of a named person
  {
    name: 'parent-country',
    re: /^(?:Which|What) country (?:is )?(.+)'s (father|mother) (?:is )?from\?$/,
    make: (m, id) => {
      const [x, rel] = [m[1]!, m[2]!];
      return fill(
        choose(
          [
            `What country is {x}'s ${rel === 'father' ? 'dad' : 'mom'} from?`,
            `{x}'s ${rel} comes from which country?`,
            `Which country does the ${rel} of {x} come from?`,
          ],
          id,
          'parc',
        ),
        { x },
      );
    },
  },
  {
    name: 'parent-died-where-when',
    re: /^(Where|When) did (.+)'s (father|mother|husband|wife) die\?$/,
    make: (m, id) => {
      const [wh, x, rel] = [m[1]!.toLowerCase(), m[2]!, m[3]!];
      return fill(
        choose(
          [
            `{x}'s ${rel} died ${wh}?`,
            `${m[1]} did the ${rel} of {x} pass away?`,
            wh === 'where' ? `In what place did {x}'s ${rel} pass away?` : `When did {x}'s ${rel} pass away?`,
          ],
          id,
          'pdw',
        ),
        { x },
      );
    },
  },
  {
    name: 'parent-date-of',
    re: /^What (?:is|was) the date of (death|birth) of (.+)'s (father|mother|husband|wife)\?$/,
    make: (m, id) => {
      const [ev, x, rel] = [m[1]!, m[2]!, m[3]!];
      const tpls =
        ev === 'death'
          ? [
              `When did {x}'s ${rel} pass away?`,
              `{x}'s ${rel} died when?`,
              `On what date did the ${rel} of {x} die?`,
            ]
          : [
              `When was {x}'s ${rel} born?`,
              `{x}'s ${rel} was born when?`,
              `What is the birth date of the ${rel} of {x}?`,
            ];
      return fill(choose(tpls, id, 'pdo'), { x });
    },
  },
  {
    name: 'parent-place-of',
    re: /^(?:What|Where) (?:is|was) the place of (birth|death|burial) of (.+)'s (father|mother|husband|wife)\?$/,
    make: (m, id) => {
      const [ev, x, rel] = [m[1]!, m[2]!, m[3]!];
      const tpls =
        ev === 'birth'
          ? [
              `Where was {x}'s ${rel} born?`,
              `{x}'s ${rel} came into the world where?`,
              `What is the birthplace of the ${rel} of {x}?`,
            ]
          : ev === 'death'
            ? [
                `Where did {x}'s ${rel} die?`,
                `{x}'s ${rel} passed away where?`,
                `In what place did the ${rel} of {x} die?`,
              ]
            : [
                `Where is {x}'s ${rel} buried?`,
                `Where was the ${rel} of {x} laid to rest?`,
                `{x}'s ${rel} is buried where?`,
              ];
      return fill(choose(tpls, id, 'ppo'), { x });
    },
  },
  {
    name: 'spouse-born-where',
    re: /^Where was the (husband|wife) of (.+) born\?$/,
    make: (m, id) => {
      const [rel, x] = [m[1]!, m[2]!];
      const pron = rel === 'husband' ? 'he' : 'she';
      return fill(
        choose(
          [
            `{x}'s ${rel} — where was ${pron} born?`,
            `Where did {x}'s ${rel} come into the world?`,
            `{x}'s ${rel} was born where?`,
          ],
          id,
          'sbw',
        ),
        { x },
      );
    },
  },
  {
    name: 'paternal-grandfather',
    re: /^Who (?:is|was) (?:the paternal grandfather of (.+)|(.+)'s paternal grandfather)\?$/,
    make: (m, id) =>
      fill(
        choose(
          [
            "Who is {x}'s father's father?",
            "Who is the grandfather of {x} on the father's side?",
            "{x}'s grandfather on the dad's side — who is he?",
          ],
          id,
          'pg',
        ),
        { x: m[1] ?? m[2]! },
      ),
  },
  {
    name: 'maternal-grandfather',
    re: /^Who (?:is|was) (?:the maternal grandfather of (.+)|(.+)'s maternal grandfather)\?$/,
    make: (m, id) =>
      fill(
        choose(
          ["Who is {x}'s mother's father?", "Who is the grandfather of {x} on the mother's side?"],
          id,
          'mg',
        ),
        { x: m[1] ?? m[2]! },
      ),
  },
  {
    name: 'in-law',
    re: /^Who (?:is|was) (?:(.+)'s (mother|father)-in-law|the (mother|father)-in-law of (.+))\?$/,
    make: (m, id) => {
      const x = m[1] ?? m[4]!;
      const rel = m[2] ?? m[3]!;
      const casual = rel === 'father' ? 'dad' : 'mom';
      const pron = rel === 'father' ? 'he' : 'she';
      return fill(
        choose(
          [
            `Who is the ${rel} of {x}'s spouse?`,
            `Who is the ${casual} of {x}'s husband or wife?`,
            `{x}'s ${rel}-in-law — who is ${pron}?`,
          ],
          id,
          'inl',
        ),
        { x },
      );
    },
  },
  // ---- comparisons: options named first, other words for the comparison
  {
    name: 'which-film-director-compare',
    re: /^Which (film|movie) (?:has the director|whose director) ([^,]+), (.+ or .+?)\s*\?$/,
    make: (m, id) => {
      const kind = compareKind(m[2]!);
      if (!kind) return undefined;
      const p = comparePhrase(kind, m[2]!, id, 'wfd');
      const opts = m[3]!;
      const pair = splitPair(opts, 'or');
      const noun = m[1]!;
      const tpls = [
        `{opts}: whose director ${p}?`,
        `Which ${noun} was made by the director who ${p}, {opts}?`,
      ];
      if (pair) {
        tpls.push(`Of the ${PLURAL[noun]} {a} and {b}, which one's director ${p}?`);
        tpls.push(`Between {a} and {b}, which ${noun}'s director ${p}?`);
      }
      return fill(choose(tpls, id, 'wfd-t'), { opts, a: pair?.[0] ?? '', b: pair?.[1] ?? '' });
    },
  },
  {
    name: 'which-thing-released-compare',
    re: /^Which (film|movie|album|magazine|song|book|novel) (was released|came out|was published) (first|earlier|later|more recently),? (.+ or .+?)\s*\?$/,
    make: (m, id) => {
      const noun = m[1]!;
      const kind = compareKind(`${m[2]} ${m[3]}`)!;
      const p = comparePhrase(kind, `${m[2]} ${m[3]}`, id, 'wtr');
      const opts = m[4]!;
      const pair = splitPair(opts, 'or');
      const early = kind === 'releasedEarly';
      const tpls = [
        early
          ? `Which of these ${PLURAL[noun]} is older, {opts}?`
          : `Which of these ${PLURAL[noun]} is newer, {opts}?`,
        `{opts}: which ${noun} ${p}?`,
      ];
      if (noun === 'film' || noun === 'movie') {
        tpls.push(early ? '{opts}: which one premiered first?' : '{opts}: which one hit screens later?');
      }
      if (pair) tpls.push(`Between {a} and {b}, which ${noun} ${p}?`);
      return fill(choose(tpls, id, 'wtr-t'), { opts, a: pair?.[0] ?? '', b: pair?.[1] ?? '' });
    },
  },
  {
    name: 'who-compare',
    re: /^[Ww]ho (was born (?:first|earlier|later)|is (?:older|younger)|died (?:first|earlier|later)|lived longer),? (.+ or .+?)\s*\?$/,
    make: (m, id) => {
      const kind = compareKind(m[1]!);
      if (!kind) return undefined;
      const p = comparePhrase(kind, m[1]!, id, 'wc');
      const opts = m[2]!;
      const pair = splitPair(opts, 'or');
      const tpls = [`Who ${p}, {opts}?`, `{opts}: who ${p}?`, `{opts} — which of them ${p}?`];
      if (pair) {
        tpls.push(`Between {a} and {b}, who ${p}?`);
        tpls.push(`Of {a} and {b}, which one ${p}?`);
      }
      return fill(choose(tpls, id, 'wc-t'), { opts, a: pair?.[0] ?? '', b: pair?.[1] ?? '' });
    },
  },
  // ---- "same country" yes/no questions, turned around
  {
    name: 'directors-same-country',
    re: /^(?:Do both films:? (.+?) have the directors from the same country|Do both (.+?) films have the directors from the same country|Are (?:both )?(?:the )?directors of (?:the )?films (.+?),? (?:both )?from the same country|Are (?:the )?director of film (.+?) and director of film (.+?) both from the same country)\?$/,
    make: (m, id) => {
      const pair: [string, string] | undefined = m[4]
        ? [m[4], m[5]!]
        : splitPair((m[1] ?? m[2] ?? m[3])!, 'and');
      const both = m[4] ? `${m[4]} and ${m[5]}` : (m[1] ?? m[2] ?? m[3])!;
      const tpls = [
        'Do the directors of {both} come from the same country?',
        'Were the films {both} made by directors from the same country?',
        '{both}: do their directors share a country?',
      ];
      if (pair) {
        tpls.push('Is the director of {a} from the same country as the director of {b}?');
        const pos = possessive(pair[0]);
        if (pos) tpls.push('Does {pos} director come from the same country as the person who directed {b}?');
      }
      const pos = pair ? (possessive(pair[0]) ?? '') : '';
      return fill(choose(tpls, id, 'dsc'), { both, pos, a: pair?.[0] ?? '', b: pair?.[1] ?? '' });
    },
  },
  {
    name: 'same-country',
    re: /^(Are|Were) (?:both )?((?:the )?(?:movies|films|airports|companies|places|bands|people|players|cities|towns)?,? ?)(.+? and .+?),? (?:both )?(located in|from) the same country\?$/,
    make: (m, id) => {
      const past = m[1] === 'Were';
      const noun = m[2]!.replace(/,/g, '').trim().replace(/^the /, '');
      const both = m[3]!;
      const pair = splitPair(both, 'and');
      const located = m[4] === 'located in';
      const the = noun ? `the ${noun} ` : '';
      const tpls = located
        ? [
            `Are ${the}{both} in one and the same country?`,
            `Do ${the}{both} lie in the same country?`,
            `{both}: are they situated in the same country?`,
          ]
        : past
          ? [`Did ${the}{both} come from the same country?`, `{both}: did they share a country of origin?`]
          : [
              `Do ${the}{both} come from the same country?`,
              `Do ${the}{both} share a country?`,
              `{both}: are they from one country?`,
            ];
      if (pair) {
        tpls.push(
          located
            ? 'Is {a} situated in the same country as {b}?'
            : `${past ? 'Was' : 'Is'} {a} from the same country as {b}?`,
        );
      }
      return fill(choose(tpls, id, 'sc'), { both, a: pair?.[0] ?? '', b: pair?.[1] ?? '' });
    },
  },
  {
    name: 'same-nationality',
    re: /^(?:(Do|Did) (.+? and .+?) have the same nationality|(Does|Did) (.+?) have the same nationality as (.+?)|(Are|Were) (.+? and .+?) (?:of )?the same nationality)\?$/,
    make: (m, id) => {
      const past = (m[1] ?? m[3] ?? m[6]) === 'Did' || m[6] === 'Were';
      const pair: [string, string] | undefined = m[4] ? [m[4], m[5]!] : splitPair((m[2] ?? m[7])!, 'and');
      const both = m[4] ? `${m[4]} and ${m[5]}` : (m[2] ?? m[7])!;
      const [are, doo, is] = past ? ['Were', 'Did', 'Was'] : ['Are', 'Do', 'Is'];
      const tpls = [`${are} {both} citizens of the same country?`, `${doo} {both} share a nationality?`];
      if (pair)
        tpls.push(
          `${is} {a} of the same nationality as {b}?`,
          `${doo} {a} and {b} come from the same country?`,
        );
      return fill(choose(tpls, id, 'sn'), { both, a: pair?.[0] ?? '', b: pair?.[1] ?? '' });
    },
  },
  // ---- a generic choice between two named options: name them first
  {
    name: 'options-inside',
    re: /^Which (\w+), ([^,]+? or [^,]+?), (.+)\?$/,
    make: (m, id) => {
      const pair = splitPair(m[2]!, 'or');
      const tpls = [`Which ${m[1]} {rest}, {opts}?`, `{opts}: which ${m[1]} {rest}?`];
      if (pair) tpls.push(`Between {a} and {b}, which ${m[1]} {rest}?`);
      return fill(choose(tpls, id, 'oi'), {
        opts: m[2]!,
        rest: m[3]!,
        a: pair?.[0] ?? '',
        b: pair?.[1] ?? '',
      });
    },
  },
  {
    name: 'options-first',
    re: /^(Which|Who|What) ([^,]+), (.+ or .+?)\s*\?$/,
    make: (m, id) => {
      const frame = `${m[1]!.toLowerCase()} ${m[2]}`;
      const opts = m[3]!;
      // the options must be named (capitalised or quoted) on both sides of "or"
      const pair = splitPair(opts, 'or');
      if (!pair?.every((p) => /^["“]?[\p{Lu}\p{N}]/u.test(p))) return undefined;
      if (/, \p{Ll}/u.test(opts)) return undefined;
      const tpls = [`{opts}: ${frame}?`, `Between {a} and {b}, ${frame}?`];
      return fill(choose(tpls, id, 'of'), { opts, a: pair[0], b: pair[1] });
    },
  },
  {
    name: 'is-a-or-b',
    re: /^(Is|Was|Are|Were) (.+?) or (.+)\?$/,
    make: (m, id) => {
      const a = m[2]!;
      // B is the run of capitalised words after "or"; the rest is what is asked of it
      const words = m[3]!.split(' ');
      let k = 0;
      while (k < words.length && /^[\p{Lu}\p{N}"“(]/u.test(words[k]!)) k++;
      if (k === 0 || k === words.length) return undefined;
      if (!/^[\p{Lu}\p{N}"“]/u.test(a)) return undefined;
      const b = words.slice(0, k).join(' ');
      const rest = words.slice(k).join(' ');
      const verb = m[1]!.toLowerCase();
      const one = verb === 'is' || verb === 'are' ? 'is' : 'was';
      const tpls = [`Which one ${one} {rest}, {a} or {b}?`, `{a} or {b}: which of the two ${one} {rest}?`];
      return fill(choose(tpls, id, 'iab'), { a, b, rest });
    },
  },
  // ---- yes/no questions about two named things, turned around
  {
    name: 'polar-both',
    re: /^(Are|Were|Do|Did) (.+? and .+?) both (.+)\?$/,
    make: (m, id) => {
      const verb = m[1]!;
      const pair = m[2]!;
      const parts = splitPair(pair, 'and');
      if (!parts?.every(isNamed)) return undefined;
      const low = verb.toLowerCase();
      const tpls = [`{pair}: ${low} they both {rest}?`, `${verb} both {pair} {rest}?`];
      if (low === 'are' || low === 'were') tpls.push(`Is it true that {pair} ${low} both {rest}?`);
      return fill(choose(tpls, id, 'pb'), { pair, rest: m[3]! });
    },
  },
  {
    name: 'polar-same',
    re: /^(Are|Were) (.+? and .+?) (the same .+)\?$/,
    make: (m, id) => {
      const pair = splitPair(m[2]!, 'and');
      if (!pair?.every(isNamed)) return undefined;
      const low = m[1]!.toLowerCase();
      const tpls = [`{both}: ${low} they {same}?`];
      if (pair) tpls.push(`${m[1] === 'Are' ? 'Is' : 'Was'} {a} {same} as {b}?`);
      return fill(choose(tpls, id, 'ps'), {
        both: m[2]!,
        same: m[3]!,
        a: pair?.[0] ?? '',
        b: pair?.[1] ?? '',
      });
    },
  },
  // ---- clause order of a wh-question about one relation
  {
    name: 'spouse-of',
    re: /^Who (is|was) the spouse of (.+)\?$/,
    make: (m, id) => {
      const x = m[2]!;
      const tpls = [
        `Who ${m[1]} {x} married to?`,
        `{x} — who ${m[1]} that person married to?`,
        `Who did {x} marry?`,
      ];
      return fill(choose(tpls, id, 'so'), { x });
    },
  },
  {
    name: 'married-to',
    re: /^Who (was|is) married to (.+)\?$/,
    make: (m, id) => {
      const x = m[2]!;
      const tpls = [
        `Who ${m[1]} the husband or wife of {x}?`,
        `Who did {x} marry?`,
        `{x} ${m[1]} married to whom?`,
      ];
      return fill(choose(tpls, id, 'mt'), { x });
    },
  },
  {
    name: 'born-where',
    re: /^Where was (.+) born\?$/,
    make: (m, id) =>
      fill(
        choose(
          ['Where did {x} come into the world?', '{x} was born where?', 'What is the birthplace of {x}?'],
          id,
          'bw',
        ),
        { x: m[1]! },
      ),
  },
  {
    name: 'born-when',
    re: /^When was (.+) born\?$/,
    make: (m, id) =>
      fill(
        choose(
          ['{x} was born when?', 'What is the birth date of {x}?', 'When did {x} come into the world?'],
          id,
          'bwn',
        ),
        {
          x: m[1]!,
        },
      ),
  },
  {
    name: 'died-where-when',
    re: /^(Where|When) did (.+) die\?$/,
    make: (m, id) => {
      const wh = m[1]!;
      const tpls = [`${wh} did {x} pass away?`, `{x} died ${wh.toLowerCase()}?`];
      tpls.push(
        wh === 'Where' ? 'What was the place of death of {x}?' : 'What was the date of death of {x}?',
      );
      return fill(choose(tpls, id, 'dww'), { x: m[2]! });
    },
  },
  {
    name: 'when-did-verb',
    re: new RegExp(
      `^(When|What year|In what year|In which year) did (.+?) (${Object.keys(PAST).join('|')})\\b(.*)\\?$`,
    ),
    make: (m, id) => {
      const [wh, s, v, t] = [m[1]!, m[2]!, m[3]!, m[4]!];
      const ved = PAST[v]!;
      const when = wh === 'When' ? 'when' : 'in what year';
      const tpls = [
        `{s} ${ved}{t} ${when}?`,
        wh === 'When' ? `When was it that {s} ${ved}{t}?` : `In which year was it that {s} ${ved}{t}?`,
      ];
      return fill(choose(tpls, id, 'wdv'), { s, t });
    },
  },
  {
    name: 'name-of',
    re: /^What (is|was) the name of (.+)\?$/i,
    make: (m, id) => {
      const is = m[1]!.toLowerCase();
      const tpls = [`What ${is} {x} called?`];
      return fill(choose(tpls, id, 'no'), { x: m[2]! });
    },
  },
  {
    name: 'actor-who-plays',
    re: /^Who (is|was) the (actor|actress) (?:who|that) (plays|played) (.+)\?$/,
    make: (m, id) => {
      const tense = m[3] === 'plays' ? 'portrays' : 'portrayed';
      const tpls = [`Which ${m[2]} ${tense} {x}?`, `Who ${m[3]} {x}?`];
      return fill(choose(tpls, id, 'awp'), { x: m[4]! });
    },
  },
  {
    name: 'who-play-in',
    re: /^(?:In (.+?), )?[Ww]ho (did|does) (.+) play(?: in (.+))?\?$/,
    make: (m, id) => {
      const work = m[1] ?? m[4];
      if (!work || (m[1] && m[4])) return undefined;
      const aux = m[2]!;
      const portray = `Who ${aux} {x} portray in {work}?`;
      const role = `What role ${aux} {x} have in {work}?`;
      const front = `In {work}, which character ${aux} {x} play?`;
      const tpls = m[1] ? [portray, role] : [portray, role, front];
      return fill(choose(tpls, id, 'wpi'), { x: m[3]!, work });
    },
  },
  {
    name: 'employer-of',
    re: /^Who (?:is|was) the employer of (.+)\?$/,
    make: (m, id) =>
      fill(choose(['Who did {x} work for?', '{x} was employed by whom?', 'Who employed {x}?'], id, 'eo'), {
        x: m[1]!,
      }),
  },
  {
    name: 'wh-in-situ',
    re: /^[\p{Lu}\p{N}].* (?:what|which) .*$/u,
    make: (m, id) => whInSitu(m.input!, id),
  },
  // ---- last resort for a yes/no question no pattern turned around: a spoken tag
  {
    name: 'polar-tag',
    re: /^(Is|Are|Was|Were|Do|Does|Did|Has|Have|Had|Can|Could) (.+)\?$/,
    make: (m, id) =>
      fill(choose([`Yes or no: ${m[1]!.toLowerCase()} {rest}?`, `${m[1]} {rest} — yes or no?`], id, 'pt'), {
        rest: m[2]!,
      }),
  },
];

// ---------------------------------------------------------------------------------------------
// Stage 2: everyday words for relations, kinship, life events, places and professions

interface Swap {
  name: string;
  re: RegExp;
  alts: string[];
}

/** `pattern` is matched case-insensitively at word boundaries; `$1`... refer to its groups. */
function swap(name: string, pattern: string, alts: string[]): Swap {
  return { name, re: new RegExp(`(?<![\\p{L}\\p{N}'])(?:${pattern})(?![\\p{L}\\p{N}])`, 'giu'), alts };
}

const SWAPS: Swap[] = [
  // relations of works and people
  swap('directed by', 'directed by', ['helmed by', 'made by']),
  swap('directed', 'directed', ['helmed']),
  swap('the director of', 'the director of', ['the person who directed', 'the filmmaker behind']),
  swap('composed by', 'composed by', ['written by']),
  swap('the composer of', 'the composer of', ['the person who composed', 'the one who wrote the music for']),
  swap('the performer of', 'the performer of', ['the artist behind', 'the act that performed']),
  swap('the singer of', 'the singer of', ['the person who sang', 'the vocalist of']),
  swap('the author of', 'the author of', ['the person who wrote', 'the writer of']),
  swap('the writer of', 'the writer of', ['the person who wrote', 'the author of']),
  swap('the creator of', 'the creator of', ['the person who created', 'the one who made']),
  swap('the founder of', 'the founder of', ['the person who founded', 'the one who founded']),
  swap('the producer of', 'the producer of', ['the person who produced']),
  swap('written by', 'written by', ['penned by', 'authored by']),
  swap('wrote', 'wrote', ['penned', 'authored']),
  swap('actor plays', '(actor|actress|person|one) (?:that|who) plays', ['$1 who portrays']),
  swap('actor played', '(actor|actress|person|one) (?:that|who) played', ['$1 who portrayed']),
  swap('actor playing', '(actor|actress|person|one) playing', ['$1 portraying']),
  swap('played who', 'played (who|which|what)', ['portrayed $1']),
  swap('plays which', 'plays (who|which|what)', ['portrays $1']),
  swap('that plays', '(?:that|who) plays', ['who portrays']),
  swap('that played', '(?:that|who) played', ['who portrayed']),
  swap('voices', 'voices', ['does the voice of', 'provides the voice for']),
  swap('starring', 'starring', ['featuring']),
  swap('starred in', 'starred in', ['had a leading role in', 'played a lead in']),
  swap('the star of', 'the star of', ['the lead performer in', 'the lead in']),
  swap('title character of', 'the title character of', ['the title role in']),
  swap('is a member of', 'is a member of', ['belongs to', 'is part of']),
  swap('a member of', '(was|as) a member of', ['$1 part of']),
  swap('named after', 'named after', ['named for']),
  // founding, releasing, publishing
  swap('was founded', '(was|were) founded', ['$1 set up', '$1 started', '$1 created']),
  swap('founded', 'founded', ['set up', 'started']),
  swap('established', '(was|were) established', ['$1 set up', '$1 founded']),
  swap('was formed', '(was|were) formed', ['$1 put together', '$1 founded']),
  swap('was released', '(was|were) released', ['came out', 'was put out']),
  swap('released', 'released', ['put out', 'brought out']),
  swap('was published', '(was|were) published', ['came out', 'was put out']),
  swap('first published', 'first published', ['first put out', 'first printed']),
  swap('published', 'published', ['put out', 'brought out']),
  swap('record label', 'record label', ['music label']),
  swap('debut album', 'debut album', ['first album']),
  swap('was bought by', '(was|were) bought by', ['$1 acquired by', '$1 purchased by']),
  swap('owns', 'owns', ['is the owner of']),
  // life events
  swap('was born in', '(was|were) born in', ['came into the world in']),
  swap('was born', '(was|were) born(?= ?[?,]|$)', ['came into the world']),
  swap('after the death of', 'after the death of', ['after the passing of']),
  swap('before his death', 'before (his|her) death', ['before $1 passing', 'shortly before dying']),
  swap('died', 'died', ['passed away']),
  swap('die', 'die', ['pass away']),
  swap('married', 'married', ['wed']),
  swap('marry', 'marry', ['wed']),
  swap('spouse', 'spouse', ['husband or wife']),
  swap('paternal grandfather', 'paternal grandfather', ["grandfather on the father's side"]),
  swap('father', 'father(?!-)', ['dad', 'father']),
  swap('mother', 'mother(?!-)', ['mom', 'mother']),
  swap('birth city', 'birth city', ['city of birth', 'native city']),
  swap('birth place', 'birth place', ['birthplace', 'place of birth']),
  swap('birthplace', 'birthplace', ['place of birth', 'city of birth']),
  swap('place of birth', 'place of birth', ['birthplace']),
  swap('date of birth', 'date of birth', ['birth date']),
  swap('birth date', 'birth date', ['date of birth']),
  swap('place of death', 'the place of death of (.+?)(?=\\?|$)', ['the place where $1 died']),
  // places
  swap('is located in', '(is|was|are) located in', ['$1 situated in', '$1 found in']),
  swap('is located', '(is|was|are) located', ['$1 situated', '$1 found']),
  swap('located in', 'located in', ['situated in']),
  swap('can be found', 'can be found', ['is', 'lies']),
  swap('is found', 'is found', ['can be found', 'is located']),
  swap('shares a border with', 'shares a border with', ['borders', 'is adjacent to', 'adjoins']),
  swap('sharing a border with', 'sharing a border with', ['bordering', 'adjacent to']),
  swap('most populous city', 'the most populous city', [
    'the biggest city by population',
    'the city with the most people',
  ]),
  swap('largest city by population', 'the largest city by population', [
    'the most populous city',
    'the city with the most people',
  ]),
  swap('largest', 'largest', ['biggest']),
  swap(
    'where (relative)',
    '(county|city|state|war|place|conflict|region|country|venue|town|district) where',
    ['$1 in which'],
  ),
  swap('in which (relative)', '(county|city|state|place|region|country|town|district) in which', [
    '$1 where',
  ]),
  swap('native to', 'native to', ['indigenous to']),
  swap('endemic to', 'endemic to', ['native only to']),
  swap('hail from', 'hails? from', ['come from']),
  // professions, kinds, shares
  swap('profession', 'profession', ['line of work', 'occupation']),
  swap('type of', 'type of', ['kind of', 'sort of']),
  swap('example of', 'an example of', ['one example of', 'an instance of']),
  swap('percentage of', 'percentage of', ['share of', 'percent of']),
  swap('adheres to', 'adheres to', ['follows']),
  swap('adhere to', 'adhere to', ['follow']),
  swap('nationality', 'nationality', ['citizenship', 'country of origin']),
  // other everyday verbs
  swap('assisted', 'assisted', ['helped']),
  swap('replaced', 'replaced', ['took over from', 'succeeded']),
  swap('defeated', 'defeated', ['beat']),
  swap('responsible for', '(was|is)? ?responsible for', ['$1 behind']),
  swap('approached', 'approached', ['neared', 'drew near']),
  swap('span of years', 'span of years', ['range of years', 'stretch of years']),
  swap('occur', 'occur', ['happen', 'break out']),
  swap('received by', 'received by', ['won by']),
  swap('the head of', 'the head of', ['the leader of']),
  swap('came up with', 'came up with', ['thought up']),
  swap('held', '(?:that|which) held', ['that hosted']),
  swap('is held', 'is held', ['takes place']),
  swap('expelled from', 'expelled from', ['driven out of']),
  swap('brought', 'first brought', ['first introduced']),
  swap('referred to', 'referred to', ['called']),
  swap('famous', 'famous', ['well-known']),
  swap('best known for', 'best known for', ['most famous for']),
  swap('known as', 'known as', ['called']),
  swap('educated in', 'educated in', ['schooled in']),
  swap('besides', 'besides', ['apart from']),
  swap('aside from', 'aside from', ['apart from']),
  swap('in addition to', 'in addition to', ['as well as', 'on top of']),
  swap('along with', 'along with', ['together with']),
  swap('alongside', 'alongside', ['together with']),
  swap('in common', '(have|has) in common', ['share']),
  swap('win a', 'win a', ['earn a', 'get a']),
  swap('won what', '(?<!(?:has|have|had) )won (what|which|the)', ['took home $1', 'picked up $1']),
  swap('leave', 'leave', ['depart from']),
  swap('what happened to', 'what happened to', ['what became of']),
  swap('broadcast by', 'broadcast by', ['aired by']),
  swap('stage name', '(?:was|is) known by (?:his|her|the) stage name', ['went by the stage name']),
  swap('narrating', 'narrating', ['telling']),
  swap('told in', 'told in', ['narrated in']),
  swap('shopping centre', 'shopping cent(?:re|er)', ['shopping mall']),
  swap('partially', 'partially', ['partly']),
  swap('professionally', 'professionally', ['as a pro']),
  swap('located?', 'located(?=\\?)', ['situated', 'found']),
  swap('sings', 'sings?', ['performs']),
  swap('relative that', '(actor|actress|person|singer|player) that', ['$1 who']),
  // question words
  swap('in what year', 'in what year', ['in which year', 'what year']),
  swap('what year', 'what year', ['which year', 'in what year']),
  swap('during which', 'during which', ['in which', 'over which']),
  swap(
    'what noun',
    'what (city|county|country|state|team|film|band|album|league|label|game|show|series|company|club|organization|award|artist|actor|actress|character|magazine|writer|river|language|channel|district|region|religion|party|university|person|resort|suburb|division|song|novel|station|season|body|military|device)',
    ['which $1'],
  ),
  swap(
    'which noun',
    'which (city|county|country|state|team|film|band|album|league|label|game|show|series|company|club|organization|award|artist|actor|actress|character|magazine|writer|river|language|channel|district|region|religion|party|university|person|resort|suburb|division|song|novel|station|season|body|military|device)',
    ['what $1'],
  ),
  // everyday contractions
  swap("what's", 'what is', ["what's"]),
  swap("who's", 'who is', ["who's"]),
  swap("where's", 'where is', ["where's"]),
];

// ---------------------------------------------------------------------------------------------
// Masking: entities and template text are replaced by placeholders while words are swapped

const PH_OPEN = '\uE000';
const PH_CLOSE = '\uE001';

class Masker {
  readonly store: string[] = [];
  hold(s: string): string {
    this.store.push(s);
    return `${PH_OPEN}${this.store.length - 1}${PH_CLOSE}`;
  }
  restore(s: string): string {
    for (let n = 0; n < 10 && s.includes(PH_OPEN); n++) {
      s = s.replace(new RegExp(`${PH_OPEN}(\\d+)${PH_CLOSE}`, 'g'), (_, k: string) => this.store[Number(k)]!);
    }
    return s;
  }
}

/** Joins segments, masking literal template text and every entity span. */
function mask(segs: Out, masker: Masker): string {
  const text = segs.map((s) => s.t).join('');
  const keep = new Uint8Array(text.length);
  let pos = 0;
  for (const s of segs) {
    if (s.lit) keep.fill(1, pos, pos + s.t.length);
    pos += s.t.length;
  }
  for (const sp of entitySpans(text, true)) keep.fill(1, sp.start, sp.end);
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (!keep[i]) {
      out += text[i];
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && keep[j]) j++;
    out += masker.hold(text.slice(i, j));
    i = j;
  }
  return out;
}

function matchCase(src: string, rep: string): string {
  if (/^\p{Lu}/u.test(src) && /^\p{Ll}/u.test(rep)) return rep[0]!.toUpperCase() + rep.slice(1);
  return rep;
}

/** Normalises spacing around the question mark and at the ends. */
function tidy(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .replace(/\s+([?,:])/g, '$1')
    .replace(/\?\s*$/, '?')
    .trim();
}

function capitalise(s: string): string {
  const m = s.match(/^(\p{Ll}+)/u);
  if (!m || !OPENING_WORDS.has(m[1]!)) return s;
  return s[0]!.toUpperCase() + s.slice(1);
}

/** Lower-cases the first word when it only opens the sentence (used when a clause is moved inward). */
function decapitalise(s: string): string {
  const m = s.match(/^(The|A|An|This|That|These|Those) (\S)/u);
  if (!m || !/\p{Ll}/u.test(m[2]!)) return s;
  return s[0]!.toLowerCase() + s.slice(1);
}

export interface Rewording {
  text: string;
  /** Names of the patterns and substitutions that fired. */
  rules: string[];
}

/** Rewords one question with the rules, recording which fired. Deterministic in (text, id). */
export function rewordWithTrace(text: string, id: string): Rewording {
  const rules: string[] = [];
  const question = tidy(text);
  let segs: Out = [V(question)];
  for (const p of PATTERNS) {
    const m = question.match(p.re);
    if (!m) continue;
    const made = p.make(m, id);
    if (!made) continue;
    // a clause moved away from the start loses its sentence capital
    segs = made.map((s, k) => (!s.lit && k > 0 && question.startsWith(s.t) ? V(decapitalise(s.t)) : s));
    rules.push(p.name);
    break;
  }
  const masker = new Masker();
  let masked = mask(segs, masker);
  for (const sw of SWAPS) {
    let fired = false;
    const alt = choose(sw.alts, id, sw.name);
    masked = masked.replace(sw.re, (...args: unknown[]) => {
      const whole = args[0] as string;
      const groups = args.slice(1).filter((a) => typeof a === 'string' || a === undefined) as (
        | string
        | undefined
      )[];
      let rep = alt.replace(/\$(\d)/g, (_, k: string) => groups[Number(k) - 1] ?? '');
      rep = tidy(matchCase(whole, rep));
      if (rep === whole) return whole;
      fired = true;
      return masker.hold(rep);
    });
    if (fired) rules.push(sw.name);
  }
  const out = capitalise(tidy(masker.restore(masked)));
  return { text: out, rules };
}

/** The rule rewording of a question (the original text, tidied, when no rule fits). */
export function rewordQuestion(text: string, id: string): string {
  return rewordWithTrace(text, id).text;
}

// ---------------------------------------------------------------------------------------------
// The script

/** Substitutions that alone make only a light change (question word, contraction). */
const LIGHT = new Set([
  'what noun',
  'which noun',
  "what's",
  "who's",
  "where's",
  'in what year',
  'what year',
  'during which',
]);

/** Equal up to spacing and the case of the first letter (such a rewording counts as unchanged). */
function sameWording(a: string, b: string): boolean {
  const norm = (s: string) => {
    const t = tidy(s);
    return t.charAt(0).toLowerCase() + t.slice(1);
  };
  return norm(a) === norm(b);
}

interface QuestionRecord {
  id: string;
  question: string;
  [key: string]: unknown;
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

interface SliceSummary {
  questions: number;
  hand: number;
  rules: number;
  unchanged: number;
  /** Changed (hand or rules) with every named entity of the original kept. */
  changed_with_entities_kept: number;
  /** The rules alone, applied to every question of the slice (hand rewordings ignored). */
  rules_on_all: { changed: number; changed_with_entities_kept: number; light_only: number };
  /** How many questions each pattern or substitution fired on (rules-only pass over all questions). */
  rule_uses: Record<string, number>;
}

function main(): void {
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: string): string => {
    const k = args.indexOf(name);
    return k >= 0 && args[k + 1] ? args[k + 1]! : dflt;
  };
  const here = dirname(fileURLToPath(import.meta.url));
  const datasets = resolve(opt('--datasets', '../shared/datasets'));
  const outDir = resolve(opt('--out', join(here, '.reworded')));
  const handDir = join(here, 'reworded');

  const summary: Record<string, SliceSummary> = {};
  const misses: string[] = [];
  for (const slice of SLICES) {
    const src = join(datasets, slice);
    const questions = readJsonl<QuestionRecord>(join(src, 'questions.jsonl'));
    const handPath = join(handDir, `${slice}.hand.jsonl`);
    const hand = new Map<string, string>();
    if (existsSync(handPath)) {
      for (const h of readJsonl<{ id: string; question: string }>(handPath)) {
        if (hand.has(h.id)) throw new Error(`${handPath}: id ${h.id} twice`);
        hand.set(h.id, h.question);
      }
    }
    const ids = new Set(questions.map((q) => q.id));
    for (const id of hand.keys())
      if (!ids.has(id)) throw new Error(`${handPath}: id ${id} is not in ${slice}`);

    const s: SliceSummary = {
      questions: questions.length,
      hand: 0,
      rules: 0,
      unchanged: 0,
      changed_with_entities_kept: 0,
      rules_on_all: { changed: 0, changed_with_entities_kept: 0, light_only: 0 },
      rule_uses: {},
    };
    const lines: string[] = [];
    for (const q of questions) {
      const traced = rewordWithTrace(q.question, q.id);
      const ruleChanged = sameWording(traced.text, q.question) === false;
      if (ruleChanged) {
        s.rules_on_all.changed++;
        if (missingEntities(q.question, traced.text).length === 0)
          s.rules_on_all.changed_with_entities_kept++;
        if (traced.rules.every((r) => LIGHT.has(r))) s.rules_on_all.light_only++;
      }
      for (const r of traced.rules) s.rule_uses[r] = (s.rule_uses[r] ?? 0) + 1;

      let by: RewordedBy;
      let text: string;
      const h = hand.get(q.id);
      if (h !== undefined) {
        by = 'hand';
        text = h;
      } else if (ruleChanged) {
        by = 'rules';
        text = traced.text;
      } else {
        by = 'unchanged';
        text = q.question;
      }
      s[by]++;
      if (by !== 'unchanged') {
        const missing = missingEntities(q.question, text);
        if (missing.length === 0) s.changed_with_entities_kept++;
        else
          misses.push(
            `${slice} ${q.id} (${by}) lost ${JSON.stringify(missing)}\n    ${q.question}\n    ${text}`,
          );
      }
      lines.push(JSON.stringify({ ...q, question: text, original_question: q.question, reworded_by: by }));
    }
    s.rule_uses = Object.fromEntries(
      Object.entries(s.rule_uses).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
    );
    summary[slice] = s;
    const dst = join(outDir, slice);
    mkdirSync(dst, { recursive: true });
    copyFileSync(join(src, 'corpus.jsonl'), join(dst, 'corpus.jsonl'));
    writeFileSync(join(dst, 'questions.jsonl'), lines.join('\n') + '\n');
  }
  writeFileSync(join(outDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');

  console.log(`reworded slices written to ${outDir}`);
  console.log(
    'slice              questions  hand  rules  unchanged  changed+entities kept  (rules alone: changed / kept)',
  );
  for (const [slice, s] of Object.entries(summary)) {
    console.log(
      `${slice.padEnd(18)} ${String(s.questions).padStart(9)} ${String(s.hand).padStart(5)} ${String(s.rules).padStart(6)} ` +
        `${String(s.unchanged).padStart(10)} ${String(s.changed_with_entities_kept).padStart(22)}  ` +
        `(${s.rules_on_all.changed} / ${s.rules_on_all.changed_with_entities_kept}; light only ${s.rules_on_all.light_only})`,
    );
  }
  if (misses.length) {
    console.log(
      `\nself-check: ${misses.length} reworded question(s) lost a named entity (reported, not fatal):`,
    );
    for (const m of misses) console.log(`  ${m}`);
  } else {
    console.log('\nself-check: every reworded question keeps all named entities of its original');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
