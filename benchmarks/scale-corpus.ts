/**
 * A seeded generator of an invented encyclopedia for the scale benchmark (benchmarks/scale.ts):
 * articles about people, places, organisations and works, and chronicle notes that mention several of
 * them, written until the corpus holds a target number of cl100k tokens. Entities recur across
 * documents (a person's article names her birthplace, employer, spouse and works; each of those has
 * an article of its own that names her back), so graph methods have entities and links to build.
 * Every fact the articles state is planted, and the questions are asked about planted facts, each
 * with the documents that state it.
 *
 * The same seed and target give the same documents, byte for byte (mulberry32, no clock, no
 * Map-order surprises). The world is invented: names are put together from invented syllables in
 * the style of the demo corpus (Ilse Marren, Merrow Falls, the Kessler Shipyard), never taken from
 * a dataset.
 */
import { getTokenizer } from '@grag/core/kit';
import { type Random, randomInt, seededRandom, shuffle } from '@grag/eval';

/** Bump when the generated text changes, so cached corpora are made again. */
export const GENERATOR_VERSION = 1;

export interface ScaleDocument {
  id: string;
  title: string;
  text: string;
}

export interface ScaleQuestion {
  id: string;
  question: string;
  answer: string;
  /** Ids of the documents that state the fact asked about. */
  docIds: string[];
}

export interface ScaleCorpus {
  documents: ScaleDocument[];
  questions: ScaleQuestion[];
  /** cl100k tokens of the documents' texts. */
  tokens: number;
}

const FIRST = (
  'Ilse Tobias Maren Edvin Liesel Corin Halvard Annick Bram Petra Soren Idris Mirela Oskar Thea Jonas ' +
  'Vera Aksel Nell Rasmus Greta Emil Signe Lukas Hedda Anton Ingrid Felix Runa Casimir Elin Magnus ' +
  'Ylva Leopold Saga Viktor Tilde Arvid Liv Konrad Dagny Hugo Britt Matthias Alva Jakob Wilma Nils Frida Ruben'
).split(' ');
const SUR_HEAD =
  'Marr Wren Lind Kess Brand Holm Vesk Tall Sorr Ebb Gull Merr Fenn Hark Aldr Quill Dunn Stav Rook Tarn Orr Pell Skel Brin'.split(
    ' ',
  );
const SUR_TAIL = 'en ick ler qvist by mark sen ow ard wyn stad ham ley ing ott is'.split(' ');
const STEM_A =
  'Mer Hal Tal Ves Kar Ost Brun Sel Dra Ev Lor Fal Gris Thal Ard Quen Mor Sund Hel Bay Cor Wick Ash Ran'.split(
    ' ',
  );
const STEM_B = 'row vard lin kan mouth ness holm dale wick by ford mere stead garth rick ton'.split(' ');
const PLACE_FORM = [
  '# Falls',
  'Port #',
  '# Bay',
  '# Harbour',
  '# Crossing',
  'Upper #',
  '# Point',
  '# Haven',
  '# Reach',
  '#',
];
const REGION = [
  'the Veskan Strait',
  'the Sable Coast',
  'the Brannoch Hills',
  'the Orrin Lowlands',
  'the Tallin Fjords',
];
const ORG_FORM = [
  'the # Institute of Marine Science',
  'the # Shipyard',
  'the # Rowing Club',
  'the # Harbour Trust',
  'the # Press',
  'the # Historical Society',
  'the # Ferry Company',
  'the # Conservatory',
  'the # Observatory',
  'the # Lifeboat Station',
];
const ORG_FIELD = [
  'marine research',
  'shipbuilding',
  'rowing',
  'harbour upkeep',
  'publishing',
  'local history',
  'ferry service',
  'music',
  'astronomy',
  'sea rescue',
];
const JOBS = [
  'marine biologist',
  'shipwright',
  'composer',
  'cartographer',
  'historian',
  'ferry captain',
  'astronomer',
  'painter',
  'archivist',
  'engineer',
  'botanist',
  'novelist',
];
const WORK_KIND = ['novel', 'survey', 'symphony', 'atlas', 'play', 'painting', 'field guide', 'chronicle'];
const WORK_ADJ =
  'Salt Silver Quiet Northern Drowned Amber Long Winter Grey Lantern Tidal Hollow Broken Lost Copper'.split(
    ' ',
  );
const WORK_NOUN =
  'Ledger Suite Strait Meadows Gull Tern Lighthouse Harbour Chart Current Orchard Ferry Archive Shore Bell'.split(
    ' ',
  );
const AWARDS = [
  'the Brandt Medal',
  'the Sable Gull Prize',
  'the Harbour Lantern Award',
  'the Orrin Fellowship',
  'the Tallin Chart Prize',
];
/** Colour sentences: `{P}` a place, `{Y}` a year, `{O}` an organisation. */
const COLOUR = [
  'The winters there are long, and the harbour often freezes by the end of {Y}.',
  'Records kept by {O} describe the period in careful detail.',
  'Visitors from {P} came every summer to see the boats and the old warehouses.',
  'A small museum near the quay keeps letters, tools and photographs from that time.',
  'Local newspapers wrote about it at length, though many of the issues were later lost in a fire.',
  'The road to {P} was paved in {Y}, which shortened the journey to less than a day.',
  'Several of the surviving drawings are now held in the archive of {O}.',
  'Fishing remained the main trade of the coast until the ferries took over in {Y}.',
  'The eelgrass meadows along the shore were first mapped in {Y}.',
  'Older residents still remember the storm of {Y}, which flooded the lower streets of {P}.',
  'Much of the correspondence from these years was catalogued by volunteers of {O}.',
  'The tide tables printed in {Y} were used by pilots for another forty years.',
];

interface Person {
  name: string;
  born: number;
  birthplace: number;
  job: string;
  employer: number;
  joined: number;
  spouse?: number;
  works: number[];
  award?: { name: string; year: number };
}
interface Place {
  name: string;
  region: string;
  founded: number;
  river: string;
}
interface Org {
  name: string;
  field: string;
  founder: number;
  founded: number;
  seat: number;
}
interface Work {
  title: string;
  kind: string;
  author: number;
  year: number;
  publisher: number;
  subject: number;
}
interface World {
  people: Person[];
  places: Place[];
  orgs: Org[];
  works: Work[];
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const an = (s: string) => `${/^[aeiou]/.test(s) ? 'an' : 'a'} ${s}`;

/**
 * `count` distinct names drawn with `make`, then with `longer` (a larger space of names) after 20
 * collisions in a row; a name still taken after 50 more gets its position as a suffix.
 */
function distinct(count: number, make: () => string, longer: () => string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < count) {
    let name = make();
    for (let tries = 0; seen.has(name) && tries < 20; tries++) name = make();
    for (let tries = 0; seen.has(name) && tries < 50; tries++) name = longer();
    if (seen.has(name)) name = `${name} ${out.length}`;
    seen.add(name);
    out.push(name);
  }
  return out;
}

function makeWorld(random: Random, entities: number): World {
  const nPeople = Math.max(8, Math.round(entities * 0.45));
  const nPlaces = Math.max(4, Math.round(entities * 0.15));
  const nOrgs = Math.max(4, Math.round(entities * 0.15));
  const nWorks = Math.max(4, entities - nPeople - nPlaces - nOrgs);
  const stem = () => pick(random, STEM_A) + pick(random, STEM_B);
  const placeNames = distinct(
    nPlaces,
    () => pick(random, PLACE_FORM).replace('#', stem()),
    () => pick(random, PLACE_FORM).replace('#', stem() + pick(random, STEM_B)),
  );
  const places: Place[] = placeNames.map((name) => ({
    name,
    region: pick(random, REGION),
    founded: randomInt(random, 1100, 1800),
    river: `the ${stem()}`,
  }));
  const surname = () => pick(random, SUR_HEAD) + pick(random, SUR_TAIL);
  const personNames = distinct(
    nPeople,
    () => `${pick(random, FIRST)} ${surname()}`,
    () => `${pick(random, FIRST)} ${surname()}-${surname()}`,
  );
  const orgName = (name: () => string) => {
    const i = Math.floor(random() * ORG_FORM.length);
    return `${ORG_FORM[i]!.replace('#', name())}|${i}`;
  };
  const orgNames = distinct(
    nOrgs,
    () => orgName(() => (random() < 0.5 ? stem() : surname())),
    () => orgName(() => `${surname()} ${pick(random, placeNames).replace(/^(Port|Upper) /, '')}`),
  );
  const orgs: Org[] = orgNames.map((n) => {
    const [name, i] = n.split('|') as [string, string];
    return {
      name,
      field: ORG_FIELD[Number(i)]!,
      founder: Math.floor(random() * nPeople),
      founded: randomInt(random, 1850, 1990),
      seat: Math.floor(random() * nPlaces),
    };
  });
  const people: Person[] = personNames.map((name) => {
    const born = randomInt(random, 1900, 1995);
    return {
      name,
      born,
      birthplace: Math.floor(random() * nPlaces),
      job: pick(random, JOBS),
      employer: Math.floor(random() * nOrgs),
      joined: born + randomInt(random, 22, 35),
      works: [],
      ...(random() < 0.3
        ? { award: { name: pick(random, AWARDS), year: born + randomInt(random, 35, 60) } }
        : {}),
    };
  });
  for (const o of orgs) o.founded = people[o.founder]!.born + randomInt(random, 25, 50);
  for (let i = 0; i + 1 < people.length; i += 2) {
    if (random() < 0.5) {
      people[i]!.spouse = i + 1;
      people[i + 1]!.spouse = i;
    }
  }
  const titles = distinct(
    nWorks,
    () =>
      random() < 0.5
        ? `The ${pick(random, WORK_ADJ)} ${pick(random, WORK_NOUN)}`
        : `${pick(random, WORK_NOUN)} of ${pick(random, placeNames)}`,
    () => `The ${pick(random, WORK_ADJ)} ${pick(random, WORK_NOUN)} of ${pick(random, placeNames)}`,
  );
  const works: Work[] = titles.map((title, w) => {
    const author = Math.floor(random() * nPeople);
    people[author]!.works.push(w);
    return {
      title,
      kind: pick(random, WORK_KIND),
      author,
      year: people[author]!.born + randomInt(random, 25, 60),
      publisher: Math.floor(random() * nOrgs),
      subject: Math.floor(random() * nPlaces),
    };
  });
  return { people, places, orgs, works };
}

const ids = {
  person: (i: number) => `person-${String(i).padStart(6, '0')}`,
  place: (i: number) => `place-${String(i).padStart(6, '0')}`,
  org: (i: number) => `org-${String(i).padStart(6, '0')}`,
  work: (i: number) => `work-${String(i).padStart(6, '0')}`,
  note: (i: number) => `note-${String(i).padStart(6, '0')}`,
};

/** A colour sentence with a random place, organisation and year of the world. */
function colour(random: Random, world: World, year: number): string {
  return pick(random, COLOUR)
    .replace('{P}', pick(random, world.places).name)
    .replace('{O}', pick(random, world.orgs).name)
    .replace('{Y}', String(year));
}

function paragraph(random: Random, world: World, sentences: string[], year: number): string {
  const extra = randomInt(random, 1, 3);
  for (let i = 0; i < extra; i++) {
    sentences.splice(
      randomInt(random, 1, sentences.length),
      0,
      colour(random, world, year + randomInt(random, -5, 20)),
    );
  }
  return sentences.join(' ');
}

function personArticle(random: Random, world: World, i: number): ScaleDocument {
  const p = world.people[i]!;
  const surname = p.name.split(' ').slice(1).join(' ');
  const home = world.places[p.birthplace]!;
  const org = world.orgs[p.employer]!;
  const paras = [
    paragraph(
      random,
      world,
      [
        `${p.name} is ${an(p.job)} born in ${home.name} in ${p.born}.`,
        `${home.name} lies on ${home.river} in ${home.region}, and ${surname} grew up near its harbour.`,
        random() < 0.5
          ? `As a child ${surname} spent the summers on the boats of ${world.places[(p.birthplace + 1) % world.places.length]!.name}.`
          : `${surname} went to school in ${home.name} and left it at eighteen.`,
      ],
      p.born + 10,
    ),
    paragraph(
      random,
      world,
      [
        `In ${p.joined} ${surname} joined ${org.name}, an organisation for ${org.field} based in ${world.places[org.seat]!.name}.`,
        `There ${surname} worked alongside ${pick(random, world.people).name} and ${pick(random, world.people).name}.`,
        `${cap(org.name)} had been founded by ${world.people[org.founder]!.name} in ${org.founded}.`,
      ],
      p.joined,
    ),
  ];
  if (p.works.length > 0) {
    const list = p.works.map(
      (w) => `the ${world.works[w]!.kind} ${world.works[w]!.title} (${world.works[w]!.year})`,
    );
    paras.push(
      paragraph(
        random,
        world,
        [
          `${surname} is best known for ${list.join(', ')}.`,
          ...p.works.slice(0, 2).map((w) => {
            const work = world.works[w]!;
            return `${work.title} was published by ${world.orgs[work.publisher]!.name} and is set in ${world.places[work.subject]!.name}.`;
          }),
        ],
        world.works[p.works[0]!]!.year,
      ),
    );
  }
  const last: string[] = [];
  if (p.spouse !== undefined) {
    const s = world.people[p.spouse]!;
    last.push(`${surname} is married to the ${s.job} ${s.name}.`);
  }
  if (p.award) last.push(`In ${p.award.year} ${surname} received ${p.award.name}.`);
  last.push(`${surname} lives in ${pick(random, world.places).name}.`);
  paras.push(paragraph(random, world, last, p.born + 50));
  return { id: ids.person(i), title: p.name, text: paras.join('\n\n') };
}

function placeArticle(random: Random, world: World, i: number): ScaleDocument {
  const pl = world.places[i]!;
  const born = world.people.filter((p) => p.birthplace === i).slice(0, 6);
  const seats = world.orgs.filter((o) => o.seat === i).slice(0, 4);
  const paras = [
    paragraph(
      random,
      world,
      [
        `${pl.name} is a town on ${pl.river} in ${pl.region}, first recorded in ${pl.founded}.`,
        `Its harbour grew with the herring trade, and a stone bridge over ${pl.river} was built in ${pl.founded + randomInt(random, 50, 300)}.`,
      ],
      pl.founded + 200,
    ),
  ];
  if (seats.length > 0)
    paras.push(
      paragraph(
        random,
        world,
        seats.map((o) => `${cap(o.name)}, founded in ${o.founded}, is based in ${pl.name}.`),
        1900,
      ),
    );
  if (born.length > 0)
    paras.push(
      paragraph(
        random,
        world,
        [
          `People born in ${pl.name} include ${born.map((p) => `the ${p.job} ${p.name} (${p.born})`).join(', ')}.`,
        ],
        1950,
      ),
    );
  return { id: ids.place(i), title: pl.name, text: paras.join('\n\n') };
}

function orgArticle(random: Random, world: World, i: number): ScaleDocument {
  const o = world.orgs[i]!;
  const founder = world.people[o.founder]!;
  const staff = world.people.filter((p) => p.employer === i).slice(0, 6);
  const printed = world.works.filter((w) => w.publisher === i).slice(0, 5);
  const paras = [
    paragraph(
      random,
      world,
      [
        `${cap(o.name)} is an organisation for ${o.field} based in ${world.places[o.seat]!.name}.`,
        `It was founded in ${o.founded} by ${founder.name}, ${an(founder.job)} from ${world.places[founder.birthplace]!.name}.`,
      ],
      o.founded,
    ),
  ];
  if (staff.length > 0)
    paras.push(
      paragraph(
        random,
        world,
        staff.map((p) => `${p.name} joined ${o.name} in ${p.joined}.`),
        o.founded + 30,
      ),
    );
  if (printed.length > 0)
    paras.push(
      paragraph(
        random,
        world,
        [
          `Works published by ${o.name} include ${printed.map((w) => `${w.title} by ${world.people[w.author]!.name}`).join(', ')}.`,
        ],
        o.founded + 40,
      ),
    );
  return { id: ids.org(i), title: cap(o.name.replace(/^the /, '')), text: paras.join('\n\n') };
}

function workArticle(random: Random, world: World, i: number): ScaleDocument {
  const w = world.works[i]!;
  const author = world.people[w.author]!;
  const subject = world.places[w.subject]!;
  const text = [
    paragraph(
      random,
      world,
      [
        `${w.title} is ${an(w.kind)} by ${author.name}, published in ${w.year} by ${world.orgs[w.publisher]!.name}.`,
        `It is set in ${subject.name}, on ${subject.river}, and follows a year in the life of the town.`,
        `${author.name} wrote it while working for ${world.orgs[author.employer]!.name}.`,
      ],
      w.year,
    ),
    paragraph(
      random,
      world,
      [
        `Critics in ${pick(random, world.places).name} praised its account of ${subject.region}.`,
        random() < 0.5
          ? `A second edition followed in ${w.year + randomInt(random, 5, 25)}.`
          : `It was read aloud at the harbour festival of ${subject.name} in ${w.year + randomInt(random, 1, 10)}.`,
      ],
      w.year + 5,
    ),
  ].join('\n\n');
  return { id: ids.work(i), title: w.title, text };
}

/** A chronicle note: a year in a place, restating facts of a few entities. */
function noteDocument(random: Random, world: World, n: number): ScaleDocument {
  const place = pick(random, world.places);
  const year = randomInt(random, 1900, 2020);
  const lines: string[] = [];
  for (let k = randomInt(random, 4, 7); k > 0; k--) {
    const kind = randomInt(random, 0, 3);
    if (kind === 0) {
      const p = pick(random, world.people);
      lines.push(
        `${p.name}, the ${p.job} from ${world.places[p.birthplace]!.name}, spoke at the meeting of ${world.orgs[p.employer]!.name}.`,
      );
    } else if (kind === 1) {
      const w = pick(random, world.works);
      lines.push(
        `Copies of ${w.title}, the ${w.kind} by ${world.people[w.author]!.name}, were lent out from the library.`,
      );
    } else if (kind === 2) {
      const o = pick(random, world.orgs);
      lines.push(
        `${cap(o.name)} held its annual dinner; it was founded by ${world.people[o.founder]!.name} in ${o.founded}.`,
      );
    } else {
      lines.push(colour(random, world, year));
    }
  }
  return {
    id: ids.note(n),
    title: `Chronicle of ${place.name}, ${year}`,
    text: `Notes on the year ${year} in ${place.name}, kept by the town clerk.\n\n${lines.join(' ')}`,
  };
}

function questionsFor(random: Random, world: World, written: Set<string>, count: number): ScaleQuestion[] {
  const out: ScaleQuestion[] = [];
  const people = shuffle(
    random,
    world.people.map((_, i) => i),
  ).filter((i) => written.has(ids.person(i)));
  const orgs = shuffle(
    random,
    world.orgs.map((_, i) => i),
  ).filter((i) => written.has(ids.org(i)));
  const works = shuffle(
    random,
    world.works.map((_, i) => i),
  ).filter((i) => written.has(ids.work(i)));
  for (let k = 0; out.length < count && k < count * 4; k++) {
    const kind = k % 5;
    const q = (question: string, answer: string, docIds: string[]) =>
      out.push({
        id: `q${String(out.length + 1).padStart(3, '0')}`,
        question,
        answer,
        docIds: docIds.filter((d) => written.has(d)),
      });
    if (kind === 0 && people.length > 0) {
      const p = world.people[people.pop()!]!;
      q(`Where was the ${p.job} ${p.name} born?`, world.places[p.birthplace]!.name, [
        ids.person(world.people.indexOf(p)),
      ]);
    } else if (kind === 1 && orgs.length > 0) {
      const i = orgs.pop()!;
      const o = world.orgs[i]!;
      q(`Who founded ${o.name}?`, world.people[o.founder]!.name, [ids.org(i)]);
    } else if (kind === 2 && works.length > 0) {
      const i = works.pop()!;
      const w = world.works[i]!;
      q(`Who wrote the ${w.kind} ${w.title}?`, world.people[w.author]!.name, [
        ids.work(i),
        ids.person(w.author),
      ]);
    } else if (kind === 3 && people.length > 0) {
      const i = people.pop()!;
      const p = world.people[i]!;
      const o = world.orgs[p.employer]!;
      q(
        `In which town is the organisation that ${p.name} joined in ${p.joined} based?`,
        world.places[o.seat]!.name,
        [ids.person(i), ids.org(p.employer)],
      );
    } else if (kind === 4 && works.length > 0) {
      const i = works.pop()!;
      const w = world.works[i]!;
      q(`Which organisation published ${w.title}?`, world.orgs[w.publisher]!.name, [ids.work(i)]);
    }
  }
  return out;
}

/** Average tokens of an article, to size the world to the target (articles are ~75 % of it). */
const ARTICLE_TOKENS = 240;

/**
 * Documents of an invented encyclopedia, `targetTokens` cl100k tokens of text (the last document
 * crosses it), and `questions` questions about facts they state. Same `seed` and target, same output.
 */
export function generateScaleCorpus(seed: number, targetTokens: number, questions = 80): ScaleCorpus {
  if (!Number.isInteger(targetTokens) || targetTokens < 1000)
    throw new Error(`scale corpus: target tokens ${targetTokens} is not an integer of at least 1000`);
  const random = seededRandom(seed);
  const world = makeWorld(random, Math.max(20, Math.round((targetTokens * 0.75) / ARTICLE_TOKENS)));
  const writers: (() => ScaleDocument)[] = [
    ...world.people.map((_, i) => () => personArticle(random, world, i)),
    ...world.places.map((_, i) => () => placeArticle(random, world, i)),
    ...world.orgs.map((_, i) => () => orgArticle(random, world, i)),
    ...world.works.map((_, i) => () => workArticle(random, world, i)),
  ];
  shuffle(random, writers);
  const tokenizer = getTokenizer('cl100k_base');
  const documents: ScaleDocument[] = [];
  let tokens = 0;
  for (let n = 0; tokens < targetTokens; n++) {
    const doc = n < writers.length ? writers[n]!() : noteDocument(random, world, n - writers.length);
    documents.push(doc);
    tokens += tokenizer.count(doc.text);
  }
  const written = new Set(documents.map((d) => d.id));
  return { documents, tokens, questions: questionsFor(random, world, written, questions) };
}

/** The corpus as JSONL (`id`, `title`, `text` per line), the form `grag index` reads. */
export function toJsonl(documents: readonly ScaleDocument[]): string {
  return documents.map((d) => JSON.stringify(d)).join('\n') + '\n';
}
