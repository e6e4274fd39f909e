import type { Document } from '@grag/core';

/**
 * How a question is answered and scored: `'short'` (EM / F1, e.g. MuSiQue), `'multiple-choice'`
 * (accuracy), `'open'` (ROUGE-L, e.g. InfiniteBench En.QA), `'entity'` (Hit@1 / P / R / F1 over
 * entity names, e.g. ERQA).
 */
export type QuestionFormat = 'short' | 'multiple-choice' | 'open' | 'entity';

/** One question in the normalized shape every loader returns. */
export interface EvalQuestion {
  id: string;
  question: string;
  /** Acceptable answers: the gold answer first, then its aliases. Empty when there is no gold text. */
  answers: string[];
  /** Ids (in the corpus) of the supporting / gold passages; empty when unknown. */
  supporting: string[];
  /** Question type of the source dataset (`2hop`, `bridge`, `comparison`, ...). */
  type?: string;
  /** How the question is scored. @default 'short' */
  format?: QuestionFormat;
  /** Options of a multiple-choice question, in order (A, B, C, ...). */
  options?: string[];
  /** Index in `options` of the correct one. */
  correctOption?: number;
  /** Gold entities of an entity question, each as its acceptable names. */
  entities?: string[][];
  /** Anything else the source carries (decomposition, constraints, ...). */
  meta?: Record<string, unknown>;
}

/** A record a loader could not use, with where it was and why. */
export interface SkippedRecord {
  path: string;
  /** 1-based line (JSONL / TSV) or 1-based position in a JSON array. */
  line?: number;
  reason: string;
}

/** A QA dataset: a corpus (passages or whole documents) and questions over it. */
export interface EvalDataset {
  name: string;
  /** The format it was read from (`'grag-jsonl'`, `'musique'`, `'hotpotqa'`, `'infinitebench'`, ...). */
  format: string;
  /** Where it was read from. */
  path?: string;
  corpus: Document[];
  questions: EvalQuestion[];
  /** Records that were skipped, each with its reason. */
  skipped: SkippedRecord[];
}

/** Options every file loader takes. */
export interface LoadOptions {
  /** Dataset name (passage id prefix, report label). @default the file or directory name */
  name?: string;
  /**
   * What to do with a line that is not valid JSON (or a TSV line with the wrong number of fields):
   * `'throw'` an `InputError` naming the file and line, or `'skip'` it and count it in `skipped`.
   * Records that parse but miss a required field are always skipped and counted. @default 'throw'
   */
  malformed?: 'throw' | 'skip';
}

/** Kept for the benchmark scripts: a question of a multi-hop QA slice. */
export type QaQuestion = EvalQuestion;
/** Kept for the benchmark scripts: a multi-hop QA slice. */
export type QaDataset = EvalDataset;
