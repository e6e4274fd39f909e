import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ErqaQuestion,
  generateErqa,
  type KgTriple,
  type KgTriples,
  loadDataset,
  normalizeAnswer,
  seededRandom,
  writeErqaDataset,
} from '../src/index.js';

/** A small hand-made film graph. */
function handMadeGraph(): KgTriples {
  const names: Record<string, string> = {
    '/m/kfp': 'Kung Fu Panda',
    '/m/httyd': 'How to Train Your Dragon',
    '/m/shrek': 'Shrek',
    '/m/madagascar': 'Madagascar',
    '/m/black': 'Jack Black',
    '/m/zimmer': 'Hans Zimmer',
    '/m/powell': 'John Powell',
    '/m/myers': 'Mike Myers',
    '/m/stiller': 'Ben Stiller',
    '/m/anim': 'Animation',
    '/m/comedy': 'Comedy',
    '/m/action': 'Action Film',
    '/m/dw': 'DreamWorks Animation',
  };
  const genre = '/film/film/genre';
  const music = '/film/film/music';
  const studio = '/film/film/production_companies';
  const actor = '/film/actor/film./film/performance/film';
  const t = (head: string, relation: string, tail: string): KgTriple => ({ head, relation, tail });
  const triples = [
    t('/m/kfp', genre, '/m/anim'),
    t('/m/kfp', genre, '/m/comedy'),
    t('/m/kfp', genre, '/m/action'),
    t('/m/kfp', music, '/m/zimmer'),
    t('/m/kfp', music, '/m/powell'),
    t('/m/kfp', studio, '/m/dw'),
    t('/m/black', actor, '/m/kfp'),
    t('/m/httyd', genre, '/m/anim'),
    t('/m/httyd', genre, '/m/action'),
    t('/m/httyd', music, '/m/powell'),
    t('/m/httyd', studio, '/m/dw'),
    t('/m/shrek', genre, '/m/anim'),
    t('/m/shrek', genre, '/m/comedy'),
    t('/m/shrek', music, '/m/powell'),
    t('/m/shrek', studio, '/m/dw'),
    t('/m/myers', actor, '/m/shrek'),
    t('/m/madagascar', genre, '/m/anim'),
    t('/m/madagascar', genre, '/m/comedy'),
    t('/m/madagascar', music, '/m/zimmer'),
    t('/m/madagascar', studio, '/m/dw'),
    t('/m/stiller', actor, '/m/madagascar'),
  ];
  return {
    name: 'films',
    entities: new Map(Object.entries(names)),
    relations: new Map([[genre, 'film film genre']]),
    triples,
    skipped: [],
  };
}

/** A seeded synthetic graph: 80 named entities, 6 relations, about 10 facts each. */
function syntheticGraph(): KgTriples {
  const random = seededRandom(42);
  const relations = [
    '/people/person/nationality',
    '/film/film/genre',
    '/music/artist/origin',
    '/award/award_winner/awards_won./award/award_honor/award_winner',
    '/location/location/contains',
    '/film/actor/film./film/performance/film',
  ];
  const entities = new Map<string, string>();
  for (let i = 0; i < 80; i++)
    entities.set(`/m/e${i}`, `Entity ${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26)} Name`);
  const triples: KgTriple[] = [];
  for (let i = 0; i < 800; i++) {
    const h = Math.floor(random() * 80);
    const tl = Math.floor(random() * 80);
    triples.push({
      head: `/m/e${h}`,
      relation: relations[Math.floor(random() * relations.length)] as string,
      tail: `/m/e${tl}`,
    });
  }
  return { name: 'synthetic', entities, relations: new Map(), triples, skipped: [] };
}

/** Brute-force oracle: does `entity` satisfy the constraint in the graph? */
function satisfies(kg: KgTriples, entity: string, c: ErqaQuestion['meta']['constraints'][number]): boolean {
  return kg.triples.some((t) =>
    c.direction === 'out'
      ? t.head === entity && t.relation === c.relation && t.tail === c.entity
      : t.tail === entity && t.relation === c.relation && t.head === c.entity,
  );
}

function checkQuestions(kg: KgTriples, questions: ErqaQuestion[], min: number, max: number): void {
  const all = new Set(kg.triples.flatMap((t) => [t.head, t.tail]));
  for (const q of questions) {
    const { constraints, answerIds, distractor } = q.meta;
    expect(constraints.length).toBeGreaterThanOrEqual(min);
    expect(constraints.length).toBeLessThanOrEqual(max);
    // every gold answer satisfies every constraint ...
    for (const a of answerIds) for (const c of constraints) expect(satisfies(kg, a, c)).toBe(true);
    // ... and the gold set is exactly the entities that do
    const oracle = [...all].filter((e) => constraints.every((c) => satisfies(kg, e, c))).sort();
    expect([...answerIds].sort()).toEqual(oracle);
    // the distractor shares a bridge and fails at least one constraint
    const held = constraints.filter((c) => satisfies(kg, distractor.id, c));
    expect(held.length).toBeGreaterThanOrEqual(1);
    expect(held.length).toBeLessThan(constraints.length);
    expect(held.length).toBe(distractor.satisfied);
    expect(constraints.filter((c) => c.bridge).map((c) => c.entity)).toEqual(held.map((c) => c.entity));
    expect(answerIds).not.toContain(distractor.id);
    // the question is templated from the constraints and does not name the answer
    expect(q.question).toMatch(/^Which [a-z ]+ .+\?$/);
    for (const c of constraints) expect(q.question).toContain(c.phrase);
    for (const name of q.answers)
      expect(` ${normalizeAnswer(q.question)} `).not.toContain(` ${normalizeAnswer(name)} `);
    expect(q.format).toBe('entity');
    expect(q.entities).toEqual(q.answers.map((a) => [a]));
  }
}

describe('generateErqa (SG-RAG §5.1, appendix G)', () => {
  it('builds bridge-star questions on a hand-made graph whose answers satisfy every constraint', () => {
    const kg = handMadeGraph();
    const { questions, attempts } = generateErqa(kg, {
      count: 10,
      seed: 7,
      minConstraints: 3,
      maxConstraints: 6,
    });
    expect(questions.length).toBeGreaterThan(0);
    expect(attempts).toBeGreaterThanOrEqual(questions.length);
    checkQuestions(kg, questions, 3, 6);
    // Recorded for seed 7: five star nodes, each answer unique; Kung Fu Panda's twin is HTTYD (same studio, composer).
    expect(questions.map((q) => [q.answers[0], q.meta.distractor.name])).toEqual([
      ['Shrek', 'How to Train Your Dragon'],
      ['Animation', 'Action Film'],
      ['John Powell', 'Hans Zimmer'],
      ['Madagascar', 'Kung Fu Panda'],
      ['Kung Fu Panda', 'How to Train Your Dragon'],
    ]);
  });

  it('holds the same properties on a larger seeded graph, within the constraint range', () => {
    const kg = syntheticGraph();
    const { questions } = generateErqa(kg, { count: 40, seed: 3, minConstraints: 3, maxConstraints: 5 });
    expect(questions.length).toBeGreaterThanOrEqual(20);
    checkQuestions(kg, questions, 3, 5);
    // each star node is used once
    expect(new Set(questions.map((q) => q.meta.answerIds[0])).size).toBe(questions.length);
  });

  it('is deterministic for a seed and varies with it', () => {
    const kg = syntheticGraph();
    const a = generateErqa(kg, { count: 10, seed: 5 });
    const b = generateErqa(kg, { count: 10, seed: 5 });
    const c = generateErqa(kg, { count: 10, seed: 6 });
    expect(a.questions).toEqual(b.questions);
    expect(a.questions.map((q) => q.question)).not.toEqual(c.questions.map((q) => q.question));
  });

  it('reads relation text and types the question from the answer relations', () => {
    const kg = handMadeGraph();
    const { questions } = generateErqa(kg, { count: 10, seed: 7 });
    const constraints = questions.flatMap((q) => q.meta.constraints);
    const genre = constraints.filter((c) => c.relation === '/film/film/genre');
    expect(genre.length).toBeGreaterThan(0);
    for (const c of genre) expect(c.relationText).toBe('film film genre');
    const music = constraints.find((c) => c.relation === '/film/film/music');
    expect(music?.relationText).toBe('music');
    // films are heads of /film/film/* relations; genres and composers only appear as tails
    expect(questions.map((q) => q.question.split(' ')[1])).toEqual([
      'film',
      'entity',
      'entity',
      'film',
      'film',
    ]);
  });

  it('rejects a constraint range below two', () => {
    expect(() => generateErqa(handMadeGraph(), { minConstraints: 1 })).toThrowError(/minConstraints/);
  });

  it('writes a dataset that loads back with answer pages as supporting passages', () => {
    const kg = syntheticGraph();
    const { questions } = generateErqa(kg, { count: 5, seed: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'grag-erqa-'));
    const written = writeErqaDataset(dir, kg, questions);
    const data = loadDataset(dir);
    expect(data.skipped).toEqual([]);
    expect(data.questions).toHaveLength(written.questions);
    expect(data.corpus).toHaveLength(written.documents);
    for (const [i, q] of data.questions.entries()) {
      const original = questions[i] as ErqaQuestion;
      expect(q.format).toBe('entity');
      expect(q.entities).toEqual(original.entities);
      const page = data.corpus.find((d) => d.id === q.supporting[0]);
      expect(page?.title).toBe(original.answers[0]);
      // the answer's page states every constraint fact
      for (const c of original.meta.constraints) expect(page?.text).toContain(c.entityName);
    }
  });
});
