/** Small helpers shared by benchmark scripts. */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Document } from '@grag/core';

export interface QaQuestion {
  id: string;
  question: string;
  answers: string[];
  supporting: string[];
  type?: string;
}

export interface QaDataset {
  name: string;
  corpus: Document[];
  questions: QaQuestion[];
}

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** Read one QA slice of ../shared/datasets (see its README): corpus.jsonl and questions.jsonl. */
export function loadQaDataset(root: string, name: string): QaDataset {
  const corpus = readJsonl<{ id: string; title: string; text: string }>(join(root, name, 'corpus.jsonl')).map(
    (p) => ({ id: p.id, title: p.title, text: p.text }),
  );
  const questions = readJsonl<QaQuestion>(join(root, name, 'questions.jsonl'));
  return { name, corpus, questions };
}

/** SQuAD answer normalization: lower case, no punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether the gold answer or an alias appears, normalized, in the context (KET-RAG §6.1 Coverage). */
export function covers(context: string, answers: string[]): boolean {
  const haystack = ` ${normalizeAnswer(context)} `;
  return answers.some((a) => {
    const needle = normalizeAnswer(a);
    return needle !== '' && haystack.includes(` ${needle} `);
  });
}

/** Fraction of `gold` ids found among the first `k` of `ranked`. */
export function recallAt(ranked: string[], gold: string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

/** What a results table names: machine and Node version. */
export function machine(): { cpu: string; cores: number; memoryGiB: number; node: string; platform: string } {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}
