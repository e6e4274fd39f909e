/**
 * A seeded generator of a book-length chronicle for the E2GraphRAG long-document benchmark
 * (benchmarks/e2graphrag-long.ts): chapters of a made-up realm's history in which a few dozen
 * recurring characters travel between recurring places, meet, quarrel and trade, and in which some
 * events introduce a name that occurs nowhere else (a gift, a founded town and its steward, a
 * sword, an accord, an omen). Each such event yields a question whose answer is that name, so
 * Coverage (the answer in the packed context) says whether retrieval found the event among
 * hundreds of chunks where the same characters and places recur.
 *
 * Nothing here is copied: every name is built from syllables, every sentence from the templates
 * below, and the same seed gives the same text and questions byte for byte.
 */
import { type Random, randomInt, seededRandom } from '@grag/eval';

/** What a question asks for, and so which part of retrieval it exercises. */
export type ChronicleQuestionKind =
  /** Two characters and a place (local mode: the chunks naming both). */
  | 'gift'
  /** One character, a river and the kind of settlement. */
  | 'founding'
  /** Two hops: the town a character founded (one chapter), then its steward (a later one). */
  | 'steward'
  /** Two characters and a place. */
  | 'sword'
  /** Three characters and a place. */
  | 'accord'
  /** No named entity at all (nouns only). */
  | 'omen';

/** One generated question with its known answer. */
export interface ChronicleQuestion {
  id: string;
  question: string;
  answers: string[];
  type: ChronicleQuestionKind;
  /** Chapters (from 1) holding the answer's evidence. */
  chapters: number[];
}

/** A generated chronicle. */
export interface Chronicle {
  title: string;
  text: string;
  questions: ChronicleQuestion[];
  stats: { chapters: number; characters: number; places: number; words: number };
}

/** Options of {@link generateChronicle}. */
export interface ChronicleOptions {
  /** Seed of the generator. @default 16 */
  seed?: number;
  /** Chapters; about 2,300 cl100k tokens each. @default 150 */
  chapters?: number;
  /** Questions of each kind. @default { gift: 12, founding: 10, steward: 10, sword: 8, accord: 6, omen: 4 } */
  questions?: Partial<Record<ChronicleQuestionKind, number>>;
}

/** A list from words separated by `|`. */
const list = (words: string) => words.split('|');
const ONSETS = list('b|br|c|d|dr|f|g|h|k|l|m|n|p|r|s|t|th|v|w|z');
const VOWELS = list('a|e|i|o|u|ae|ei|ou');
const CODAS = list('|n|r|s|l|th|nd|rn|x|m|sk|lt');
const MATERIALS = list('Amber|Silver|Iron|Jade|Copper|Ivory|Obsidian|Bronze|Crystal|Ashwood');
const OBJECTS = list('Compass|Lantern|Chalice|Astrolabe|Mirror|Harp|Circlet|Seal|Hourglass');
const PLACE_KINDS = list('harbour|fortress|abbey|market town|ford|watchtower|mill town|hill fort');
const SETTLEMENTS = ['village', 'fort', 'trading post', 'priory', 'mining camp', 'ferry town'];
const SEASONS = ['spring', 'summer', 'autumn', 'winter'];
const OMENS = [
  ['comet', 'crossed the sky'],
  ['flood', 'drowned the lower fields'],
  ['frost', 'split the orchard trees'],
  ['fever', 'emptied the river markets'],
  ['drought', 'dried the wells'],
  ['eclipse', 'darkened the noon'],
] as const;
const GOODS = list('salt|wool|timber|wine|tin|barley|hides|amber beads|dyed cloth|smoked fish');
const WEATHER = list('cold rain|a dry east wind|thick fog|early snow|a long heat|storms from the sea');
const TOPICS = list('debts|old grievances|marriage plans|border tolls|the price of grain|the silver mines');
const MOODS = list('uneasy|hopeful|weary|restless|quiet|bitter');
const DEEDS = list(
  'broken a promise over a dowry|sold horses that went lame|mocked him before the council|' +
    'kept back a share of the tolls|sided with his rivals in a lawsuit',
);

/** Picks uniformly, and makes names no earlier call made. */
class Picker {
  private readonly used = new Set<string>();
  constructor(readonly random: Random) {}
  one<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)] as T;
  }
  /** `n` distinct items of `list`. */
  some<T>(list: readonly T[], n: number): T[] {
    const copy = [...list];
    const out: T[] = [];
    while (out.length < n && copy.length > 0)
      out.push(copy.splice(Math.floor(this.random() * copy.length), 1)[0] as T);
    return out;
  }
  /** A capitalized made-up word of `syllables` syllables, never returned before. */
  name(syllables = 2): string {
    for (;;) {
      let w = '';
      for (let s = 0; s < syllables; s++)
        w += this.one(ONSETS) + this.one(VOWELS) + (s === syllables - 1 ? this.one(CODAS) : '');
      const word = w[0]!.toUpperCase() + w.slice(1);
      if (!this.used.has(word)) {
        this.used.add(word);
        return word;
      }
    }
  }
  /** An unused combination `make()` returns. */
  unique(make: () => string): string {
    for (;;) {
      const s = make();
      if (!this.used.has(s)) {
        this.used.add(s);
        return s;
      }
    }
  }
}

interface Character {
  name: string;
  house: string;
  /** Chapters (from 1) in which the character appears. */
  from: number;
  to: number;
}

interface Place {
  name: string;
  kind: string;
}

/** One event with a question, placed in a chapter. */
interface Fact {
  chapter: number;
  paragraph: string;
}

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** What a scene sentence is about: two characters (`a` its subject), two places and a river. */
interface Scene {
  pick: Picker;
  a: Character;
  b: Character;
  at: Place;
  other: Place;
  river: string;
}

/** The sentences scene paragraphs are made of. */
const SCENES: readonly ((s: Scene) => string)[] = [
  ({ pick, a, at, other, river }) =>
    `${a.name} rode from ${at.name} to ${other.name} along the ${river}, and the road was ${pick.one(['muddy', 'crowded', 'empty', 'washed out in places'])}.`,
  ({ pick, at, other }) =>
    `In ${at.name} the market was full of ${pick.one(GOODS)} brought from ${other.name}.`,
  ({ pick, a, b }) => `${a.name} and ${b.name} talked late into the night about ${pick.one(TOPICS)}.`,
  ({ pick, at }) =>
    `${cap(pick.one(WEATHER))} kept the boats of ${at.name} at their moorings for ${randomInt(pick.random, 2, 9)} days.`,
  ({ pick, a, b, at }) =>
    `${a.name} wrote to ${b.name} that the ${pick.one(['barley', 'wheat', 'apple', 'hay'])} harvest at ${at.name} had been ${pick.one(['poor', 'fair', 'the best in years', 'ruined by hail'])}.`,
  ({ pick, a, at }) =>
    `Masons of House ${a.house} repaired the ${pick.one(['north wall', 'gatehouse', 'bridge', 'chapel roof'])} of ${at.name}.`,
  ({ pick, a, b }) => `${a.name} did not trust ${b.name}, who had once ${pick.one(DEEDS)}.`,
  ({ pick, a, at }) =>
    `The ${at.kind} of ${at.name} rang its bells for the ${pick.one(['harvest', 'midwinter', 'spring', 'saints'])} feast, and ${a.name} ${pick.one(['paid for the bread', 'kept away', 'danced until dawn', 'said the blessing'])}.`,
  ({ pick, a, at }) => `${a.name} counted the ${pick.one(GOODS)} stored in the cellars of ${at.name}.`,
  ({ pick, a, b, other }) =>
    `A rider from ${other.name} told ${a.name} that ${b.name} was ${pick.one(['raising men', 'ill with fever', 'buying ships', 'looking for a wife', 'in debt to the Guild'])}.`,
  ({ pick, a, river }) =>
    `${a.name} was ${pick.one(MOODS)} that ${pick.one(SEASONS)}, and spent many hours by the ${river}.`,
  ({ pick, a, b, at }) =>
    `${a.name} and ${b.name} argued over the ${pick.one(['mill', 'ferry', 'meadows', 'fishing rights'])} of ${at.name}.`,
  ({ pick, a, b, at }) =>
    `${b.name} sent ${randomInt(pick.random, 3, 40)} casks of ${pick.one(['wine', 'ale', 'oil', 'honey'])} to ${a.name} at ${at.name}.`,
  ({ pick, at, other }) =>
    `The roads between ${at.name} and ${other.name} were ${pick.one(['watched by bandits', 'mended at last', 'flooded', 'busy with pilgrims'])}.`,
];
const SCENE_IDS = SCENES.map((_, i) => i);

/** Generate the chronicle (see the file comment). Deterministic for `options`. */
export function generateChronicle(options: ChronicleOptions = {}): Chronicle {
  const seed = options.seed ?? 16;
  const chapters = options.chapters ?? 150;
  const counts = { gift: 12, founding: 10, steward: 10, sword: 8, accord: 6, omen: 4, ...options.questions };
  if (counts.steward > counts.founding)
    throw new Error('generateChronicle: each steward question needs a founding.');
  const pick = new Picker(seededRandom(seed));
  const houses = Array.from({ length: 9 }, () => pick.name(2));
  const places: Place[] = Array.from({ length: 22 }, () => ({
    name: pick.name(3),
    kind: pick.one(PLACE_KINDS),
  }));
  const rivers = Array.from({ length: 6 }, () => pick.name(2));
  const characters: Character[] = Array.from({ length: 34 }, (_, i) => {
    // Most characters span a third to all of the book; a few run from start to end.
    const span = i < 6 ? chapters : randomInt(pick.random, Math.ceil(chapters / 3), chapters);
    const from = randomInt(pick.random, 1, chapters - span + 1);
    const house = pick.one(houses);
    return { name: `${pick.name(2)} ${house}`, house, from, to: from + span - 1 };
  });
  const activeIn = (c: number) => characters.filter((x) => x.from <= c && c <= x.to);

  // The events with questions, spread evenly over the chapters in a shuffled order of kinds.
  const facts: Fact[] = [];
  const questions: ChronicleQuestion[] = [];
  const kinds: ChronicleQuestionKind[] = [];
  for (const kind of ['gift', 'founding', 'sword', 'accord', 'omen'] as const) {
    for (let i = 0; i < counts[kind]; i++) kinds.push(kind);
  }
  const order = pick.some(kinds, kinds.length);
  // Foundings whose steward is told later: 3 to 12 chapters after, so the two hops are apart.
  let stewards = counts.steward;
  order.forEach((kind, i) => {
    const chapter = Math.min(chapters, 1 + Math.floor(((i + 0.5) * chapters) / order.length));
    const cast = pick.some(activeIn(chapter), 3);
    const [x, y, z] = cast as [Character, Character, Character];
    const place = pick.one(places);
    const season = pick.one(SEASONS);
    const q = (question: string, answer: string, type: ChronicleQuestionKind, at = [chapter]) =>
      questions.push({
        id: `chronicle-${type}-${questions.length + 1}`,
        question,
        answers: [answer],
        type,
        chapters: at,
      });
    if (kind === 'gift') {
      const thing = pick.unique(() => `${pick.one(MATERIALS)} ${pick.one(OBJECTS)}`);
      facts.push({
        chapter,
        paragraph: `In the ${season}, when ${y.name} came to ${place.name}, ${x.name} gave ${y.name} the ${thing}, a gift that had belonged to House ${x.house} for three generations. ${y.name} promised to keep the ${thing} until the debts between them were settled.`,
      });
      q(`What did ${x.name} give to ${y.name} at ${place.name}?`, thing, 'gift');
    } else if (kind === 'founding') {
      const town = pick.name(3);
      const settlement = pick.one(SETTLEMENTS);
      const river = pick.one(rivers);
      facts.push({
        chapter,
        paragraph: `That ${season} ${x.name} led forty families up the ${river} and founded a ${settlement} called ${town} on its western bank, where the water runs shallow over white stones. The first houses of ${town} were built of river clay.`,
      });
      q(`What was the name of the ${settlement} that ${x.name} founded on the ${river}?`, town, 'founding');
      if (stewards > 0) {
        stewards--;
        const later = Math.min(chapters, chapter + randomInt(pick.random, 3, 12));
        const steward = `${pick.name(2)} ${pick.name(2)}`;
        facts.push({
          chapter: later,
          paragraph: `${town} had grown, and its people asked for a steward of their own. They chose ${steward}, a ferryman's son, who kept the tolls of the crossing honestly and rebuilt the granary after the fire.`,
        });
        q(
          `Who became steward of the ${settlement} that ${x.name} founded on the ${river}?`,
          steward,
          'steward',
          [chapter, later],
        );
      }
    } else if (kind === 'sword') {
      const sword = pick.name(3);
      facts.push({
        chapter,
        paragraph: `At ${place.name} the quarrel between ${x.name} and ${y.name} came to blows. They fought on the causeway at dawn, and ${x.name} wounded ${y.name} in the shoulder with the sword called ${sword}, which the smiths of House ${x.house} had forged.`,
      });
      q(
        `What was the name of the sword with which ${x.name} wounded ${y.name} at ${place.name}?`,
        sword,
        'sword',
      );
    } else if (kind === 'accord') {
      const accord = `${pick.name(2)} Accord`;
      facts.push({
        chapter,
        paragraph: `At ${place.name}, ${x.name}, ${y.name} and ${z.name} set their seals to the ${accord}, by which the tolls on the river roads were halved and no house would raise soldiers without the consent of the other two.`,
      });
      q(`What agreement did ${x.name}, ${y.name} and ${z.name} seal at ${place.name}?`, accord, 'accord');
    } else {
      const [omen, did] = OMENS[questions.filter((qq) => qq.type === 'omen').length % OMENS.length]!;
      const called = pick.name(3);
      facts.push({
        chapter,
        paragraph: `In the ${season} of that year a great ${omen} ${did}, and for a generation afterwards the common people spoke of it as ${called}. Old men dated their memories by ${called}.`,
      });
      q(`What did the common people call the great ${omen} that ${did}?`, called, 'omen');
    }
  });

  /** A sentence of scene template `template` about `cast` (the first is its subject) at `at`. */
  const sentence = (template: number, cast: Character[], at: Place, other: Place): string => {
    const [a, b] = cast as [Character, Character | undefined];
    const bb = b ?? pick.one(characters.filter((x) => x !== a));
    return SCENES[template]!({ pick, a, b: bb, at, other, river: pick.one(rivers) });
  };

  const factsByChapter = new Map<number, string[]>();
  for (const f of facts)
    factsByChapter.set(f.chapter, [...(factsByChapter.get(f.chapter) ?? []), f.paragraph]);
  const title = `The Chronicle of the ${rivers[0]} Valley`;
  const parts = [title, ''];
  for (let c = 1; c <= chapters; c++) {
    parts.push(`Chapter ${c}. The Year ${1000 + c}`, '');
    const active = activeIn(c);
    const mine = factsByChapter.get(c) ?? [];
    const paragraphs: string[] = [];
    for (let p = 0; p < 18; p++) {
      const cast = pick.some(active, randomInt(pick.random, 1, 3));
      const [at, other] = pick.some(places, 2) as [Place, Place];
      // 4 to 7 sentences, no template twice in a paragraph.
      const templates = pick.some(SCENE_IDS, randomInt(pick.random, 4, 7));
      paragraphs.push(templates.map((t) => sentence(t, pick.some(cast, cast.length), at, other)).join(' '));
    }
    // Each event goes at a seeded position among the chapter's paragraphs.
    for (const f of mine) paragraphs.splice(randomInt(pick.random, 0, paragraphs.length), 0, f);
    parts.push(...paragraphs.flatMap((p) => [p, '']));
  }
  const text = parts.join('\n');
  return {
    title,
    text,
    questions,
    stats: {
      chapters,
      characters: characters.length,
      places: places.length,
      words: text.split(/\s+/).filter(Boolean).length,
    },
  };
}
