/**
 * Long-document QA (one book-length document, multiple-choice and open questions), as NovelQA and
 * InfiniteBench's En.MC / En.QA used by E2GraphRAG.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import type { Document } from '@grag/core';
import { InputError } from '@grag/core';
import { normalizeAnswer } from '../normalize.js';
import { questionsFromRecords } from './qa.js';
import {
  asRecord,
  pathKind,
  readRecords,
  readText,
  type SourceRecord,
  stringField,
  stringListField,
  unique,
} from './read.js';
import type { EvalDataset, EvalQuestion, LoadOptions, SkippedRecord } from './types.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function optionList(value: unknown): string[] | undefined {
  if (Array.isArray(value)) {
    const list = value.filter((x) => typeof x === 'string' || typeof x === 'number').map(String);
    return list.length > 0 ? list : undefined;
  }
  const obj = asRecord(value);
  if (!obj) return undefined;
  const keys = Object.keys(obj).sort();
  const list = keys
    .map((k) => obj[k])
    .filter((x) => typeof x === 'string' || typeof x === 'number')
    .map(String);
  return list.length > 0 ? list : undefined;
}

function correctIndex(answers: readonly string[], options: readonly string[]): number {
  for (const a of answers) {
    const letter = /^\s*\(?([A-Z])\)?\s*$/.exec(a)?.[1];
    if (letter !== undefined && LETTERS.indexOf(letter) < options.length) return LETTERS.indexOf(letter);
    const n = normalizeAnswer(a);
    const i = options.findIndex((o) => n !== '' && normalizeAnswer(o) === n);
    if (i >= 0) return i;
  }
  return -1;
}

/**
 * Load an InfiniteBench file (`longbook_choice_eng.jsonl`, `longbook_qa_eng.jsonl`): each line
 * `{id, context, input, answer, options}` carries its whole book; books are deduplicated by content
 * into documents `<name>-book-<hash>`. Lines with options become multiple-choice questions (the
 * answer names the correct option's text), the others open questions.
 */
export function loadInfiniteBench(path: string, options: LoadOptions = {}): EvalDataset {
  const name = options.name ?? basename(path, extname(path));
  const skipped: SkippedRecord[] = [];
  const { records, skipped: bad } = readRecords(path, options);
  skipped.push(...bad);
  const corpus: Document[] = [];
  const bookOf = new Map<string, string>();
  const questions: EvalQuestion[] = [];
  for (const { value, line } of records) {
    const r = asRecord(value);
    const context = r && stringField(r, ['context']);
    const question = r && stringField(r, ['input', 'question']);
    if (!r || context === undefined || question === undefined) {
      skipped.push({ path, line, reason: 'needs "context" and "input" strings' });
      continue;
    }
    const hash = createHash('sha1').update(context).digest('hex').slice(0, 12);
    let docId = bookOf.get(hash);
    if (docId === undefined) {
      docId = `${name}-book-${hash}`;
      bookOf.set(hash, docId);
      corpus.push({ id: docId, title: `${name} book ${corpus.length + 1}`, text: context });
    }
    const id = stringField(r, ['id']) ?? `${name}-q${line}`;
    const answers = stringListField(r, ['answer', 'answers']) ?? [];
    if (answers.length === 0) {
      skipped.push({ path, line, reason: `question "${id}" has no gold answer` });
      continue;
    }
    const opts = optionList(r.options);
    const q: EvalQuestion = {
      id,
      question,
      answers: unique(answers),
      supporting: [],
      meta: { document: docId },
    };
    if (opts) {
      const correct = correctIndex(answers, opts);
      if (correct < 0) {
        skipped.push({
          path,
          line,
          reason: `question "${id}": the answer is none of its ${opts.length} options`,
        });
        continue;
      }
      q.options = opts;
      q.correctOption = correct;
      q.answers = unique([opts[correct] as string, ...answers]);
      q.format = 'multiple-choice';
    } else q.format = 'open';
    questions.push(q);
  }
  return { name, format: 'infinitebench', path, corpus, questions, skipped };
}

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(p, ext));
    else if (entry.name.toLowerCase().endsWith(ext)) out.push(p);
  }
  return out.sort();
}

/**
 * Load NovelQA's layout: `Books/**\/<book>.txt` and `Data/**\/<book>.json`, each data file a list
 * (or an object) of `{Question, Options: {A, B, C, D}, Answer, Aspect, Complexity}`; `Answer` is
 * the letter or the option text. Questions without an answer (NovelQA withholds its test answers)
 * are skipped and counted, as are data files with no matching book.
 */
export function loadNovelQa(dir: string, options: LoadOptions = {}): EvalDataset {
  const name = options.name ?? basename(dir);
  const skipped: SkippedRecord[] = [];
  const booksDir = join(dir, 'Books');
  const dataDir = join(dir, 'Data');
  if (pathKind(booksDir) !== 'dir' || pathKind(dataDir) !== 'dir') {
    throw new InputError(
      dir,
      `@grag/eval loadNovelQa: ${dir} needs Books/ and Data/ directories (NovelQA layout).`,
    );
  }
  const books = new Map<string, string>();
  for (const file of filesUnder(booksDir, '.txt')) books.set(basename(file, '.txt'), file);
  const corpus: Document[] = [];
  const questions: EvalQuestion[] = [];
  for (const file of filesUnder(dataDir, '.json')) {
    const bookId = basename(file, '.json');
    const bookFile = books.get(bookId);
    if (!bookFile) {
      skipped.push({ path: file, reason: `no book ${bookId}.txt under ${relative(dir, booksDir)}/` });
      continue;
    }
    corpus.push({ id: bookId, title: bookId, text: readText(bookFile, 'book') });
    const { records, skipped: bad } = readRecords(file, options);
    skipped.push(...bad);
    for (const { value, line } of records) {
      const r = asRecord(value);
      const question = r && stringField(r, ['Question', 'question']);
      const opts = r && optionList(r.Options ?? r.options);
      if (!r || question === undefined || !opts) {
        skipped.push({ path: file, line, reason: 'needs "Question" and "Options"' });
        continue;
      }
      const id = stringField(r, ['QID', 'qid', 'id']) ?? `${bookId}-${line}`;
      const answers = stringListField(r, ['Answer', 'answer', 'Gold']) ?? [];
      if (answers.length === 0) {
        skipped.push({
          path: file,
          line,
          reason: `question "${id}" has no answer (NovelQA withholds test answers)`,
        });
        continue;
      }
      const correct = correctIndex(answers, opts);
      if (correct < 0) {
        skipped.push({
          path: file,
          line,
          reason: `question "${id}": answer "${answers[0]}" is none of the options`,
        });
        continue;
      }
      const q: EvalQuestion = {
        id,
        question,
        answers: [opts[correct] as string],
        supporting: [],
        format: 'multiple-choice',
        options: opts,
        correctOption: correct,
        meta: { document: bookId },
      };
      const aspect = stringField(r, ['Aspect', 'aspect']);
      if (aspect !== undefined) q.type = aspect;
      const complexity = stringField(r, ['Complexity', 'complexity']);
      if (complexity !== undefined) (q.meta as Record<string, unknown>).complexity = complexity;
      questions.push(q);
    }
  }
  return { name, format: 'novelqa', path: dir, corpus, questions, skipped };
}

/** The book file of a single-book directory, if there is one. */
export function singleBookFile(dir: string): string | undefined {
  for (const file of ['book.txt', 'document.txt', 'book.md', 'document.md']) {
    if (pathKind(join(dir, file)) === 'file') return join(dir, file);
  }
  return undefined;
}

/**
 * Load a single-book directory: `book.txt` (or `document.txt`) and `questions.jsonl` with
 * `{id?, question, answer(s), options?, correct_option?}`; questions with options are
 * multiple-choice, the others open (scored with ROUGE-L) unless they declare a `format`.
 */
export function loadBookDataset(dir: string, options: LoadOptions = {}): EvalDataset {
  const name = options.name ?? basename(dir);
  const bookFile = singleBookFile(dir);
  if (!bookFile) {
    throw new InputError(dir, `@grag/eval loadBookDataset: ${dir} has no book.txt or document.txt.`);
  }
  const doc: Document = { id: `${name}-book`, title: name, text: readText(bookFile, 'book') };
  const skipped: SkippedRecord[] = [];
  const path = join(dir, 'questions.jsonl');
  const { records, skipped: bad } = readRecords(path, options);
  skipped.push(...bad);
  const questions = questionsFromRecords(records as SourceRecord[], path, [doc], name, skipped).map((q) => ({
    ...q,
    format: q.format ?? ('open' as const),
    meta: { ...q.meta, document: doc.id },
  }));
  return { name, format: 'book', path: dir, corpus: [doc], questions, skipped };
}
