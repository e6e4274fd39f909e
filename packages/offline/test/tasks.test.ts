import { embedAll, type Tokenizer } from '@grag/core';
import { cosineSimilarity, getTokenizer } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, test } from 'vitest';
import { createOfflineTasks, NO_ANSWER, OFFLINE_TASKS_DEFAULTS } from '../src/index.js';

// An original paragraph about a fictional chemist.
const BIOGRAPHY = [
  'Elena Varga was born in Budapest in 1921.',
  'She studied chemistry at the University of Vienna, where she met Tomas Keller.',
  'In 1950 Varga worked at the Pasteur Institute in Paris on penicillin.',
  'Keller married Varga in Geneva on 3 May 1952.',
].join(' ');

/** One token per whitespace-separated word: budgets can be checked by hand. */
const wordTokenizer: Pick<Tokenizer, 'count' | 'truncate'> = {
  count: (text) => text.split(/\s+/).filter(Boolean).length,
  truncate: (text, max) => text.split(/\s+/).filter(Boolean).slice(0, max).join(' '),
};

const tasks = createOfflineTasks({ tokenizer: wordTokenizer });

describe('extractGraph', () => {
  test('finds the people, places, organizations and dates of a biography with their types', async () => {
    const { entities, issues } = await tasks.extractGraph(BIOGRAPHY);
    const types = Object.fromEntries(entities.map((e) => [e.name, e.type]));
    expect(types).toMatchObject({
      'Elena Varga': 'person',
      'Tomas Keller': 'person',
      Budapest: 'geo',
      Paris: 'geo',
      Geneva: 'geo',
      'University of Vienna': 'organization',
      'Pasteur Institute': 'organization',
      '1921': 'date',
      '3 May 1952': 'date',
    });
    expect(issues).toEqual([]);
  });

  test('merges a bare surname into the full name instead of adding a second entity', async () => {
    const { entities } = await tasks.extractGraph(BIOGRAPHY);
    const names = entities.map((e) => e.name);
    expect(names).not.toContain('Varga');
    expect(names).not.toContain('Keller');
    expect(names.filter((n) => n === 'Elena Varga')).toHaveLength(1);
  });

  test('describes an entity with the sentences that mention it, pronouns included', async () => {
    const { entities } = await tasks.extractGraph(BIOGRAPHY);
    const varga = entities.find((e) => e.name === 'Elena Varga')!;
    expect(varga.description).toContain('Elena Varga was born in Budapest in 1921.');
    expect(varga.description).toContain('She studied chemistry at the University of Vienna');
  });

  test('describes a relation by the verb phrase between the two entities', async () => {
    const { relations } = await tasks.extractGraph(BIOGRAPHY);
    const find = (a: string, b: string) =>
      relations.find((r) => (r.source === a && r.target === b) || (r.source === b && r.target === a));
    expect(find('Elena Varga', 'Pasteur Institute')?.description).toContain('worked at');
    expect(find('Elena Varga', 'Budapest')?.description).toContain('was born in');
    expect(find('Elena Varga', 'University of Vienna')?.description).toContain('studied');
    expect(find('Tomas Keller', 'Geneva')?.description).toContain('married');
  });

  test('descriptions read as sentences: a heading line and each verb phrase close with a full stop', async () => {
    const { entities, relations } = await tasks.extractGraph(
      'Ilse Marren\nIlse Marren is a ferry captain born in Veskan Bay. She worked for the Kessler Shipyard. In 1950 she left the Kessler Shipyard.',
    );
    expect(entities.find((e) => e.name === 'Ilse Marren')?.description).toMatch(
      /^Ilse Marren\. Ilse Marren is a ferry captain born in Veskan Bay\./,
    );
    const yard = relations.find((r) => [r.source, r.target].sort().join() === 'Ilse Marren,Kessler Shipyard');
    expect(yard?.description).toBe(
      'Ilse Marren worked for Kessler Shipyard. Ilse Marren left Kessler Shipyard.',
    );
  });

  test('a name inside a prepositional phrase is no subject: the relation keeps its sentence', async () => {
    const text =
      'The skipper of the ferry Marsh Wren is Tamsin Hale. The organist of the Selcombe Falls chapel is Morwen Pascoe.';
    const { entities, relations } = await tasks.extractGraph(text);
    const between = (a: string, b: string) =>
      relations.find((r) => (r.source === a && r.target === b) || (r.source === b && r.target === a))
        ?.description;
    // Not "Marsh Wren is Tamsin Hale": the skipper is.
    expect(between('Marsh Wren', 'Tamsin Hale')).toBe('The skipper of the ferry Marsh Wren is Tamsin Hale.');
    // "Falls", tagged as a verb, continues the name of the town.
    expect(entities.map((e) => e.name)).toContain('Selcombe Falls');
    expect(between('Selcombe Falls', 'Morwen Pascoe')).toBe(
      'The organist of the Selcombe Falls chapel is Morwen Pascoe.',
    );
  });

  test('weights a relation by the number of sentences the two entities share', async () => {
    const { relations } = await tasks.extractGraph(BIOGRAPHY);
    const weight = (a: string, b: string) =>
      relations.find((r) => (r.source === a && r.target === b) || (r.source === b && r.target === a))?.weight;
    // Sentence 2 ("she met Tomas Keller") and sentence 4 ("Keller married Varga").
    expect(weight('Elena Varga', 'Tomas Keller')).toBe(2);
    expect(weight('Pasteur Institute', 'Paris')).toBe(1);
    // Never in one sentence.
    expect(weight('Budapest', 'Geneva')).toBeUndefined();
  });

  test('links only entities it returns', async () => {
    const { entities, relations } = await tasks.extractGraph(BIOGRAPHY);
    const names = new Set(entities.map((e) => e.name));
    for (const r of relations) {
      expect(names.has(r.source) && names.has(r.target)).toBe(true);
      expect(r.weight).toBeGreaterThanOrEqual(1);
    }
  });

  test('filters entity types only when the caller passes entityTypes', async () => {
    const all = await tasks.extractGraph(BIOGRAPHY);
    expect(new Set(all.entities.map((e) => e.type))).toContain('date');
    const people = await tasks.extractGraph(BIOGRAPHY, { entityTypes: ['PERSON'] });
    expect(people.entities.map((e) => e.name).sort()).toEqual(['Elena Varga', 'Tomas Keller']);
    expect(people.relations.map((r) => [r.source, r.target].sort())).toEqual([
      ['Elena Varga', 'Tomas Keller'],
    ]);
  });

  test('types spans by their head word, honorific and quotes', async () => {
    const { entities } = await tasks.extractGraph(
      'Dr. Anna Smith led the Battle of Hastings Museum. Later she joined Acme Corporation near the Danube River. Her favourite film was "The Third Man".',
    );
    const types = Object.fromEntries(entities.map((e) => [e.name, e.type]));
    expect(types).toMatchObject({
      'Anna Smith': 'person',
      'Battle of Hastings Museum': 'organization',
      'Acme Corporation': 'organization',
      'Danube River': 'geo',
      'The Third Man': 'work',
    });
  });

  test('adds salient noun phrases as concepts, up to maxNounPhrases', async () => {
    const text = 'Varga taught nuclear physics in Vienna. Her students loved nuclear physics and chemistry.';
    const { entities } = await tasks.extractGraph(text);
    // A compound seen twice ranks first; single nouns seen once ("students", "chemistry") do not qualify.
    expect(entities.filter((e) => e.type === 'concept').map((e) => e.name)).toEqual(['nuclear physics']);
    const none = await createOfflineTasks({ maxNounPhrases: 0 }).extractGraph(text);
    expect(none.entities.filter((e) => e.type === 'concept')).toEqual([]);
  });

  test('gives an empty extraction for a text without entities', async () => {
    expect(await tasks.extractGraph('it was raining and nobody came.')).toEqual({
      entities: [],
      relations: [],
      issues: [],
    });
  });
});

describe('decomposeSemanticUnits', () => {
  test('makes one unit per sentence with its entities and verb-phrase relationships', async () => {
    const { units, issues } = await tasks.decomposeSemanticUnits(BIOGRAPHY);
    expect(units).toHaveLength(4);
    expect(issues).toEqual([]);
    expect(units[2]!.entities).toEqual(
      expect.arrayContaining(['Elena Varga', 'Pasteur Institute', 'Paris', '1950']),
    );
    expect(units[2]!.relationships).toContainEqual({
      source: 'Elena Varga',
      relation: 'worked at',
      target: 'Pasteur Institute',
    });
    expect(units[0]!.relationships).toContainEqual({
      source: 'Elena Varga',
      relation: 'was born in',
      target: 'Budapest',
    });
  });

  test('replaces a resolved pronoun by the name so that a unit stands alone', async () => {
    const { units } = await tasks.decomposeSemanticUnits(BIOGRAPHY);
    expect(units[1]!.text).toBe(
      'Elena Varga studied chemistry at the University of Vienna, where Elena Varga met Tomas Keller.',
    );
    expect(units[1]!.relationships).toContainEqual({
      source: 'Elena Varga',
      relation: 'met',
      target: 'Tomas Keller',
    });
  });

  test('merges a sentence shorter than minUnitWords with the next one', async () => {
    const { units } = await tasks.decomposeSemanticUnits(
      'It rained. Elena Varga stayed at home in Budapest all day.',
    );
    expect(units.map((u) => u.text)).toEqual(['It rained. Elena Varga stayed at home in Budapest all day.']);
  });
});

describe('summarize', () => {
  const texts = [
    'Elena Varga studied penicillin at the Pasteur Institute in Paris.',
    'Penicillin research made the Pasteur Institute famous.',
    'Elena Varga published her penicillin results in 1952.',
    'The winter in Paris was cold.',
  ];

  test('keeps the most central sentence within the token budget', async () => {
    // The first sentence shares words with each of the others: it is the most central one.
    const summary = await tasks.summarize(texts, { maxTokens: 12 });
    expect(summary).toBe(texts[0]);
  });

  test('never exceeds the budget and keeps sentences in their original order', async () => {
    for (let budget = 1; budget <= 40; budget++) {
      const summary = await tasks.summarize(texts, { maxTokens: budget });
      expect(wordTokenizer.count(summary)).toBeLessThanOrEqual(budget);
      const positions = texts.filter((t) => summary.includes(t)).map((t) => summary.indexOf(t));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  test('returns every distinct sentence when they fit', async () => {
    expect(await tasks.summarize([...texts, texts[0]!], { maxTokens: 1000 })).toBe(texts.join(' '));
  });

  test('counts with the core tokenizer by default', async () => {
    const summary = await createOfflineTasks().summarize(texts, { maxTokens: 15 });
    expect(summary.length).toBeGreaterThan(0);
    expect(summary.length).toBeLessThan(texts.join(' ').length);
  });

  test('with cl100k, counts joined sentences from their own counts and gives the summary counting the joined text gives', async () => {
    const core = getTokenizer();
    const varied = [
      '1952 was the year Elena Varga published her results on penicillin.',
      "'s-Hertogenbosch lies in the Netherlands; it's the capital of North Brabant.",
      '"Quoted," she said — and left for Zürich (by train) at 7:45.',
      'Penicillin, a β-lactam, was found by Fleming… in 1928!',
      '(Parenthesized) sentences open with punctuation.',
      'Élodie Durand joined the Pasteur Institute in Paris in 1961.',
      '3 x 4 = 12, and 12 / 4 = 3.',
      'The winter in Paris was cold.\nThe spring was wet.',
    ];
    for (const a of varied) {
      for (const b of varied) expect(core.count(`${a} ${b}`)).toBe(core.count(a) + core.count(` ${b}`));
    }
    const plain = { count: (t: string) => core.count(t), truncate: core.truncate.bind(core) };
    const withCore = createOfflineTasks({ tokenizer: core });
    const withPlain = createOfflineTasks({ tokenizer: plain as unknown as Tokenizer });
    for (let budget = 5; budget <= 90; budget += 5) {
      const joined = [...varied, ...texts];
      expect(await withCore.summarize(joined, { maxTokens: budget })).toBe(
        await withPlain.summarize(joined, { maxTokens: budget }),
      );
    }
  });

  test('rejects a non-positive budget', async () => {
    await expect(tasks.summarize(texts, { maxTokens: 0 })).rejects.toThrow(/maxTokens/);
  });
});

describe('titleAndDescription', () => {
  test('titles a text with its top keywords and describes it with its central sentences', async () => {
    const { title, description, issues } = await tasks.titleAndDescription(BIOGRAPHY);
    // "Elena Varga" is mentioned four times (twice by pronoun), more than anything else.
    expect(title.startsWith('Elena Varga')).toBe(true);
    expect(title.split(/\s+/).length).toBeLessThanOrEqual(OFFLINE_TASKS_DEFAULTS.titleWords);
    expect(description.split(/\s+/).length).toBeLessThanOrEqual(OFFLINE_TASKS_DEFAULTS.descriptionWords);
    const sentences = BIOGRAPHY.split(/(?<=\.) /);
    for (const part of description.split(/(?<=\.) /)) expect(sentences).toContain(part);
    expect(issues).toEqual([]);
  });

  test('a description keeps a line without a full stop (a heading) a sentence of its own', async () => {
    const text =
      'Selcombe Quay\nThe organ\nThe organist of the quay chapel is Wenna Roe.\nThe chapel occupies the old sail loft';
    const { description } = await tasks.titleAndDescription(text);
    expect(description).toContain('The organ. ');
    expect(description).toContain('The organist of the quay chapel is Wenna Roe. ');
    expect(description.endsWith('sail loft.')).toBe(true);
  });

  test('title-cases noun keywords', async () => {
    const { title } = await tasks.titleAndDescription(
      'The bees collect nectar from flowers. The bees turn the nectar into honey. The honey keeps for years in sealed jars.',
    );
    // bee, nectar and honey twice each, then flower once (first seen before jar); "year" is too generic.
    expect(title).toBe('Bee, Nectar, Honey, Flower');
  });
});

describe('extractQueryEntities', () => {
  test('returns named entities and important nouns without case-insensitive duplicates', async () => {
    const { entities, issues } = await tasks.extractQueryEntities(
      'Which city hosts the university where Elena Varga worked and Tomas Keller studied?',
    );
    expect(issues).toEqual([]);
    expect(entities).toEqual(expect.arrayContaining(['Elena Varga', 'Tomas Keller', 'city', 'university']));
    const lower = entities.map((e) => e.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
  });
});

describe('extractQueryGraph', () => {
  test('links an unknown target to every named entity of a which-question', async () => {
    const graph = await tasks.extractQueryGraph(
      'Which city hosts the university where Elena Varga worked and Tomas Keller studied?',
    );
    const target = graph.nodes.find((n) => n.isTarget)!;
    expect(target.label).toBeNull();
    expect(graph.nodes.filter((n) => !n.isTarget).map((n) => n.label)).toEqual([
      'Elena Varga',
      'Tomas Keller',
    ]);
    const idOf = (label: string) => graph.nodes.find((n) => n.label === label)!.id;
    const edge = (label: string) =>
      graph.edges.find(
        (e) => [e.source, e.target].includes(idOf(label)) && [e.source, e.target].includes(target.id),
      );
    expect(edge('Elena Varga')?.relation).toBe('worked');
    expect(edge('Tomas Keller')?.relation).toBe('studied');
    expect(graph.issues).toEqual([]);
  });

  test('gives coordinated entities the same relation', async () => {
    const graph = await tasks.extractQueryGraph('Which country borders France, Spain and Italy?');
    expect(graph.nodes.map((n) => n.label)).toEqual([null, 'France', 'Spain', 'Italy']);
    expect(graph.edges.map((e) => [e.source, e.relation, e.target])).toEqual([
      ['target', 'borders', 'e1'],
      ['target', 'borders', 'e2'],
      ['target', 'borders', 'e3'],
    ]);
  });

  test('points from the entity when it is the subject of the question', async () => {
    const graph = await tasks.extractQueryGraph('Where was Elena Varga born?');
    expect(graph.edges).toEqual([{ source: 'e1', target: 'target', relation: 'born' }]);
  });

  test('returns a lone target node when the question names no entity', async () => {
    const graph = await tasks.extractQueryGraph('How many people live there?');
    expect(graph.nodes).toEqual([{ id: 'target', label: null, isTarget: true }]);
    expect(graph.edges).toEqual([]);
  });
});

describe('assessCommunity', () => {
  const community = [
    'Elena Varga worked at the Pasteur Institute in Paris.',
    'The institute is known for vaccine research.',
    'Tomas Keller played the violin.',
  ].join(' ');

  test('scores by lexical overlap without an embedder and reports the relevant sentences', async () => {
    const relevant = await tasks.assessCommunity('Where did Elena Varga work?', community);
    // Query content lemmas: elena, varga, work — all in the community.
    expect(relevant.score).toBe(10);
    expect(relevant.report).toContain('Elena Varga worked at the Pasteur Institute in Paris.');
    expect(relevant.report).not.toContain('violin');
    const unrelated = await tasks.assessCommunity('Which football team won the cup?', community);
    expect(unrelated.score).toBe(0);
    expect(unrelated.issues).toEqual([]);
  });

  test('scores by embedding cosine when an embedder is given', async () => {
    const withEmbedder = createOfflineTasks({ embedder: createScriptedEmbedder({ dimensions: 256 }) });
    const relevant = await withEmbedder.assessCommunity('Where did Elena Varga work?', community);
    const unrelated = await withEmbedder.assessCommunity('football team cup final', community);
    expect(relevant.score).toBeGreaterThan(unrelated.score);
    for (const s of [relevant.score, unrelated.score]) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(10);
    }
  });

  test('assesses alike whether the sentences were embedded before (kept vectors) or not', async () => {
    const embedder = createScriptedEmbedder({ dimensions: 64 });
    const warm = createOfflineTasks({ embedder, reportSentences: 2 });
    const other = [
      'The institute is known for vaccine research.',
      'Elena Varga worked at the Pasteur Institute in Paris.',
      'Ferries leave the harbour at dawn.',
    ].join(' ');
    // `warm` embeds the shared sentences once, on the first community; a fresh embedder does not know them.
    await warm.assessCommunity('Who played the violin?', other);
    for (const query of ['Where did Elena Varga work?', 'What is the institute known for?']) {
      const cold = createOfflineTasks({
        embedder: createScriptedEmbedder({ dimensions: 64 }),
        reportSentences: 2,
      });
      expect(await warm.assessCommunity(query, community)).toEqual(
        await cold.assessCommunity(query, community),
      );
    }
  });

  test('with an embedder and no shared words, reports the sentence of highest cosine with the query', async () => {
    const embedder = createScriptedEmbedder({ dimensions: 64 });
    const one = createOfflineTasks({ embedder, reportSentences: 1 });
    const sentences = [
      'Elena Varga worked at the Pasteur Institute in Paris.',
      'The institute is known for vaccine research.',
      'Tomas Keller played the violin.',
      'Ferries leave the harbour at dawn.',
    ];
    let checked = 0;
    for (const query of [
      'football cup final',
      'mountain snow weather',
      'bakery bread oven',
      'stock market crash',
    ]) {
      const [q, ...vectors] = await embedAll(embedder, [query, ...sentences]);
      const cosines = vectors.map((v) => cosineSimilarity(q!, v));
      const best = cosines.indexOf(Math.max(...cosines));
      if (!(cosines[best]! > 0)) continue;
      // Twice: the second time the sentences' vectors are the kept ones.
      for (let round = 0; round < 2; round++) {
        expect((await one.assessCommunity(query, sentences.join(' '))).report).toBe(sentences[best]);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('answer', () => {
  const context = [
    { id: 'a', text: 'Elena Varga was born in Budapest in 1921. She loved music.' },
    { id: 'b', text: 'In 1950 Varga worked at the Pasteur Institute in Paris.' },
    { id: 'c', text: 'Tomas Keller studied physics in Zurich.' },
  ];
  // answerMode 'sentences' (whole sentences); the default 'phrase' mode is tested in
  // answer-extraction.test.ts.
  const single = createOfflineTasks({ answerMode: 'sentences', answerSentences: 1 });
  const sentences = createOfflineTasks({ answerMode: 'sentences' });

  test('states a sentence once even when several context items repeat it', async () => {
    const repeated = [
      { id: 'p', text: 'Elena Varga was born in Budapest in 1921.' },
      { id: 'e', text: 'Elena Varga: Elena Varga was born in Budapest in 1921.' },
      { id: 'r', text: 'Elena Varga — Budapest: Elena Varga was born in Budapest in 1921.' },
      { id: 'c', text: 'Tomas Keller studied physics in Zurich.' },
    ];
    const result = await sentences.answer('Where was Elena Varga born?', repeated);
    expect(result.answer.match(/born in Budapest/g)).toHaveLength(1);
    expect(result.citations).toHaveLength(1);
  });

  test('answers with the most relevant sentence and cites its item', async () => {
    const result = await single.answer('Where was Elena Varga born?', context);
    expect(result).toEqual({
      answer: 'Elena Varga was born in Budapest in 1921.',
      citations: ['a'],
      issues: [],
    });
    const institute = await single.answer('Which institute did Varga work at?', context);
    expect(institute.citations).toEqual(['b']);
    expect(institute.answer).toContain('Pasteur Institute');
  });

  test('prefers a sentence with an entity of the type the question asks for', async () => {
    const items = [
      { id: 'x', text: 'Tomas Keller studied physics for many years.' },
      { id: 'y', text: 'Tomas Keller studied physics in Zurich.' },
    ];
    expect((await single.answer('Where did Tomas Keller study physics?', items)).citations).toEqual(['y']);
    expect((await single.answer('Who studied physics in Zurich?', items)).citations).toEqual(['y']);
  });

  test('cites every item its sentences come from, best first', async () => {
    const result = await sentences.answer('Where did Elena Varga work, and where was Varga born?', context);
    expect(result.citations.sort()).toEqual(['a', 'b']);
  });

  test('says so and cites nothing when the context does not answer', async () => {
    expect(await tasks.answer('What is the boiling point of mercury?', context)).toEqual({
      answer: NO_ANSWER,
      citations: [],
      issues: [],
    });
    expect(await tasks.answer('Where was Elena Varga born?', [])).toEqual({
      answer: NO_ANSWER,
      citations: [],
      issues: [],
    });
  });
});

describe('createOfflineTasks', () => {
  test('names itself offline:wink', () => {
    expect(tasks.id).toBe('offline:wink');
  });

  test('declares its judgements heuristic (methods read this, not the id)', () => {
    expect(tasks.judgement).toBe('heuristic');
  });

  test('rejects an impossible option', () => {
    expect(() => createOfflineTasks({ answerSentences: 0 })).toThrow(/answerSentences/);
  });

  test('stops before working when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(tasks.extractGraph(BIOGRAPHY, { abortSignal: controller.signal })).rejects.toThrow(/abort/i);
  });
});
