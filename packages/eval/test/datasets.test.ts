import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import {
  detectLayout,
  kgToDocuments,
  loadDataset,
  loadFolderDataset,
  loadGragDataset,
  loadInfiniteBench,
  loadKgTriples,
  loadMultihopQa,
  loadNovelQa,
  loadQaDataset,
  loadUserDataset,
  relationHeadType,
  relationPhrase,
} from '../src/index.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'grag-eval-data-'));
const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
const hashId = (prefix: string, title: string, text: string) =>
  `${prefix}-${createHash('sha1').update(`${title}\u001f${text}`).digest('hex').slice(0, 12)}`;

function sharedSlice(dir: string): void {
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    jsonl([
      {
        id: 'mini-1',
        title: 'Orsa blockade',
        text: 'Navy ships blockaded the island of Orsa during the Strait War.',
      },
      { id: 'mini-2', title: 'Strait War', text: 'The Strait War lasted from 1861 to 1864.' },
      { id: 'mini-3', title: 'Paris', text: 'Paris is the capital of France.' },
    ]),
  );
  writeFileSync(
    join(dir, 'questions.jsonl'),
    jsonl([
      {
        id: '2hop__1_2',
        question: 'When was the war in which navy ships blockaded the island of Orsa?',
        answers: ['1861–1864', '1861 to 1864'],
        supporting: ['mini-1', 'mini-2'],
        type: '2hop',
        context: ['mini-1', 'mini-2', 'mini-3'],
      },
      {
        id: 'q2',
        question: 'What is the capital of France?',
        answers: ['Paris'],
        supporting_titles: ['Paris'],
      },
      { id: 'q3', question: 'No gold here?', answers: [] },
      { id: 'q4', question: 'Which passage?', answers: ['x'], supporting: ['mini-404'] },
    ]),
  );
}

describe('the shared JSONL slices', () => {
  it('loads corpus and questions in the normalized shape and counts skipped questions', () => {
    const root = tmp();
    mkdirSync(join(root, 'mini'));
    sharedSlice(join(root, 'mini'));
    const data = loadQaDataset(root, 'mini');
    expect(data.name).toBe('mini');
    expect(data.format).toBe('grag-jsonl');
    expect(data.corpus.map((d) => d.id)).toEqual(['mini-1', 'mini-2', 'mini-3']);
    expect(data.questions.map((q) => q.id)).toEqual(['2hop__1_2', 'q2']);
    expect(data.questions[0]).toMatchObject({
      answers: ['1861–1864', '1861 to 1864'],
      supporting: ['mini-1', 'mini-2'],
      type: '2hop',
      meta: { context: ['mini-1', 'mini-2', 'mini-3'] },
    });
    // supporting given by title is resolved to passage ids
    expect(data.questions[1]?.supporting).toEqual(['mini-3']);
    expect(data.skipped).toEqual([
      { path: join(root, 'mini', 'questions.jsonl'), line: 3, reason: 'question "q3" has no gold answer' },
      {
        path: join(root, 'mini', 'questions.jsonl'),
        line: 4,
        reason: 'question "q4": supporting passage "mini-404" is not in the corpus',
      },
    ]);
    expect(detectLayout(join(root, 'mini'))).toBe('grag-jsonl');
    expect(loadDataset(join(root, 'mini')).questions).toHaveLength(2);
  });

  it('recognises a corpus/ folder of files beside questions.jsonl, and asks for its documents', () => {
    const dir = join(tmp(), 'handbook');
    mkdirSync(join(dir, 'corpus'), { recursive: true });
    writeFileSync(
      join(dir, 'questions.jsonl'),
      jsonl([
        { id: 'q1', question: 'Who runs the harbour?', answer: 'Ada Berg', supporting: ['staff.pdf'] },
        { id: 'q2', question: 'When does the ferry leave?', answer: 'noon', supporting_titles: ['Ferry'] },
        { id: 'q3', question: 'Who keeps the lighthouse?', answer: 'Ivo', supporting: ['lighthouse.md'] },
      ]),
    );
    expect(detectLayout(dir)).toBe('corpus-folder');
    expect(() => loadDataset(dir)).toThrowError(/corpus as a folder of files .*loadFolderDataset/);
    const data = loadFolderDataset(dir, {
      documents: [
        { id: 'staff.pdf', title: 'Staff', text: 'Ada Berg runs the harbour.' },
        { id: 'ferry.html', title: 'Ferry', text: 'The ferry leaves at noon.' },
      ],
      skipped: [{ path: join(dir, 'corpus', 'broken.docx'), reason: 'not a Word file' }],
    });
    expect(data).toMatchObject({ name: 'handbook', format: 'corpus-folder', path: dir });
    expect(data.questions.map((q) => [q.id, q.supporting])).toEqual([
      ['q1', ['staff.pdf']],
      ['q2', ['ferry.html']],
    ]);
    expect(data.skipped).toEqual([
      { path: join(dir, 'corpus', 'broken.docx'), reason: 'not a Word file' },
      {
        path: join(dir, 'questions.jsonl'),
        line: 3,
        reason: 'question "q3": supporting passage "lighthouse.md" is not in the corpus',
      },
    ]);
  });

  it('names the file and line of a line that is not JSON, or skips it on request', () => {
    const dir = tmp();
    sharedSlice(dir);
    writeFileSync(join(dir, 'corpus.jsonl'), '{"id":"a","text":"A."}\n{"id": "b", text}\n');
    expect(() => loadGragDataset(dir)).toThrowError(/corpus\.jsonl:2: not valid JSON .*malformed: 'skip'/);
    try {
      loadGragDataset(dir);
    } catch (error) {
      expect(InputError.isInstance(error)).toBe(true);
      expect((error as InputError).path).toBe(join(dir, 'corpus.jsonl'));
    }
    const lenient = loadGragDataset(dir, { malformed: 'skip' });
    expect(lenient.corpus.map((d) => d.id)).toEqual(['a']);
    expect(lenient.skipped[0]).toMatchObject({ path: join(dir, 'corpus.jsonl'), line: 2 });
  });

  it('reports a missing file by path', () => {
    expect(() => loadGragDataset('/no/such/dataset')).toThrowError(
      /\/no\/such\/dataset\/corpus\.jsonl does not exist/,
    );
  });
});

describe('a user corpus and questions file', () => {
  it('reads flexible field names, content-hash ids, options and entity answers', () => {
    const dir = tmp();
    writeFileSync(
      join(dir, 'docs.jsonl'),
      jsonl([
        { title: 'Oslo', content: 'Oslo is the capital of Norway.' },
        { id: 'd2', body: 'Bergen is rainy.' },
        { id: 'd3' },
      ]),
    );
    writeFileSync(
      join(dir, 'qs.json'),
      JSON.stringify([
        { query: 'Capital of Norway?', answer: 'Oslo', aliases: ['Christiania'] },
        { question: 'Which city is rainy?', options: { A: 'Oslo', B: 'Bergen' }, answer: 'B' },
        { question: 'Which cities?', entities: [['Oslo', 'Christiania'], 'Bergen'] },
        { question: 'Which option?', options: ['x', 'y'], answer: 'z' },
      ]),
    );
    const data = loadUserDataset(
      { corpus: join(dir, 'docs.jsonl'), questions: join(dir, 'qs.json') },
      { name: 'user' },
    );
    expect(data.corpus.map((d) => d.id)).toEqual([
      hashId('user', 'Oslo', 'Oslo is the capital of Norway.'),
      'd2',
    ]);
    expect(data.questions[0]).toMatchObject({
      id: 'user-q1',
      answers: ['Oslo', 'Christiania'],
      supporting: [],
    });
    expect(data.questions[1]).toMatchObject({
      format: 'multiple-choice',
      options: ['Oslo', 'Bergen'],
      correctOption: 1,
      answers: ['Bergen'],
    });
    expect(data.questions[2]).toMatchObject({
      format: 'entity',
      entities: [['Oslo', 'Christiania'], ['Bergen']],
      answers: ['Oslo', 'Christiania', 'Bergen'],
    });
    expect(data.skipped.map((s) => [s.line, s.reason])).toEqual([
      [3, 'no text (one of "text", "content", "contents", "body", "passage", "paragraph_text")'],
      [4, 'question "user-q4": the correct option is not among its 2 options'],
    ]);
  });
});

describe('MuSiQue / HotpotQA / 2Wiki official and HippoRAG formats', () => {
  const musiqueRecord = {
    id: '2hop__10_20',
    question: 'Who founded the company that makes the Walkman?',
    answer: 'Masaru Ibuka',
    answer_aliases: ['Ibuka'],
    answerable: true,
    paragraphs: [
      { idx: 0, title: 'Walkman', paragraph_text: 'The Walkman is made by Sony.', is_supporting: true },
      { idx: 1, title: 'Sony', paragraph_text: 'Sony was founded by Masaru Ibuka.', is_supporting: true },
      { idx: 2, title: 'Apple', paragraph_text: 'Apple makes the iPod.', is_supporting: false },
    ],
    question_decomposition: [
      { id: 10, question: 'who makes the walkman', answer: 'Sony', paragraph_support_idx: 0 },
    ],
  };

  it('reads MuSiQue paragraphs with the content-hash ids of the shared slices', () => {
    const dir = tmp();
    const path = join(dir, 'musique_dev.jsonl');
    writeFileSync(path, jsonl([musiqueRecord, { ...musiqueRecord, id: '2hop__x', answerable: false }]));
    const data = loadMultihopQa(path, { name: 'musique' });
    expect(data.format).toBe('musique');
    expect(data.corpus.map((d) => d.id)).toEqual([
      hashId('musique', 'Walkman', 'The Walkman is made by Sony.'),
      hashId('musique', 'Sony', 'Sony was founded by Masaru Ibuka.'),
      hashId('musique', 'Apple', 'Apple makes the iPod.'),
    ]);
    const [q] = data.questions;
    expect(q).toMatchObject({
      id: '2hop__10_20',
      answers: ['Masaru Ibuka', 'Ibuka'],
      supporting: data.corpus.slice(0, 2).map((d) => d.id),
      type: '2hop',
    });
    expect(data.skipped).toEqual([{ path, line: 2, reason: 'question "2hop__x" is marked unanswerable' }]);
    expect(detectLayout(path)).toBe('multihop');
  });

  it('reads HotpotQA context sentences and supporting-fact titles, also in the Hugging Face layout', () => {
    const dir = tmp();
    const record = {
      _id: 'h1',
      question: 'Which magazine was started first?',
      answer: "Arthur's Magazine",
      type: 'comparison',
      level: 'hard',
      supporting_facts: [
        ["Arthur's Magazine", 0],
        ['First for Women', 0],
      ],
      context: [
        ["Arthur's Magazine", ["Arthur's Magazine was a literary periodical.", ' It started in 1844.']],
        ['First for Women', ['First for Women is a magazine.', ' It started in 1989.']],
        ['Other', ['Unrelated.']],
      ],
    };
    const hf = {
      ...record,
      _id: 'h2',
      supporting_facts: { title: ["Arthur's Magazine"], sent_id: [0] },
      context: { title: ["Arthur's Magazine", 'Other'], sentences: [record.context[0]?.[1], ['Unrelated.']] },
    };
    writeFileSync(join(dir, 'hotpotqa.json'), JSON.stringify([record, hf]));
    const data = loadMultihopQa(join(dir, 'hotpotqa.json'));
    expect(data.name).toBe('hotpotqa');
    expect(data.format).toBe('hotpotqa');
    expect(data.corpus).toHaveLength(3);
    expect(data.corpus[0]?.text).toBe("Arthur's Magazine was a literary periodical. It started in 1844.");
    expect(data.questions[0]?.supporting).toEqual(data.corpus.slice(0, 2).map((d) => d.id));
    expect(data.questions[1]?.supporting).toEqual([data.corpus[0]?.id]);
    expect(data.questions[0]?.meta).toMatchObject({ level: 'hard' });
  });

  it('indexes a HippoRAG corpus file and skips questions whose gold passage it lacks', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'musique.json'), JSON.stringify([musiqueRecord]));
    writeFileSync(
      join(dir, 'musique_corpus.json'),
      JSON.stringify([
        { title: 'Walkman', text: 'The Walkman is made by Sony.', idx: 0 },
        { title: 'Sony', text: 'Sony was founded by Masaru Ibuka.', idx: 1 },
        { title: 'Extra', text: 'An extra passage.', idx: 2 },
      ]),
    );
    const data = loadMultihopQa(join(dir, 'musique.json'));
    expect(data.corpus.map((d) => d.title)).toEqual(['Walkman', 'Sony', 'Extra']);
    expect(data.questions[0]?.supporting).toEqual(data.corpus.slice(0, 2).map((d) => d.id));
    writeFileSync(
      join(dir, 'musique_corpus.json'),
      JSON.stringify([{ title: 'Walkman', text: 'The Walkman is made by Sony.' }]),
    );
    const partial = loadMultihopQa(join(dir, 'musique.json'));
    expect(partial.questions).toHaveLength(0);
    expect(partial.skipped[0]?.reason).toMatch(/supporting passage "Sony" is not in .*musique_corpus\.json/);
  });
});

describe('long-document QA', () => {
  it('reads InfiniteBench lines, deduplicating books and telling choice from open questions', () => {
    const dir = tmp();
    const book = 'Chapter 1. Ada met Charles in London. '.repeat(20);
    const path = join(dir, 'longbook_choice_eng.jsonl');
    writeFileSync(
      path,
      jsonl([
        {
          id: 0,
          context: book,
          input: 'Where did Ada meet Charles?',
          answer: ['London'],
          options: ['Paris', 'London', 'Rome', 'Oslo'],
        },
        { id: 1, context: book, input: 'Whom did Ada meet?', answer: ['Charles'], options: [] },
        { id: 2, context: 'Another book.', input: 'Q?', answer: ['Madrid'], options: ['Paris', 'London'] },
      ]),
    );
    expect(detectLayout(path)).toBe('infinitebench');
    const data = loadInfiniteBench(path);
    expect(data.corpus).toHaveLength(2);
    expect(data.questions.map((q) => [q.id, q.format, q.correctOption])).toEqual([
      ['0', 'multiple-choice', 1],
      ['1', 'open', undefined],
    ]);
    expect(data.questions[0]?.meta?.document).toBe(data.corpus[0]?.id);
    expect(data.skipped).toEqual([
      { path, line: 3, reason: 'question "2": the answer is none of its 2 options' },
    ]);
  });

  it('reads the NovelQA layout and counts questions without answers', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'Books', 'PublicDomain'), { recursive: true });
    mkdirSync(join(dir, 'Data', 'PublicDomain'), { recursive: true });
    writeFileSync(join(dir, 'Books', 'PublicDomain', 'B00.txt'), 'It was the best of times.');
    writeFileSync(
      join(dir, 'Data', 'PublicDomain', 'B00.json'),
      JSON.stringify([
        {
          Question: 'How were the times?',
          Options: { A: 'best', B: 'worst' },
          Answer: 'A',
          Aspect: 'meaning',
          Complexity: 'mh',
        },
        { Question: 'Hidden?', Options: { A: 'x', B: 'y' } },
      ]),
    );
    writeFileSync(join(dir, 'Data', 'PublicDomain', 'B99.json'), '[]');
    const data = loadNovelQa(dir);
    expect(detectLayout(dir)).toBe('novelqa');
    expect(data.corpus.map((d) => d.id)).toEqual(['B00']);
    expect(data.questions[0]).toMatchObject({
      id: 'B00-1',
      format: 'multiple-choice',
      options: ['best', 'worst'],
      correctOption: 0,
      answers: ['best'],
      type: 'meaning',
    });
    expect(data.skipped.map((s) => s.reason)).toEqual([
      'question "B00-2" has no answer (NovelQA withholds test answers)',
      'no book B99.txt under Books/',
    ]);
  });

  it('reads a single book with a questions file', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'book.txt'), 'Ishmael went to sea.');
    writeFileSync(
      join(dir, 'questions.jsonl'),
      jsonl([
        { question: 'Who went to sea?', answer: 'Ishmael' },
        { question: 'Where?', options: ['sea', 'land'], correct_option: 0 },
      ]),
    );
    const data = loadDataset(dir);
    expect(data.format).toBe('book');
    expect(data.corpus).toHaveLength(1);
    expect(data.questions.map((q) => q.format)).toEqual(['open', 'multiple-choice']);
  });
});

describe('knowledge-graph triples', () => {
  function kgDir(): string {
    const dir = tmp();
    writeFileSync(
      join(dir, 'entity2text.txt'),
      '/m/1\tJeremy Irons\n/m/2\tUnited Kingdom\n/m/3\tThe Lion King\n',
    );
    writeFileSync(join(dir, 'relation2text.txt'), '/people/person/nationality\tpeople person nationality\n');
    writeFileSync(
      join(dir, 'train.tsv'),
      '/m/1\t/people/person/nationality\t/m/2\n/m/1\t/film/actor/film./film/performance/film\t/m/3\n/m/9\t/x/y/z\t/m/1\n',
    );
    return dir;
  }

  it('loads triples with entity and relation texts', () => {
    const kg = loadKgTriples(kgDir(), { name: 'fb' });
    expect(kg.triples).toHaveLength(3);
    expect(kg.entities.get('/m/3')).toBe('The Lion King');
    expect(kg.relations.get('/people/person/nationality')).toBe('people person nationality');
  });

  it('names the file and line of a malformed triple', () => {
    const dir = kgDir();
    writeFileSync(join(dir, 'train.tsv'), '/m/1\t/r\t/m/2\n/m/1 /r /m/2\n');
    expect(() => loadKgTriples(dir)).toThrowError(/train\.tsv:2: expected 3 tab-separated fields, got 1/);
    expect(loadKgTriples(dir, { malformed: 'skip' }).skipped).toHaveLength(1);
    expect(() => loadDataset(dir)).toThrowError(/knowledge graph .*generateErqa/);
  });

  it('phrases Freebase relations and writes entity pages without unnamed entities', () => {
    expect(relationPhrase('/people/person/nationality')).toBe('nationality');
    expect(relationPhrase('/film/actor/film./film/performance/film')).toBe('film');
    expect(relationHeadType('/film/actor/film./film/performance/film')).toBe('actor');
    const kg = loadKgTriples(kgDir(), { name: 'fb' });
    const docs = kgToDocuments(kg);
    expect(docs.map((d) => [d.id, d.title])).toEqual([
      ['fb-m.1', 'Jeremy Irons'],
      ['fb-m.2', 'United Kingdom'],
      ['fb-m.3', 'The Lion King'],
    ]);
    expect(docs[0]?.text).toBe(
      'Jeremy Irons — nationality — United Kingdom.\nJeremy Irons — film — The Lion King.',
    );
  });
});
