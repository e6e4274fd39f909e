import { assembleKnowledgeGraph, EntityVocabulary } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { createOfflineTasks } from '../src/index.js';

const tasks = createOfflineTasks();
const FILM =
  'Life Classes is a 1987 Canadian drama film directed by William D. MacGillivray. The film was shot in Nova Scotia. It won a Genie Award.';
const DIRECTOR =
  'William D. MacGillivray (born 1946) is a Canadian film director. He directed Life Classes. The director studied at the Nova Scotia College of Art and Design.';

const descriptions = (graph: Awaited<ReturnType<typeof tasks.extractGraph>>) =>
  graph.relations.map((r) => r.description);

describe('extractGraph: the main subject (document title)', () => {
  it('reads "the <class noun>" and a sentence-initial "it" as the subject', async () => {
    const graph = await tasks.extractGraph(FILM, { subject: 'Life Classes (film)' });
    expect(descriptions(graph)).toEqual(
      expect.arrayContaining(['Life Classes was shot in Nova Scotia', 'Life Classes won Genie Award']),
    );
  });

  it('reads he/she as a person subject, and the title line of "Title\\ntext" as the subject', async () => {
    const graph = await tasks.extractGraph(`William D. MacGillivray\n${DIRECTOR}`);
    expect(graph.entities.find((e) => e.name === 'William D. MacGillivray')?.type).toBe('person');
    expect(descriptions(graph)).toEqual(
      expect.arrayContaining([
        'William D. MacGillivray directed Life Classes',
        'William D. MacGillivray studied at Nova Scotia College of Art',
      ]),
    );
    // Without the title line, "the director" stays unresolved.
    const plain = await createOfflineTasks({ titleLineSubject: false }).extractGraph(DIRECTOR);
    expect(descriptions(plain)).not.toContain(
      'William D. MacGillivray studied at Nova Scotia College of Art',
    );
  });

  it('reports the subject as an entity even when the text does not name it', async () => {
    const graph = await tasks.extractGraph('The museum opened in Hanoi in 1990.', {
      subject: 'Military Museum of Phu Luong',
    });
    expect(graph.entities.map((e) => e.name)).toContain('Military Museum of Phu Luong');
  });

  it('takes the whole title as one span where the text writes it, whatever its tags', async () => {
    const graph = await tasks.extractGraph('Life Classes\nLife Classes is a 1987 film.');
    expect(graph.entities.map((e) => e.name)).toContain('Life Classes');
    expect(graph.entities.map((e) => e.name)).not.toContain('Classes');
  });

  it('decomposeSemanticUnits writes the subject for its pronouns and definite descriptions', async () => {
    const { units } = await tasks.decomposeSemanticUnits(`William D. MacGillivray\n${DIRECTOR}`);
    expect(units.map((u) => u.text).join(' ')).toContain(
      'William D. MacGillivray studied at the Nova Scotia College of Art and Design.',
    );
  });
});

describe('offline extraction + KG assembly with entity linking', () => {
  it('connects the film passage to the passage about its director', async () => {
    const docs = [
      { id: 'film', title: 'Life Classes (film)', text: FILM },
      { id: 'director', title: 'William D. MacGillivray', text: DIRECTOR },
      { id: 'stations', title: 'Stations (film)', text: 'Stations is a 1983 film by W. D. MacGillivray.' },
    ];
    const items = [];
    for (const d of docs) {
      const text = `${d.title}\n${d.text}`;
      items.push({ chunkId: d.id, docId: d.id, text, extraction: await tasks.extractGraph(text) });
    }
    const kg = assembleKnowledgeGraph(items, {
      entityLinking: { titles: new Map(docs.map((d) => [d.id, d.title])) },
    });
    expect(kg.entities.get('william d. macgillivray')?.chunkIds).toEqual(['film', 'director', 'stations']);
    expect(kg.entities.get('life classes')?.chunkIds).toEqual(['film', 'director']);
    expect(kg.linking?.aliases.get('william d. macgillivray')).toEqual(['W. D. MacGillivray']);
  });
});

describe('extractQueryEntities with a vocabulary', () => {
  const vocabulary = new EntityVocabulary(['Military Museum of Phu Luong', 'Phu Luong', 'Life Classes']);

  it('puts the longest vocabulary matches first, as the index writes them', async () => {
    const { entities } = await tasks.extractQueryEntities('Who founded the military museum of Phu Luong?', {
      vocabulary,
    });
    expect(entities[0]).toBe('Military Museum of Phu Luong');
    expect(entities).not.toContain('Phu Luong');
  });

  it('finds a lower-case title the capitalisation heuristics miss', async () => {
    const question = 'Where was the director of film life classes born?';
    expect((await tasks.extractQueryEntities(question)).entities).not.toContain('Life Classes');
    expect((await tasks.extractQueryEntities(question, { vocabulary })).entities[0]).toBe('Life Classes');
  });
});
