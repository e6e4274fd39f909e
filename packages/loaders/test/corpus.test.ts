import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Document } from '@grag/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFile } from '../src/index.js';
import { type MixedCorpusFacts, writeMixedCorpus } from './corpus.js';
import { expectWellFormed, locationsOf } from './helpers.js';

describe('writeMixedCorpus', () => {
  let dir: string;
  let corpus: MixedCorpusFacts;
  const docs: Document[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'grag-loaders-corpus-'));
    corpus = await writeMixedCorpus(dir);
    for (const file of corpus.files) {
      const { documents, skipped } = await loadFile({ path: file, bytes: await readFile(join(dir, file)) });
      expect(skipped).toEqual([]);
      docs.push(...documents);
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes a PDF, an HTML page, a Word file, a CSV, a JSON file and a Markdown file that all load', () => {
    expect(corpus.files.map((f) => f.slice(f.lastIndexOf('.'))).sort()).toEqual(
      ['.csv', '.docx', '.html', '.json', '.md', '.pdf'].sort(),
    );
    for (const doc of docs) expectWellFormed(doc, doc.segments![0]!.location.path);
    expect(docs.find((d) => d.id === 'harbour-report.pdf')!.segments).toHaveLength(4);
  });

  it('states each fact once, as one sentence, at exactly its expected location', () => {
    expect(corpus.facts.map((f) => f.format)).toEqual(['pdf', 'docx', 'csv', 'html']);
    expect(corpus.facts.map((f) => f.location)).toEqual([
      { path: 'harbour-report.pdf', page: 3 },
      { path: 'shipyard-review.docx', section: ['Kessler Shipyard', 'Welding school'] },
      { path: 'ferries.csv', row: 7 },
      { path: 'concert-hall.html', section: ['The Merrow Falls Concert Hall', 'The organ'] },
    ]);
    for (const fact of corpus.facts) {
      expect(fact.sentence).toContain(fact.answer);
      expect(docs.flatMap((d) => locationsOf(d, fact.sentence))).toEqual([fact.location]);
      // The answer is named in that one place only.
      expect(docs.flatMap((d) => locationsOf(d, fact.answer))).toEqual([fact.location]);
    }
  });

  it("keeps the HTML page's navigation and footer out of the loaded text", () => {
    const html = docs.find((d) => d.id === 'concert-hall.html')!;
    for (const gone of [
      'Ferry timetable',
      'Where to stay',
      'tourist office',
      'Copyright',
      'waterfall viewpoint',
    ])
      expect(html.text).not.toContain(gone);
  });
});
