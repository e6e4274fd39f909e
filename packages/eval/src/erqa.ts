/**
 * An SG-RAG-style exact-retrieval question generator (ERQA, SG-RAG §5.1 and appendix G): from a
 * knowledge graph, sample bridge-star subgraphs — a hidden answer entity with 3-6 constraint
 * neighbours and a distractor entity that shares a bridge neighbour with it — and render each as a
 * templated question with its gold answer set and constraints. Deterministic for a seed; no model.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from '@grag/core';
import { stringTable } from '@grag/core/kit';
import {
  entityDocId,
  type KgTriples,
  kgToDocuments,
  relationHeadType,
  relationPhrase,
} from './datasets/kg.js';
import type { EvalQuestion } from './datasets/types.js';
import { normalizeAnswer } from './normalize.js';
import { randomInt, seededRandom, shuffle } from './random.js';

/** One condition of a question: the answer is linked to `entity` by `relation`. */
export interface ErqaConstraint {
  relation: string;
  /** The relation's text in the dataset (relation2text), or its phrase when there is none. */
  relationText: string;
  entity: string;
  entityName: string;
  /** `'out'`: answer --relation--> entity (the answer is the head); `'in'`: entity --relation--> answer. */
  direction: 'out' | 'in';
  /** How the constraint reads in the question. */
  phrase: string;
  /** Whether the distractor satisfies this constraint too (a bridge). */
  bridge: boolean;
}

/** An ERQA question: an entity question whose gold set is every entity satisfying all constraints. */
export interface ErqaQuestion extends EvalQuestion {
  format: 'entity';
  entities: string[][];
  meta: {
    /** Ids of the gold entities (the hidden star first). */
    answerIds: string[];
    constraints: ErqaConstraint[];
    distractor: { id: string; name: string; satisfied: number; failed: number };
  };
}

/** Options of {@link generateErqa}. */
export interface ErqaOptions {
  /** Questions to generate. @default 200 */
  count: number;
  /** Seed of the sampler: the same seed and graph give the same questions. @default 1 */
  seed: number;
  /** Fewest constraints per question. @default 3 (the range; FB-ERQA averages 6.1, SG-RAG §5.1) */
  minConstraints: number;
  /** Most constraints per question. @default 6 */
  maxConstraints: number;
  /** Star nodes (answer, distractor) have at most this many distinct facts, so their pages stay readable. @default 150 */
  maxDegree: number;
  /** A bridge constraint is shared by at most this many entities, so the distractor is a near miss. @default 50 */
  maxBridgeFanout: number;
  /** Largest gold set allowed (1: the answer is unique). @default 1 */
  maxAnswers: number;
  /** Word used when the answer's type cannot be read off its relations. @default 'entity' */
  fallbackType: string;
}

/** Defaults of {@link ErqaOptions}. */
export const ERQA_DEFAULTS: ErqaOptions = {
  count: 200,
  seed: 1,
  minConstraints: 3,
  maxConstraints: 6,
  maxDegree: 150,
  maxBridgeFanout: 50,
  maxAnswers: 1,
  fallbackType: 'entity',
};

/** What {@link generateErqa} produced and why other samples were rejected. */
export interface ErqaResult {
  questions: ErqaQuestion[];
  /** Star nodes tried. */
  attempts: number;
  /** Rejected samples by reason (`no-bridge`, `distractor-satisfies-all`, `ambiguous`, ...). */
  rejected: Record<string, number>;
}

function lowerBound(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function listPhrases(phrases: string[]): string {
  if (phrases.length <= 1) return phrases.join('');
  if (phrases.length === 2) return `${phrases[0]} and ${phrases[1]}`;
  return `${phrases.slice(0, -1).join(', ')}, and ${phrases.at(-1)}`;
}

/**
 * Generate ERQA-style questions from a knowledge graph (SG-RAG §5.1, appendix G). For each
 * question a star node A (the hidden answer, at most `maxDegree` facts) is drawn, then a bridge:
 * one of A's (relation, neighbour) facts shared with at most `maxBridgeFanout` other entities, one
 * of which becomes the distractor D. The constraints are the bridge, one of A's facts that D lacks,
 * and further facts of A up to 3-6 in all; the gold set is every entity that satisfies all of them
 * (at most `maxAnswers`). The question is templated: "Which person has nationality X, is the film
 * of Y, and ...?". Each star node is used once; the same seed gives the same questions.
 */
export function generateErqa(kg: KgTriples, options: Partial<ErqaOptions> = {}): ErqaResult {
  const opts: ErqaOptions = { ...ERQA_DEFAULTS, ...options };
  if (!(opts.minConstraints >= 2 && opts.maxConstraints >= opts.minConstraints)) {
    throw new InvalidArgumentError(
      'minConstraints',
      `generateErqa: need 2 <= minConstraints <= maxConstraints, got ${opts.minConstraints} and ${opts.maxConstraints}.`,
    );
  }
  const ix = new ConstraintIndex(kg);
  const random = seededRandom(opts.seed);
  const candidates: number[] = [];
  for (let e = 0; e < ix.entityIds.length; e++) {
    const degree = (ix.entityKeys[e] as Int32Array).length;
    if (ix.named(e) && degree >= opts.minConstraints && degree <= opts.maxDegree) candidates.push(e);
  }
  shuffle(random, candidates);
  const rejected: Record<string, number> = {};
  const questions: ErqaQuestion[] = [];
  let attempts = 0;
  for (const answer of candidates) {
    if (questions.length >= opts.count) break;
    attempts++;
    const made = askAbout(ix, answer, random, opts, `erqa-${opts.seed}-${questions.length + 1}`);
    if (typeof made === 'string') rejected[made] = (rejected[made] ?? 0) + 1;
    else questions.push(made);
  }
  return { questions, attempts, rejected };
}

/**
 * The triples as constraints: a constraint key encodes (relation, direction, entity) as
 * `(relation * 2 + dir) * E + entity`, with the entities that satisfy it and, for every entity, the
 * keys it satisfies (sorted). Self-loops are left out.
 */
class ConstraintIndex {
  readonly entityIds: string[];
  readonly relationIds: string[];
  /** The keys each entity satisfies, ascending. */
  readonly entityKeys: Int32Array[];
  readonly #satisfiers = new Map<number, number[]>();
  readonly #entities: number;

  constructor(readonly kg: KgTriples) {
    const entities = stringTable();
    const relations = stringTable();
    this.entityIds = entities.strings;
    this.relationIds = relations.strings;
    const facts: number[] = [];
    for (const { head, relation, tail } of kg.triples) {
      if (head === tail) continue;
      facts.push(entities.ref(head), relations.ref(relation), entities.ref(tail));
    }
    const E = this.entityIds.length;
    this.#entities = E;
    const keyOf = (relation: number, dir: number, entity: number) => (relation * 2 + dir) * E + entity;
    const keysOfEntity: number[][] = Array.from({ length: E }, () => []);
    const addSat = (key: number, entity: number) => {
      let list = this.#satisfiers.get(key);
      if (!list) {
        list = [];
        this.#satisfiers.set(key, list);
      }
      list.push(entity);
      keysOfEntity[entity]?.push(key);
    };
    for (let i = 0; i < facts.length; i += 3) {
      const h = facts[i] as number;
      const r = facts[i + 1] as number;
      const t = facts[i + 2] as number;
      addSat(keyOf(r, 0, t), h); // h --r--> t: "h has r t"
      addSat(keyOf(r, 1, h), t); // t is the r of h
    }
    this.entityKeys = keysOfEntity.map((keys) => Int32Array.from(new Set(keys)).sort());
  }

  keyParts(key: number): { relation: number; dir: number; entity: number } {
    const entity = key % this.#entities;
    const rd = (key - entity) / this.#entities;
    return { relation: rd >> 1, dir: rd & 1, entity };
  }

  satisfies(entity: number, key: number): boolean {
    const keys = this.entityKeys[entity] as Int32Array;
    const at = lowerBound(keys, key);
    return at < keys.length && keys[at] === key;
  }

  /** The distinct entities that satisfy a key. */
  satisfierSet(key: number): number[] {
    return [...new Set(this.#satisfiers.get(key) ?? [])];
  }

  /** Whether the dataset names the entity. */
  named(entity: number): boolean {
    return this.kg.entities.has(this.entityIds[entity] as string);
  }

  nameOf(entity: number): string {
    return this.kg.entities.get(this.entityIds[entity] as string) ?? (this.entityIds[entity] as string);
  }
}

/**
 * A question whose answer is `answer`: a bridge constraint a distractor shares, a constraint that
 * tells the distractor apart, more constraints up to the target count (and beyond it while the
 * answer is ambiguous). Returns the reason when no question can be made about it.
 */
function askAbout(
  ix: ConstraintIndex,
  answer: number,
  random: () => number,
  opts: ErqaOptions,
  id: string,
): ErqaQuestion | string {
  // A's usable constraints: named neighbours, one constraint per neighbour entity.
  const byEntity = new Map<number, number>();
  for (const key of shuffle(random, [...(ix.entityKeys[answer] as Int32Array)])) {
    const { entity } = ix.keyParts(key);
    if (entity !== answer && ix.named(entity) && !byEntity.has(entity)) byEntity.set(entity, key);
  }
  const own = [...byEntity.values()];
  if (own.length < opts.minConstraints) {
    return 'too-few-named-neighbours';
  }
  const bridges = own.filter((key) => {
    const n = ix.satisfierSet(key).length;
    return n >= 2 && n - 1 <= opts.maxBridgeFanout;
  });
  if (bridges.length === 0) {
    return 'no-bridge';
  }
  const bridge = bridges[randomInt(random, 0, bridges.length - 1)] as number;
  const others = ix
    .satisfierSet(bridge)
    .filter((e) => e !== answer && ix.named(e) && (ix.entityKeys[e] as Int32Array).length <= opts.maxDegree);
  if (others.length === 0) {
    return 'no-distractor';
  }
  others.sort((a, b) => a - b);
  const distractor = others[randomInt(random, 0, others.length - 1)] as number;
  const distinguishing = own.filter(
    (key) => key !== bridge && !ix.satisfies(distractor, key) && ix.keyParts(key).entity !== distractor,
  );
  if (distinguishing.length === 0) {
    return 'distractor-satisfies-all';
  }
  const unique = distinguishing[randomInt(random, 0, distinguishing.length - 1)] as number;
  const rest = own.filter(
    (key) => key !== bridge && key !== unique && ix.keyParts(key).entity !== distractor,
  );
  const target = randomInt(random, opts.minConstraints, Math.min(opts.maxConstraints, 2 + rest.length));
  if (target < opts.minConstraints) {
    return 'too-few-named-neighbours';
  }
  const chosen = [bridge, unique, ...rest.slice(0, target - 2)];
  const spare = rest.slice(target - 2);
  const goldOf = (keys: number[]): number[] => {
    let smallest = ix.satisfierSet(keys[0] as number);
    for (const key of keys.slice(1)) {
      const set = ix.satisfierSet(key);
      if (set.length < smallest.length) smallest = set;
    }
    return smallest.filter((e) => keys.every((k) => ix.satisfies(e, k)));
  };
  let gold = goldOf(chosen);
  while (gold.length > opts.maxAnswers && chosen.length < opts.maxConstraints && spare.length > 0) {
    chosen.push(spare.shift() as number);
    gold = goldOf(chosen);
  }
  if (gold.length > opts.maxAnswers) {
    return 'ambiguous';
  }
  if (!gold.every((g) => ix.named(g))) {
    return 'unnamed-answer';
  }
  gold.sort((a, b) => (a === answer ? -1 : b === answer ? 1 : a - b));
  const typeCounts = new Map<string, number>();
  for (const key of ix.entityKeys[answer] as Int32Array) {
    const { relation, dir } = ix.keyParts(key);
    if (dir !== 0) continue;
    const type = relationHeadType(ix.relationIds[relation] as string);
    if (type) typeCounts.set(type, (typeCounts.get(type) ?? 0) + 1);
  }
  const type =
    [...typeCounts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ??
    opts.fallbackType;
  const constraints: ErqaConstraint[] = shuffle(random, [...chosen]).map((key) => {
    const { relation, dir, entity } = ix.keyParts(key);
    const relationId = ix.relationIds[relation] as string;
    const phrase = relationPhrase(relationId);
    const entityName = ix.nameOf(entity);
    return {
      relation: relationId,
      relationText: ix.kg.relations.get(relationId) ?? phrase,
      entity: ix.entityIds[entity] as string,
      entityName,
      direction: dir === 0 ? 'out' : 'in',
      phrase: dir === 0 ? `has ${phrase} ${entityName}` : `is the ${phrase} of ${entityName}`,
      bridge: ix.satisfies(distractor, key),
    };
  });
  const question = `Which ${type} ${listPhrases(constraints.map((c) => c.phrase))}?`;
  const normalizedQuestion = ` ${normalizeAnswer(question)} `;
  if (gold.some((g) => normalizedQuestion.includes(` ${normalizeAnswer(ix.nameOf(g))} `))) {
    return 'answer-named-in-question';
  }
  const satisfied = chosen.filter((key) => ix.satisfies(distractor, key)).length;
  return {
    id,
    question,
    answers: gold.map((g) => ix.nameOf(g)),
    supporting: gold.map((g) => entityDocId(ix.kg, ix.entityIds[g] as string)),
    type: `${constraints.length}-constraints`,
    format: 'entity',
    entities: gold.map((g) => [ix.nameOf(g)]),
    meta: {
      answerIds: gold.map((g) => ix.entityIds[g] as string),
      constraints,
      distractor: {
        id: ix.entityIds[distractor] as string,
        name: ix.nameOf(distractor),
        satisfied,
        failed: chosen.length - satisfied,
      },
    },
  };
}

/**
 * Write generated questions as a grag dataset directory (`corpus.jsonl` + `questions.jsonl`) that
 * `loadDataset` and `grag eval` read: the corpus holds one page per answer, distractor and
 * constraint entity (see `kgToDocuments`), a question's supporting passages are its answers' pages.
 */
export function writeErqaDataset(
  dir: string,
  kg: KgTriples,
  questions: readonly ErqaQuestion[],
  options: { maxFacts?: number } = {},
): { documents: number; questions: number } {
  const entities = new Set<string>();
  for (const q of questions) {
    for (const id of q.meta.answerIds) entities.add(id);
    entities.add(q.meta.distractor.id);
    for (const c of q.meta.constraints) entities.add(c.entity);
  }
  const docs = kgToDocuments(kg, { entities, maxFacts: options.maxFacts ?? 300 });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    docs.map((d) => JSON.stringify({ id: d.id, title: d.title, text: d.text })).join('\n') + '\n',
  );
  writeFileSync(join(dir, 'questions.jsonl'), questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
  return { documents: docs.length, questions: questions.length };
}
