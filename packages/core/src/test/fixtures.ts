import { createBuildContext } from '../build-context.js';
import type { BuildContext } from '../contracts/method.js';
import type { Embedder } from '../contracts/models.js';
import { TASK_CONTRACTS, type TaskName, type TaskSuite } from '../contracts/tasks.js';
import type { Document, DocumentSegment, Retrieval, SourceLocation } from '../contracts/types.js';

const PEOPLE = ['Anton Kessler', 'Mira Kessler', 'Tomas Brandt', 'Ilse Varga', 'Jonas Holm', 'Petra Lind'];
const PLACES = ['Varnholm', 'Orsa', 'Kestrel Bay', 'Dunmore', 'Ashford'];
const THINGS = [
  'the Kessler Shipyard',
  'the Orsa Marine Institute',
  'the Varnholm Regatta',
  'the Dunmore Lighthouse',
];

/**
 * The three questions of the tiny evaluation sets of the CLI and eval tests, one on each of three
 * passages: `p1` (Ada Lovelace, born in London), `p2` (Charles Babbage, who designed the Analytical
 * Engine) and `p3` (Paris, the capital of France); each with its answer and supporting passage.
 */
export function tinyQuestions(): { id: string; question: string; answers: string[]; supporting: string[] }[] {
  return [
    { id: 'q1', question: 'Where was Ada Lovelace born?', answers: ['London'], supporting: ['p1'] },
    {
      id: 'q2',
      question: 'What did Charles Babbage design?',
      answers: ['Analytical Engine'],
      supporting: ['p2'],
    },
    { id: 'q3', question: 'What is the capital of France?', answers: ['Paris'], supporting: ['p3'] },
  ];
}

/**
 * `count` short documents of three sentences about recurring people, places and organizations,
 * for build tests. Every sentence differs (each names a year), so no text repeats in a build.
 */
export function entityDocuments(count: number): Document[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `d${i}`,
    title: `Record ${i}`,
    text:
      `${PEOPLE[i % 6]} visited ${PLACES[i % 5]} in ${1880 + i}. ` +
      `${PEOPLE[(i + 1) % 6]} worked for ${THINGS[i % 4]} in ${PLACES[(i + 2) % 5]} from ${1920 + i}. ` +
      `In ${1960 + i}, ${THINGS[(i + 1) % 4]} hired ${PEOPLE[(i + 3) % 6]}.`,
  }));
}

/**
 * A document under an id of {@link entityDocuments} (`d3`, whose text names 1883) with other text
 * (it names 1999): what the update tests add to replace an indexed document.
 */
export const RECORD_3_REPLACEMENT: Document = {
  id: 'd3',
  title: 'Record 3',
  text: 'Ilse Varga sailed to Kestrel Bay in 1999.',
};

/** A corpus change as the update tests of every method make it (see {@link corpusChange}). */
export interface CorpusChange {
  /** The corpus built on. */
  A: Document[];
  /** The documents added. */
  B: Document[];
  /** The ids removed (of documents in A). */
  C: string[];
  /** The corpus after the change, in the order an update holds its documents: A without C, then B. */
  AplusBminusC: Document[];
}

/**
 * The change update tests make to `docs`: build on the first `built` (A), add the rest (B), remove
 * the ids `removed` (C). An update of A by (+B, −C) is compared with a fresh build on `AplusBminusC`.
 *
 * @example
 * const { A, B, C, AplusBminusC } = corpusChange(entityDocuments(15), 10, ['d2', 'd5', 'd7']);
 */
export function corpusChange(
  docs: readonly Document[],
  built: number,
  removed: readonly string[],
): CorpusChange {
  const A = docs.slice(0, built);
  const B = docs.slice(built);
  const C = [...removed];
  return { A, B, C, AplusBminusC: [...A.filter((d) => !C.includes(d.id)), ...B] };
}

/**
 * Queries over {@link entityDocuments}: names, places, organizations, titles and years its records
 * hold, phrased as keywords, so every method finds something.
 */
export const ENTITY_QUERIES: readonly string[] = [
  'Anton Kessler visited Varnholm',
  'Kessler Shipyard hired',
  'Orsa Marine Institute in 1962',
  'Dunmore Lighthouse 1887',
  'Petra Lind worked in Ashford',
  'Record 12',
  'Record 5 in 1885',
];

/**
 * Questions over {@link entityDocuments} (12 or more): who worked for or was hired by an
 * organization, which place a person visited, some with a place or a year.
 */
export const ENTITY_QUESTIONS: readonly string[] = [
  'Who worked for the Kessler Shipyard?',
  'Which place did Tomas Brandt visit?',
  'Who did the Orsa Marine Institute hire?',
  'Which place did Mira Kessler visit in 1887?',
  'Who worked for the Dunmore Lighthouse in Ashford?',
];

/** One file as a loader gives it: its parts, each a segment with its location, joined by blank lines. */
function loaded(
  id: string,
  title: string,
  parts: readonly [Omit<SourceLocation, 'path'>, string][],
): Document {
  let text = '';
  const segments: DocumentSegment[] = [];
  for (const [place, part] of parts) {
    if (text !== '') text += '\n\n';
    segments.push({ start: text.length, end: text.length + part.length, location: { path: id, ...place } });
    text += part;
  }
  return { id, title, text, segments };
}

/**
 * What `method` retrieves from `index` for every query, once with each of `optionSets`, query by
 * query (`[q1 with options 1, q1 with options 2, q2 with options 1, …]`): the retrievals a format
 * test compares between an index and its saved-and-loaded copy, e.g.
 * `retrieveEach(method, index, ENTITY_QUERIES, [{ budgetTokens: 200 }, { budgetTokens: 100_000 }])`.
 */
export async function retrieveEach<I, O>(
  method: { retrieve(index: I, query: string, options?: O): Promise<Retrieval> },
  index: I,
  queries: readonly string[],
  optionSets: readonly O[],
): Promise<Retrieval[]> {
  const out: Retrieval[] = [];
  for (const query of queries) {
    for (const options of optionSets) out.push(await method.retrieve(index, query, options));
  }
  return out;
}

/**
 * A small corpus as loaders give it, for provenance tests: `report.pdf` (three pages),
 * `guide.md` (sections under a heading path), `people.csv` (one segment per row, as a spreadsheet
 * numbers rows: the header is row 1), and `notes` without segments. Each fact of
 * {@link LOCATED_QUESTIONS} is in one segment only, and its answer is named nowhere else.
 */
export function locatedDocuments(): Document[] {
  return [
    loaded('report.pdf', 'Annual report', [
      [
        { page: 1 },
        'Anton Kessler founded the Kessler Shipyard in Varnholm in 1881. The Kessler Shipyard builds ferries.',
      ],
      [
        { page: 2 },
        'Mira Kessler won the Varnholm Regatta in 1902. The Varnholm Regatta is held every August.',
      ],
      [
        { page: 3 },
        'Ilse Varga founded the Orsa Observatory in 1887. The Orsa Observatory stands on a hill above Orsa.',
      ],
    ]),
    loaded('guide.md', 'Lighthouse guide', [
      [
        { section: ['Dunmore Lighthouse'] },
        'Tomas Brandt built the Dunmore Lighthouse in 1860 on the cliffs of Dunmore.',
      ],
      [
        { section: ['Dunmore Lighthouse', 'Keepers'] },
        'Jonas Holm kept the Dunmore Lighthouse from 1901 to 1930.',
      ],
    ]),
    loaded('people.csv', 'People', [
      [{ row: 2 }, 'name: Tomas Brandt\nrole: Tomas Brandt was an engineer in Dunmore.'],
      [{ row: 3 }, 'name: Petra Lind\nrole: Petra Lind directs the Orsa Marine Institute in Kestrel Bay.'],
    ]),
    {
      id: 'notes',
      title: 'Notes',
      text: 'Ashford lies on the river Esk. The Ashford market opens on Mondays.',
    },
  ];
}

/** Questions on {@link locatedDocuments}, each with its answer and the one place the answer is given. */
export const LOCATED_QUESTIONS: readonly { question: string; answer: string; location: SourceLocation }[] = [
  {
    question: 'Who founded the Orsa Observatory?',
    answer: 'Ilse Varga',
    location: { path: 'report.pdf', page: 3 },
  },
  {
    question: 'Who kept the Dunmore Lighthouse?',
    answer: 'Jonas Holm',
    location: { path: 'guide.md', section: ['Dunmore Lighthouse', 'Keepers'] },
  },
  {
    question: 'Who directs the Orsa Marine Institute?',
    answer: 'Petra Lind',
    location: { path: 'people.csv', row: 3 },
  },
];

/** How many task calls a {@link trackTasks} suite has in flight, at most, and has made. */
export interface TaskTracking {
  inFlight: number;
  peak: number;
  /** `extractGraph` calls made. */
  extracted: number;
}

const TASKS = Object.keys(TASK_CONTRACTS) as TaskName[];

/** A suite with `base`'s id, judgement and declared versions, and no task yet. */
function sameSuite(base: TaskSuite): Record<string, unknown> {
  const tasks: Record<string, unknown> = { id: base.id };
  if (base.judgement !== undefined) tasks.judgement = base.judgement;
  if (base.implements !== undefined) tasks.implements = base.implements;
  return tasks;
}

/**
 * Wrap `base` so every task call records how many run at once (each waits one macrotask first,
 * so concurrent calls overlap) and, with `fail`, graph extraction throws for a text containing it.
 */
export function trackTasks(base: TaskSuite, fail?: string): { tasks: TaskSuite; seen: TaskTracking } {
  const seen: TaskTracking = { inFlight: 0, peak: 0, extracted: 0 };
  const tasks = sameSuite(base);
  for (const name of TASKS) {
    const fn = (base[name] as (...args: unknown[]) => Promise<unknown>).bind(base);
    tasks[name] = async (...args: unknown[]) => {
      seen.inFlight += 1;
      seen.peak = Math.max(seen.peak, seen.inFlight);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        if (name === 'extractGraph') {
          seen.extracted += 1;
          if (fail && String(args[0]).includes(fail)) throw new Error('the model is down');
        }
        return await fn(...args);
      } finally {
        seen.inFlight -= 1;
      }
    };
  }
  return { tasks: tasks as unknown as TaskSuite, seen };
}

/**
 * Run `build` on a context of `embedder` and `base` tracked by {@link trackTasks}, with the runtime
 * concurrency `runtime` and, when given, the build option `concurrency`; returns what the tracking
 * saw (the most task calls in flight at once, the extractions made).
 *
 * @example
 * ```ts
 * const seen = await trackedBuild(createOfflineTasks(), embedder, { runtime: 3, option: 1 }, (ctx, o) =>
 *   daRag.build(docs, ctx, o));
 * expect(seen.peak).toBe(1);
 * ```
 */
export async function trackedBuild(
  base: TaskSuite,
  embedder: Embedder,
  concurrency: { runtime: number; option?: number },
  build: (ctx: BuildContext, options: { concurrency?: number }) => Promise<unknown>,
): Promise<TaskTracking> {
  const { tasks, seen } = trackTasks(base);
  const ctx = createBuildContext({ embedder, tasks, runtime: { concurrency: concurrency.runtime } });
  await build(ctx, concurrency.option !== undefined ? { concurrency: concurrency.option } : {});
  return seen;
}

/**
 * Wrap `base` so that every task call is logged, by task name, in `calls` (in call order, before
 * the task runs), e.g. to check that a method calls only the tasks it declares
 * (`MethodCapabilities.tasks`). The wrapper keeps `base`'s id, judgement and declared versions;
 * clear the log with `calls.length = 0`.
 *
 * @example
 * ```ts
 * const { tasks, calls } = recordTasks(createOfflineTasks());
 * await method.build(docs, { ...ctx, tasks });
 * expect(new Set(calls)).toEqual(new Set(['extractGraph']));
 * ```
 */
export function recordTasks(base: TaskSuite): { tasks: TaskSuite; calls: TaskName[] } {
  const calls: TaskName[] = [];
  const tasks = sameSuite(base);
  for (const name of TASKS) {
    const task = base[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (typeof task !== 'function') continue; // a suite without the task stays without it
    const fn = task.bind(base);
    tasks[name] = (...args: unknown[]) => {
      calls.push(name);
      return fn(...args);
    };
  }
  return { tasks: tasks as unknown as TaskSuite, calls };
}
