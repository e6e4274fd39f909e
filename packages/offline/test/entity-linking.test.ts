import { assembleKnowledgeGraph, EntityVocabulary } from '@grag/core/graph';
import { describe, expect, it } from 'vitest';
import { createOfflineTasks } from '../src/index.js';

const tasks = createOfflineTasks();
const FILM =
  'Still Waters is a 1987 Veskan drama film directed by Edvin D. MacAlder. The film was shot in Port Halvard. It won a Lantern Award.';
const DIRECTOR =
  'Edvin D. MacAlder (born 1946) is a Veskan film director. He directed Still Waters. The director studied at the Orsa College of Art and Design.';

const descriptions = (graph: Awaited<ReturnType<typeof tasks.extractGraph>>) =>
  graph.relations.map((r) => r.description);

describe('extractGraph: the main subject (document title)', () => {
  it('reads "the <class noun>" and a sentence-initial "it" as the subject', async () => {
    const graph = await tasks.extractGraph(FILM, { subject: 'Still Waters (film)' });
    expect(descriptions(graph)).toEqual(
      expect.arrayContaining(['Still Waters was shot in Port Halvard.', 'Still Waters won Lantern Award.']),
    );
  });

  it('reads he/she as a person subject, and the title line of "Title\\ntext" as the subject', async () => {
    const graph = await tasks.extractGraph(`Edvin D. MacAlder\n${DIRECTOR}`);
    expect(graph.entities.find((e) => e.name === 'Edvin D. MacAlder')?.type).toBe('person');
    expect(descriptions(graph)).toEqual(
      expect.arrayContaining([
        'Edvin D. MacAlder directed Still Waters.',
        'Edvin D. MacAlder studied at Orsa College of Art.',
      ]),
    );
    // Without the title line, "the director" stays unresolved.
    const plain = await createOfflineTasks({ titleLineSubject: false }).extractGraph(DIRECTOR);
    expect(descriptions(plain)).not.toContain('Edvin D. MacAlder studied at Orsa College of Art.');
  });

  it('reports the subject as an entity even when the text does not name it', async () => {
    const graph = await tasks.extractGraph('The museum opened in Hanoi in 1990.', {
      subject: 'Military Museum of Phu Luong',
    });
    expect(graph.entities.map((e) => e.name)).toContain('Military Museum of Phu Luong');
  });

  it('takes the whole title as one span where the text writes it, whatever its tags', async () => {
    const graph = await tasks.extractGraph('Still Waters\nStill Waters is a 1987 film.');
    expect(graph.entities.map((e) => e.name)).toContain('Still Waters');
    expect(graph.entities.map((e) => e.name)).not.toContain('Waters');
  });

  it('decomposeSemanticUnits writes the subject for its pronouns and definite descriptions', async () => {
    const { units } = await tasks.decomposeSemanticUnits(`Edvin D. MacAlder\n${DIRECTOR}`);
    expect(units.map((u) => u.text).join(' ')).toContain(
      'Edvin D. MacAlder studied at the Orsa College of Art and Design.',
    );
  });
});

describe('offline extraction + KG assembly with entity linking', () => {
  it('connects the film passage to the passage about its director', async () => {
    const docs = [
      { id: 'film', title: 'Still Waters (film)', text: FILM },
      { id: 'director', title: 'Edvin D. MacAlder', text: DIRECTOR },
      { id: 'breakwater', title: 'Breakwater (film)', text: 'Breakwater is a 1983 film by E. D. MacAlder.' },
    ];
    const items = [];
    for (const d of docs) {
      const text = `${d.title}\n${d.text}`;
      items.push({ chunkId: d.id, docId: d.id, text, extraction: await tasks.extractGraph(text) });
    }
    const kg = assembleKnowledgeGraph(items, {
      entityLinking: { titles: new Map(docs.map((d) => [d.id, d.title])) },
    });
    expect(kg.entities.get('edvin d. macalder')?.chunkIds).toEqual(['film', 'director', 'breakwater']);
    expect(kg.entities.get('still waters')?.chunkIds).toEqual(['film', 'director']);
    expect(kg.linking?.aliases.get('edvin d. macalder')).toEqual(['E. D. MacAlder']);
  });
});

describe('extractQueryEntities with a vocabulary', () => {
  const vocabulary = new EntityVocabulary(['Military Museum of Phu Luong', 'Phu Luong', 'Still Waters']);

  it('puts the longest vocabulary matches first, as the index writes them', async () => {
    const { entities } = await tasks.extractQueryEntities('Who founded the military museum of Phu Luong?', {
      vocabulary,
    });
    expect(entities[0]).toBe('Military Museum of Phu Luong');
    expect(entities).not.toContain('Phu Luong');
  });

  it('finds a lower-case title the capitalisation heuristics miss', async () => {
    const question = 'Where was the director of still waters born?';
    expect((await tasks.extractQueryEntities(question)).entities).not.toContain('Still Waters');
    expect((await tasks.extractQueryEntities(question, { vocabulary })).entities[0]).toBe('Still Waters');
  });
});
