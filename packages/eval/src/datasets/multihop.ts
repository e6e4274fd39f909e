/**
 * The per-question formats of MuSiQue, HotpotQA and 2WikiMultihopQA (official and HippoRAG files):
 * each question carries its paragraphs, which become one deduplicated passage corpus.
 */
import { basename, join } from 'node:path';
import type { Document } from '@grag/core';
import { ALIAS_FIELDS, QUESTION_FIELDS, QUESTION_ID_FIELDS, TEXT_FIELDS, TITLE_FIELDS } from './qa.js';
import { asRecord, passageId, pathKind, readRecords, stringField, stringListField, unique } from './read.js';
import type { EvalDataset, EvalQuestion, LoadOptions, SkippedRecord } from './types.js';

interface Paragraph {
  title: string;
  text: string;
  supporting: boolean;
}

/** Paragraphs of a HotpotQA / 2Wiki `context` (`[[title, [sentences]]]` or the Hugging Face column layout). */
function hotpotParagraphs(record: Record<string, unknown>): Paragraph[] | undefined {
  const supportTitles = new Set<string>();
  const facts = record.supporting_facts;
  if (Array.isArray(facts)) {
    for (const f of facts) if (Array.isArray(f) && typeof f[0] === 'string') supportTitles.add(f[0]);
  } else {
    const cols = asRecord(facts);
    if (cols && Array.isArray(cols.title))
      for (const t of cols.title) if (typeof t === 'string') supportTitles.add(t);
  }
  const join = (sentences: unknown): string =>
    Array.isArray(sentences)
      ? sentences.filter((s) => typeof s === 'string').join('')
      : String(sentences ?? '');
  const context = record.context;
  const out: Paragraph[] = [];
  if (Array.isArray(context)) {
    for (const entry of context) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string') return undefined;
      out.push({ title: entry[0], text: join(entry[1]), supporting: supportTitles.has(entry[0]) });
    }
    return out;
  }
  const cols = asRecord(context);
  if (cols && Array.isArray(cols.title) && Array.isArray(cols.sentences)) {
    cols.title.forEach((t, i) => {
      if (typeof t === 'string')
        out.push({
          title: t,
          text: join((cols.sentences as unknown[])[i]),
          supporting: supportTitles.has(t),
        });
    });
    return out;
  }
  return undefined;
}

/** Paragraphs of a MuSiQue record (`paragraphs[{idx, title, paragraph_text, is_supporting}]`). */
function musiqueParagraphs(record: Record<string, unknown>): Paragraph[] | undefined {
  if (!Array.isArray(record.paragraphs)) return undefined;
  const out: Paragraph[] = [];
  for (const p of record.paragraphs) {
    const r = asRecord(p);
    if (!r) return undefined;
    out.push({
      title: typeof r.title === 'string' ? r.title : '',
      text:
        typeof r.paragraph_text === 'string' ? r.paragraph_text : typeof r.text === 'string' ? r.text : '',
      supporting: r.is_supporting === true,
    });
  }
  return out;
}

/** Options of {@link loadMultihopQa}. */
export interface MultihopLoadOptions extends LoadOptions {
  /**
   * A HippoRAG corpus file (`<name>_corpus.json`: `[{title, text}]`) to index instead of the union
   * of the questions' own paragraphs. @default the sibling `<stem>_corpus.json` when it exists
   */
  corpus?: string | false;
}

/**
 * Load MuSiQue, HotpotQA or 2WikiMultihopQA in their official per-question formats (MuSiQue-Ans
 * JSONL with `paragraphs`; HotpotQA / 2Wiki JSON with `context` and `supporting_facts`, also in the
 * Hugging Face column layout) and HippoRAG's copies of them (`musique.json` + `musique_corpus.json`).
 * Passage ids are content hashes as in the shared slices, so the same passage gets the same id.
 * Supporting passages: MuSiQue's `is_supporting` paragraphs; HotpotQA / 2Wiki's supporting-fact
 * titles. Unanswerable MuSiQue questions are skipped and counted.
 */
export function loadMultihopQa(path: string, options: MultihopLoadOptions = {}): EvalDataset {
  const stem = basename(path).replace(/\.(jsonl?|json)$/i, '');
  const name = options.name ?? stem;
  const skipped: SkippedRecord[] = [];
  const { records, skipped: bad } = readRecords(path, options);
  skipped.push(...bad);
  const corpusPath =
    options.corpus === false
      ? undefined
      : (options.corpus ??
        (() => {
          const sibling = join(path, '..', `${stem}_corpus.json`);
          return pathKind(sibling) === 'file' ? sibling : undefined;
        })());
  const corpus: Document[] = [];
  const corpusIds = new Set<string>();
  const idsByTitle = new Map<string, string[]>();
  const addPassage = (title: string, text: string): string => {
    const id = passageId(name, title, text);
    if (!corpusIds.has(id)) {
      corpusIds.add(id);
      corpus.push({ id, title, text });
      const list = idsByTitle.get(title) ?? [];
      list.push(id);
      idsByTitle.set(title, list);
    }
    return id;
  };
  if (corpusPath) {
    const c = readRecords(corpusPath, options);
    skipped.push(...c.skipped);
    for (const { value, line } of c.records) {
      const r = asRecord(value);
      const text = r && stringField(r, TEXT_FIELDS);
      if (!r || text === undefined) {
        skipped.push({ path: corpusPath, line, reason: 'corpus record without "text"' });
        continue;
      }
      addPassage(stringField(r, TITLE_FIELDS) ?? '', text);
    }
  }
  let format = 'multihop';
  const questions: EvalQuestion[] = [];
  for (const { value, line } of records) {
    const r = asRecord(value);
    if (!r) {
      skipped.push({ path, line, reason: 'not a JSON object' });
      continue;
    }
    const musique = musiqueParagraphs(r);
    const paragraphs = musique ?? hotpotParagraphs(r);
    if (!paragraphs) {
      skipped.push({ path, line, reason: 'neither MuSiQue "paragraphs" nor HotpotQA/2Wiki "context"' });
      continue;
    }
    format = musique ? 'musique' : Array.isArray(r.evidences) ? '2wikimultihopqa' : 'hotpotqa';
    const id = stringField(r, QUESTION_ID_FIELDS) ?? `${name}-q${line}`;
    const question = stringField(r, QUESTION_FIELDS);
    if (question === undefined) {
      skipped.push({ path, line, reason: `question "${id}" has no question text` });
      continue;
    }
    if (r.answerable === false) {
      skipped.push({ path, line, reason: `question "${id}" is marked unanswerable` });
      continue;
    }
    const answers = unique([
      ...(stringListField(r, ['answer', 'answers']) ?? []),
      ...(stringListField(r, ALIAS_FIELDS) ?? []),
    ]);
    if (answers.length === 0) {
      skipped.push({ path, line, reason: `question "${id}" has no gold answer` });
      continue;
    }
    const context: string[] = [];
    const supporting: string[] = [];
    let missing: string | undefined;
    for (const p of paragraphs) {
      let pid: string;
      if (corpusPath) {
        const hashed = passageId(name, p.title, p.text);
        const byTitle = idsByTitle.get(p.title);
        const found = corpusIds.has(hashed) ? hashed : byTitle?.length === 1 ? byTitle[0] : undefined;
        if (found === undefined) {
          if (p.supporting) missing = p.title;
          continue;
        }
        pid = found;
      } else pid = addPassage(p.title, p.text);
      context.push(pid);
      if (p.supporting) supporting.push(pid);
    }
    if (missing !== undefined) {
      skipped.push({
        path,
        line,
        reason: `question "${id}": supporting passage "${missing}" is not in ${corpusPath}`,
      });
      continue;
    }
    const q: EvalQuestion = { id, question, answers, supporting: unique(supporting) };
    const type = stringField(r, ['type']) ?? (musique ? /^(\d+hop\d*)__/.exec(id)?.[1] : undefined);
    if (type !== undefined) q.type = type;
    const meta: Record<string, unknown> = { context };
    if (r.question_decomposition !== undefined) meta.decomposition = r.question_decomposition;
    if (r.evidences !== undefined) meta.evidences = r.evidences;
    if (r.level !== undefined) meta.level = r.level;
    q.meta = meta;
    questions.push(q);
  }
  return { name, format, path, corpus, questions, skipped };
}
