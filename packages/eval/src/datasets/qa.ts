/**
 * Loaders of QA datasets over a passage corpus: the JSONL slices of the shared datasets and any user
 * corpus + questions file, with the field names each record may use. The per-question formats of
 * MuSiQue / HotpotQA / 2WikiMultihopQA are in `multihop.ts`.
 */
import { basename, extname, join } from 'node:path';
import type { Document } from '@grag/core';
import { normalizeAnswer } from '../normalize.js';
import {
  asRecord,
  passageId,
  readRecords,
  type SourceRecord,
  stringField,
  stringListField,
  unique,
} from './read.js';
import type { EvalDataset, EvalQuestion, LoadOptions, QuestionFormat, SkippedRecord } from './types.js';

const ID_FIELDS = ['id', '_id', 'doc_id', 'docid', 'passage_id', 'pid'];
export const TEXT_FIELDS = ['text', 'content', 'contents', 'body', 'passage', 'paragraph_text'];
export const TITLE_FIELDS = ['title', 'name'];
export const QUESTION_ID_FIELDS = ['id', '_id', 'qid', 'QID', 'question_id'];
export const QUESTION_FIELDS = ['question', 'query', 'input', 'Question'];
const ANSWER_FIELDS = ['answers', 'answer', 'gold', 'golds', 'gold_answers', 'Answer', 'output'];
export const ALIAS_FIELDS = ['answer_aliases', 'aliases'];
const SUPPORT_FIELDS = [
  'supporting',
  'supporting_ids',
  'supporting_passages',
  'gold_passages',
  'evidence_ids',
];
const OPTION_FIELDS = ['options', 'choices', 'Options'];
const CORRECT_FIELDS = ['correct_option', 'correctOption', 'answer_index', 'label'];
const FORMATS: ReadonlySet<string> = new Set(['short', 'multiple-choice', 'open', 'entity']);
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The records that are JSON objects with a string in one of `fields`, each with its line and that
 * string; the others are skipped and counted (`what` names the missing field in the reason).
 */
function* recordsWithText(
  records: readonly SourceRecord[],
  path: string,
  skipped: SkippedRecord[],
  fields: readonly string[],
  what: string,
): Generator<{ record: Record<string, unknown>; line: number; text: string }> {
  for (const { value, line } of records) {
    const record = asRecord(value);
    if (!record) {
      skipped.push({ path, line, reason: 'not a JSON object' });
      continue;
    }
    const text = stringField(record, fields);
    if (text === undefined) {
      skipped.push({ path, line, reason: `no ${what} (one of ${fields.map((f) => `"${f}"`).join(', ')})` });
      continue;
    }
    yield { record, line, text };
  }
}

/** Read corpus records (`{id?, title?, text}`) into documents, skipping and counting unusable ones. */
export function corpusFromRecords(
  records: readonly SourceRecord[],
  path: string,
  prefix: string,
  skipped: SkippedRecord[],
): Document[] {
  const docs: Document[] = [];
  const ids = new Set<string>();
  for (const { record, line, text } of recordsWithText(records, path, skipped, TEXT_FIELDS, 'text')) {
    const title = stringField(record, TITLE_FIELDS);
    const id = stringField(record, ID_FIELDS) ?? passageId(prefix, title ?? '', text);
    if (ids.has(id)) {
      skipped.push({ path, line, reason: `duplicate passage id "${id}"` });
      continue;
    }
    ids.add(id);
    docs.push(title === undefined ? { id, text } : { id, title, text });
  }
  return docs;
}

function optionsOf(record: Record<string, unknown>): string[] | undefined {
  for (const name of OPTION_FIELDS) {
    const v = record[name];
    if (Array.isArray(v)) {
      const list = v.filter((x) => typeof x === 'string' || typeof x === 'number').map(String);
      if (list.length > 0) return list;
    }
    const obj = asRecord(v);
    if (obj) {
      const keys = Object.keys(obj).sort();
      const list = keys.map((k) => obj[k]).filter((x) => typeof x === 'string' || typeof x === 'number');
      if (list.length > 0) return list.map(String);
    }
  }
  return undefined;
}

/** Index of the correct option: a numeric field, a letter answer, or an answer equal to an option's text. */
function correctOptionOf(
  record: Record<string, unknown>,
  options: readonly string[],
  answers: readonly string[],
): number {
  for (const name of CORRECT_FIELDS) {
    const v = record[name];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < options.length) return v;
  }
  for (const answer of answers) {
    const letter = /^\s*\(?([A-Z])\)?\s*$/.exec(answer)?.[1];
    if (letter !== undefined && LETTERS.indexOf(letter) < options.length) return LETTERS.indexOf(letter);
    const n = normalizeAnswer(answer);
    const i = options.findIndex((o) => normalizeAnswer(o) === n && n !== '');
    if (i >= 0) return i;
  }
  return -1;
}

/** Entities of an entity question: a list of names or a list of alias lists. */
function entitiesOf(value: unknown): string[][] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: string[][] = [];
  for (const item of value) {
    if (typeof item === 'string' && item.trim() !== '') out.push([item]);
    else if (Array.isArray(item)) {
      const names = item.filter((x): x is string => typeof x === 'string' && x.trim() !== '');
      if (names.length > 0) out.push(names);
    }
  }
  return out.length > 0 ? out : undefined;
}

const CONSUMED = new Set([
  ...QUESTION_ID_FIELDS,
  ...QUESTION_FIELDS,
  ...ANSWER_FIELDS,
  ...ALIAS_FIELDS,
  ...SUPPORT_FIELDS,
  ...OPTION_FIELDS,
  ...CORRECT_FIELDS,
  'supporting_titles',
  'type',
  'question_type',
  'format',
  'entities',
]);

/**
 * Read question records into the normalized shape. Supporting passages are given by id
 * (`supporting`, ...) or, failing that, by title (`supporting_titles`); a question that names a
 * passage the corpus does not have, has no question text, or no gold answer is skipped and counted.
 */
export function questionsFromRecords(
  records: readonly SourceRecord[],
  path: string,
  corpus: readonly Document[],
  prefix: string,
  skipped: SkippedRecord[],
): EvalQuestion[] {
  const ids = new Set(corpus.map((d) => d.id));
  const byTitle = new Map<string, string[]>();
  for (const d of corpus) {
    if (d.title === undefined) continue;
    const list = byTitle.get(d.title) ?? [];
    list.push(d.id);
    byTitle.set(d.title, list);
  }
  const questions: EvalQuestion[] = [];
  const seen = new Set<string>();
  const withText = recordsWithText(records, path, skipped, QUESTION_FIELDS, 'question text');
  for (const { record, line, text: question } of withText) {
    const id = stringField(record, QUESTION_ID_FIELDS) ?? `${prefix}-q${line}`;
    if (seen.has(id)) {
      skipped.push({ path, line, reason: `duplicate question id "${id}"` });
      continue;
    }
    let answers = unique([
      ...(stringListField(record, ANSWER_FIELDS) ?? []),
      ...(stringListField(record, ALIAS_FIELDS) ?? []),
    ]);
    const entities = entitiesOf(record.entities);
    const options = optionsOf(record);
    const declared =
      typeof record.format === 'string' && FORMATS.has(record.format)
        ? (record.format as QuestionFormat)
        : undefined;
    const q: EvalQuestion = { id, question, answers, supporting: [] };
    if (options) {
      const correct = correctOptionOf(record, options, answers);
      if (correct < 0) {
        skipped.push({
          path,
          line,
          reason: `question "${id}": the correct option is not among its ${options.length} options`,
        });
        continue;
      }
      answers = unique([
        options[correct] as string,
        ...answers.filter((a) => !/^\s*\(?[A-Z]\)?\s*$/.test(a)),
      ]);
      q.answers = answers;
      q.options = options;
      q.correctOption = correct;
      q.format = 'multiple-choice';
    } else if (declared) q.format = declared;
    if (entities) {
      q.entities = entities;
      q.format ??= 'entity';
      if (answers.length === 0) q.answers = unique(entities.flat());
    }
    if (q.answers.length === 0) {
      skipped.push({ path, line, reason: `question "${id}" has no gold answer` });
      continue;
    }
    const supportIds = stringListField(record, SUPPORT_FIELDS);
    const supportTitles = stringListField(record, ['supporting_titles']);
    let missing: string | undefined;
    if (supportIds && supportIds.length > 0) {
      missing = supportIds.find((s) => !ids.has(s));
      q.supporting = unique(supportIds);
    } else if (supportTitles && supportTitles.length > 0) {
      missing = supportTitles.find((t) => !byTitle.has(t));
      q.supporting = unique(supportTitles.flatMap((t) => byTitle.get(t) ?? []));
    }
    if (missing !== undefined) {
      skipped.push({
        path,
        line,
        reason: `question "${id}": supporting passage "${missing}" is not in the corpus`,
      });
      continue;
    }
    const type = stringField(record, ['type', 'question_type']);
    if (type !== undefined) q.type = type;
    const meta: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) if (!CONSUMED.has(k)) meta[k] = v;
    if (Object.keys(meta).length > 0) q.meta = meta;
    seen.add(id);
    questions.push(q);
  }
  return questions;
}

/** Paths of a user dataset: a corpus file and a questions file (JSONL, or JSON arrays). */
export interface UserDatasetPaths {
  corpus: string;
  questions: string;
}

/**
 * Load any corpus + questions pair. Corpus lines: `{id?, title?, text}` (`content`, `body`,
 * `passage` are read as text; a missing id becomes a content hash). Question lines:
 * `{id?, question, answers | answer, aliases?, supporting? | supporting_titles?, options?,
 * correct_option?, format?, entities?, type?}`; other fields go to `meta`.
 */
export function loadUserDataset(paths: UserDatasetPaths, options: LoadOptions = {}): EvalDataset {
  const name = options.name ?? basename(paths.corpus, extname(paths.corpus));
  const skipped: SkippedRecord[] = [];
  const c = readRecords(paths.corpus, options);
  skipped.push(...c.skipped);
  const corpus = corpusFromRecords(c.records, paths.corpus, name, skipped);
  const q = readRecords(paths.questions, options);
  skipped.push(...q.skipped);
  const questions = questionsFromRecords(q.records, paths.questions, corpus, name, skipped);
  return { name, format: 'user-jsonl', path: paths.questions, corpus, questions, skipped };
}

/** The documents of a corpus folder, read by loaders, and what they skipped. */
export interface FolderCorpus {
  documents: Document[];
  /** Files and records of the folder that were not read, each with its reason. */
  skipped?: readonly SkippedRecord[];
}

/**
 * A dataset directory whose corpus is a folder of files: `questions.jsonl` (read as
 * {@link loadUserDataset} reads questions) beside `corpus/` (PDF, Word, HTML, CSV, Markdown, …).
 * `@grag/eval` reads no file format itself: pass the folder's documents as a loader read them
 * (`grag eval` reads `corpus/` with the CLI's `readCorpus`, the loaders of `@grag/loaders`).
 * Questions name their supporting documents by those documents' ids (a file's path inside
 * `corpus/`, e.g. `reports/q3.pdf`) or by title (`supporting_titles`).
 */
export function loadFolderDataset(dir: string, corpus: FolderCorpus, options: LoadOptions = {}): EvalDataset {
  const name = options.name ?? basename(dir);
  const skipped: SkippedRecord[] = [...(corpus.skipped ?? [])];
  const path = join(dir, 'questions.jsonl');
  const q = readRecords(path, options);
  skipped.push(...q.skipped);
  const questions = questionsFromRecords(q.records, path, corpus.documents, name, skipped);
  return { name, format: 'corpus-folder', path: dir, corpus: corpus.documents, questions, skipped };
}

/**
 * Load a dataset directory in grag's JSONL layout (the shared slices): `corpus.jsonl`
 * (`{id, title, text}`) and `questions.jsonl` (`{id, question, answers, supporting, type, ...}`).
 */
export function loadGragDataset(dir: string, options: LoadOptions = {}): EvalDataset {
  const name = options.name ?? basename(dir);
  const data = loadUserDataset(
    { corpus: join(dir, 'corpus.jsonl'), questions: join(dir, 'questions.jsonl') },
    { ...options, name },
  );
  return { ...data, format: 'grag-jsonl', path: dir };
}

/**
 * Read one QA slice of the shared datasets by root and name (`loadQaDataset('../shared/datasets',
 * 'musique')`), as the benchmark scripts do. Same as {@link loadGragDataset} on `root/name`.
 */
export function loadQaDataset(
  root: string,
  name: string,
  options: Omit<LoadOptions, 'name'> = {},
): EvalDataset {
  return loadGragDataset(join(root, name), { ...options, name });
}
