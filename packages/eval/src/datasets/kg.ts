/** Knowledge-graph triples (FB15k-237 with entity2text / relation2text) and entity pages built from them. */
import { basename, join } from 'node:path';
import type { Document } from '@grag/core';
import { InputError } from '@grag/core';
import { pathKind, readText } from './read.js';
import type { LoadOptions, SkippedRecord } from './types.js';

/** One fact `head --relation--> tail`. */
export interface KgTriple {
  head: string;
  relation: string;
  tail: string;
}

/** Triples with the display names of their entities and relations. */
export interface KgTriples {
  name: string;
  /** Entity id → display name (entities without a name are absent). */
  entities: Map<string, string>;
  /** Relation id → text. */
  relations: Map<string, string>;
  triples: KgTriple[];
  skipped: SkippedRecord[];
}

/** Options of {@link loadKgTriples}. */
export interface KgLoadOptions extends LoadOptions {
  /** Triple file names tried in order. @default ['train.tsv', 'train.txt'] */
  tripleFiles?: string[];
}

function readTsv(
  path: string,
  fields: number,
  options: LoadOptions,
  skipped: SkippedRecord[],
  each: (parts: string[]) => void,
): void {
  const text = readText(path);
  let start = 0;
  let line = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const raw = text.slice(start, end).replace(/\r$/, '');
    start = end + 1;
    if (raw.trim() === '') continue;
    const parts = raw.split('\t');
    if (parts.length < fields || parts.slice(0, fields).some((p) => p.trim() === '')) {
      const reason = `expected ${fields} tab-separated fields, got ${parts.length}`;
      if (options.malformed === 'skip') {
        skipped.push({ path, line, reason });
        continue;
      }
      throw new InputError(
        path,
        `@grag/eval: ${path}:${line}: ${reason}. Fix or remove the line, or load with malformed: 'skip'.`,
      );
    }
    each(parts);
  }
}

/**
 * Load a knowledge graph in the FB15k-237 / KG-BERT layout: `train.tsv` (`head<TAB>relation<TAB>tail`),
 * `entity2text.txt` (`id<TAB>name`) and `relation2text.txt` (`id<TAB>text`); the two text files are
 * optional. A line with too few fields throws an `InputError` naming the file and line (or is
 * skipped and counted with `malformed: 'skip'`).
 */
export function loadKgTriples(dir: string, options: KgLoadOptions = {}): KgTriples {
  if (pathKind(dir) !== 'dir')
    throw new InputError(dir, `@grag/eval loadKgTriples: ${dir} is not a directory.`);
  const files = options.tripleFiles ?? ['train.tsv', 'train.txt'];
  const tripleFile = files.map((f) => join(dir, f)).find((p) => pathKind(p) === 'file');
  if (!tripleFile) {
    throw new InputError(dir, `@grag/eval loadKgTriples: ${dir} has none of ${files.join(', ')}.`);
  }
  const skipped: SkippedRecord[] = [];
  const entities = new Map<string, string>();
  const relations = new Map<string, string>();
  const entityFile = join(dir, 'entity2text.txt');
  if (pathKind(entityFile) === 'file')
    readTsv(entityFile, 2, options, skipped, ([id, name]) => {
      entities.set(id as string, (name as string).trim());
    });
  const relationFile = join(dir, 'relation2text.txt');
  if (pathKind(relationFile) === 'file')
    readTsv(relationFile, 2, options, skipped, ([id, text]) => {
      relations.set(id as string, (text as string).trim());
    });
  const triples: KgTriple[] = [];
  readTsv(tripleFile, 3, options, skipped, ([head, relation, tail]) => {
    triples.push({ head: head as string, relation: relation as string, tail: tail as string });
  });
  return { name: options.name ?? basename(dir), entities, relations, triples, skipped };
}

/**
 * A short phrase for a Freebase-style relation id, from its property names:
 * `/people/person/nationality` → `nationality`; `/film/actor/film./film/performance/film` → `film`;
 * other ids are returned with `_` and `/` read as spaces.
 */
export function relationPhrase(relation: string): string {
  const words: string[] = [];
  for (const part of relation.split('./')) {
    const segments = part.split('/').filter((s) => s !== '');
    const last = segments.at(-1);
    if (last === undefined) continue;
    const phrase = last.replace(/_/g, ' ');
    if (words.at(-1) !== phrase) words.push(phrase);
  }
  return words.length > 0 ? words.join(' ') : relation;
}

/** The type a Freebase relation gives its head (`/people/person/nationality` → `person`), if any. */
export function relationHeadType(relation: string): string | undefined {
  const segments =
    relation
      .split('./')[0]
      ?.split('/')
      .filter((s) => s !== '') ?? [];
  return segments.length >= 3 ? segments[1]?.replace(/_/g, ' ') : undefined;
}

/** Document id of an entity's page: `<kg name>-<id>` with `/` read as `.` (`/m/06rf7` → `fb15k237-m.06rf7`). */
export function entityDocId(kg: Pick<KgTriples, 'name'>, entity: string): string {
  return `${kg.name}-${entity.replace(/^\//, '').replace(/\//g, '.')}`;
}

/** Options of {@link kgToDocuments}. */
export interface KgDocumentOptions {
  /** Entities to write a page for. @default every named entity */
  entities?: Iterable<string>;
  /** Most facts per page (the first ones in triple order). @default 300 */
  maxFacts?: number;
}

/**
 * One document per entity listing its facts as sentences (`Jeremy Irons — nationality — United
 * Kingdom.`), so a knowledge graph can be indexed as a text corpus. Facts with unnamed entities
 * are left out.
 */
export function kgToDocuments(kg: KgTriples, options: KgDocumentOptions = {}): Document[] {
  const maxFacts = options.maxFacts ?? 300;
  const wanted = options.entities ? new Set(options.entities) : undefined;
  const facts = new Map<string, string[]>();
  const add = (entity: string, fact: string) => {
    if (wanted && !wanted.has(entity)) return;
    let list = facts.get(entity);
    if (!list) {
      list = [];
      facts.set(entity, list);
    }
    if (list.length < maxFacts) list.push(fact);
  };
  for (const { head, relation, tail } of kg.triples) {
    const h = kg.entities.get(head);
    const t = kg.entities.get(tail);
    if (h === undefined || t === undefined) continue;
    const fact = `${h} — ${relationPhrase(relation)} — ${t}.`;
    add(head, fact);
    if (tail !== head) add(tail, fact);
  }
  const order = wanted ? [...wanted] : [...kg.entities.keys()];
  const docs: Document[] = [];
  for (const entity of order) {
    const list = facts.get(entity);
    const name = kg.entities.get(entity);
    if (!list || name === undefined) continue;
    docs.push({ id: entityDocId(kg, entity), title: name, text: list.join('\n'), meta: { entity } });
  }
  return docs;
}
