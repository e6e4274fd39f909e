import { describe, expect, it } from 'vitest';
import {
  assembleKnowledgeGraph,
  EntityVocabulary,
  type ExtractionItem,
  KnowledgeGraphBuilder,
  linkEntities,
  linkKey,
  stripDisambiguator,
  withVocabularyMatches,
} from '../src/graph/index.js';
import type { ExtractedEntity, ExtractedRelation } from '../src/index.js';

const entity = (name: string, type = 'other'): ExtractedEntity => ({ name, type, description: '' });
const relation = (source: string, target: string): ExtractedRelation => ({
  source,
  target,
  description: `${source} – ${target}`,
  weight: 1,
});
function item(
  chunkId: string,
  entities: ExtractedEntity[],
  relations: ExtractedRelation[] = [],
  text?: string,
): ExtractionItem {
  return { chunkId, docId: chunkId, extraction: { entities, relations }, ...(text ? { text } : {}) };
}
const chunksOf = (kg: ReturnType<typeof assembleKnowledgeGraph>, name: string) =>
  kg.entities.get(name.toLowerCase())?.chunkIds;

describe('linkKey / stripDisambiguator', () => {
  it('folds case, diacritics, punctuation, a trailing disambiguator and a leading "the"', () => {
    expect(linkKey('The Military Museum of Phú Lương (Vietnam)')).toBe('military museum of phu luong');
    expect(linkKey('E. D. MacAlder')).toBe('e d macalder');
    expect(linkKey('Phu-Luong')).toBe(linkKey('PHU LUONG'));
    expect(stripDisambiguator('Still Waters (film)')).toBe('Still Waters');
    expect(stripDisambiguator('(film)')).toBe('film');
  });
});

describe('linkEntities: titles', () => {
  const titles = new Map([
    ['film', 'Still Waters (film)'],
    ['director', 'Edvin D. MacAlder'],
    ['other', 'Breakwater'],
  ]);

  it('gives every chunk of a titled document its title entity, which mentions elsewhere link to', () => {
    const kg = assembleKnowledgeGraph(
      [
        item('film', [entity('Still Waters'), entity('Edvin D. MacAlder', 'person')]),
        // The director's own passage: the extractor did not report its subject.
        item('director', [entity('Merrow Falls', 'geo')]),
      ],
      { entityLinking: { titles } },
    );
    expect(chunksOf(kg, 'Edvin D. MacAlder')).toEqual(['film', 'director']);
    // The disambiguator goes: the film is "Still Waters".
    expect(kg.entities.get('still waters')?.name).toBe('Still Waters');
    expect(kg.entities.has('still waters (film)')).toBe(false);
    expect(kg.linking?.titleEntities.get('film')).toBe('Still Waters');
    expect(kg.linking?.stats.titleEntities).toBe(3);
  });

  it('finds capitalised title mentions the extractor missed in the chunk text, not lower-case ones', () => {
    const kg = assembleKnowledgeGraph(
      [
        item('film', [], [], 'Still Waters is a film.'),
        item('other', [entity('Breakwater')], [], 'Breakwater is a film like Still Waters.'),
        item('director', [], [], 'He swam in still waters.'),
      ],
      { entityLinking: { titles } },
    );
    expect(chunksOf(kg, 'Still Waters')).toEqual(['film', 'other']);
    expect(kg.linking?.stats.textMentions).toBe(1);
  });

  it('without titles or text, links aliases only; linking off keeps the old merge', () => {
    const items = [item('a', [entity('Phú Lương')]), item('b', [entity('Phu Luong')])];
    expect(assembleKnowledgeGraph(items).entities.size).toBe(2);
    expect(assembleKnowledgeGraph(items).linking).toBeUndefined();
    const kg = assembleKnowledgeGraph(items, { entityLinking: true });
    expect([...kg.entities.values()].map((e) => [e.name, e.chunkIds])).toEqual([['Phú Lương', ['a', 'b']]]);
  });
});

describe('linkEntities: alias folding', () => {
  it('folds case, diacritics and punctuation (exact link key)', () => {
    const linking = linkEntities([
      item('a', [entity('Phú Lương'), entity('Phu-Luong')]),
      item('b', [entity('Phú Lương'), entity('PHU LUONG'), entity('PhuLuong')]),
    ]);
    // The most frequent spelling names the entity.
    expect(new Set(linking.canonical.values())).toEqual(new Set(['Phú Lương']));
    expect(linking.stats.folded.exact).toBe(3);
    expect(linking.aliases.get('phú lương')).toEqual(['Phu-Luong', 'PHU LUONG', 'PhuLuong']);
  });

  it('names an entity by a spelling with capitals over a more frequent lower-case one', () => {
    const linking = linkEntities([
      item('a', [entity('the harbour suite', 'concept')]),
      item('b', [entity('the harbour suite', 'concept'), entity('Harbour Suite', 'work')]),
    ]);
    expect(linking.resolve('the harbour suite')).toBe('Harbour Suite');
  });

  it('folds a parenthesised disambiguator into the bare name', () => {
    const linking = linkEntities([item('a', [entity('Still Waters (film)'), entity('Still Waters')])]);
    expect(linking.resolve('Still Waters (film)')).toBe('Still Waters');
    expect(linking.stats.folded.disambiguator).toBe(1);
  });

  it('folds initials and shorter forms of a person into the only full name they fit', () => {
    const linking = linkEntities([
      item('a', [entity('Edvin D. MacAlder', 'person')]),
      item('b', [entity('E. D. MacAlder', 'person'), entity('Edvin MacAlder', 'person')]),
      item('c', [entity('E. MacAlder', 'person')]),
    ]);
    for (const alias of ['E. D. MacAlder', 'Edvin MacAlder', 'E. MacAlder']) {
      expect(linking.resolve(alias)).toBe('Edvin D. MacAlder');
    }
    expect(linking.stats.folded['short-name']).toBe(3);
  });

  it('folds a bare surname into the only person with it', () => {
    const linking = linkEntities([
      item('a', [entity('Edvin D. MacAlder', 'person')]),
      item('b', [entity('MacAlder')]),
    ]);
    expect(linking.resolve('MacAlder')).toBe('Edvin D. MacAlder');
    expect(linking.stats.folded.surname).toBe(1);
    // Not a lower-case word, nor a name typed as something else.
    const other = linkEntities([
      item('a', [entity('Linnea Tide', 'person'), entity('Aron Strand', 'person')]),
      item('b', [entity('tide', 'concept'), entity('Strand', 'geo')]),
    ]);
    expect(other.resolve('tide')).toBe('tide');
    expect(other.resolve('Strand')).toBe('Strand');
  });

  it('folds an acronym into the only entity whose initials spell it', () => {
    const linking = linkEntities([
      item('a', [entity('National Basketball Association', 'organization')]),
      item('b', [entity('NBA', 'organization')]),
    ]);
    expect(linking.resolve('NBA')).toBe('National Basketball Association');
    expect(linking.stats.folded.acronym).toBe(1);
  });

  it('folds the bare name of a "Name, Place" title', () => {
    const linking = linkEntities(
      [item('a', [entity('Skarn'), entity('Orsa', 'geo')]), item('b', [entity('Skarn')])],
      { titles: { b: 'Skarn, Orsa' } },
    );
    expect(linking.resolve('Skarn')).toBe('Skarn, Orsa');
  });

  it('drops relations whose two ends became one entity, and counts them', () => {
    const kg = assembleKnowledgeGraph(
      [
        item(
          'a',
          [entity('Edvin D. MacAlder', 'person'), entity('MacAlder'), entity('Port Halvard', 'geo')],
          [relation('MacAlder', 'Edvin D. MacAlder'), relation('MacAlder', 'Port Halvard')],
        ),
      ],
      { entityLinking: true },
    );
    expect([...kg.relations.values()].map((r) => [r.source, r.target])).toEqual([
      ['edvin d. macalder', 'port halvard'],
    ]);
    expect(kg.linking?.stats.selfRelations).toBe(1);
    expect(kg.skipped).toEqual([]);
  });
});

describe('linkEntities: ambiguous aliases stay separate and are counted', () => {
  it('a surname or short name of two people', () => {
    const linking = linkEntities([
      item('a', [entity('John Smith', 'person'), entity('Jane Smith', 'person')]),
      item('b', [entity('Smith'), entity('J. Smith', 'person')]),
    ]);
    expect(linking.resolve('Smith')).toBe('Smith');
    expect(linking.resolve('J. Smith')).toBe('J. Smith');
    expect(linking.stats.ambiguous.surname).toBe(1);
    expect(linking.stats.ambiguous.shortName).toBe(1);
  });

  it('two titles that differ only by disambiguator', () => {
    const linking = linkEntities([item('x', [entity('Mercury')])], {
      titles: { p: 'Mercury (planet)', e: 'Mercury (element)' },
    });
    expect(linking.resolve('Mercury')).toBe('Mercury');
    expect(linking.titleEntities.get('p')).toBe('Mercury (planet)');
    expect(linking.titleEntities.get('e')).toBe('Mercury (element)');
    expect(linking.stats.ambiguous.disambiguator).toBe(1);
  });

  it('an acronym of two entities', () => {
    const linking = linkEntities([
      item('a', [
        entity('American Airlines', 'organization'),
        entity('Alcoholics Anonymous', 'organization'),
      ]),
      item('b', [entity('AA', 'organization')]),
    ]);
    expect(linking.resolve('AA')).toBe('AA');
    expect(linking.stats.ambiguous.acronym).toBe(1);
  });
});

describe('KnowledgeGraphBuilder with entityLinking', () => {
  it('links in build(), like assembleKnowledgeGraph', () => {
    const builder = new KnowledgeGraphBuilder({ entityLinking: { titles: { d: 'Ada Lovelace' } } });
    builder.addExtraction({ entities: [entity('Lovelace')], relations: [] }, { chunkId: 'c1', docId: 'd' });
    builder.addExtraction(
      { entities: [entity('Ada Lovelace', 'person')], relations: [] },
      { chunkId: 'c2', docId: 'e', text: 'Ada Lovelace wrote notes.' },
    );
    const kg = builder.build();
    expect([...kg.entities.values()].map((e) => [e.name, e.chunkIds])).toEqual([
      ['Ada Lovelace', ['c1', 'c2']],
    ]);
  });
});

describe('EntityVocabulary', () => {
  const vocabulary = new EntityVocabulary([
    'Military Museum of Phú Lương',
    'Military Museum',
    'Phu Luong',
    'Paris',
    'drama film',
    ['NBA', 'National Basketball Association'],
  ]);

  it('matches the longest name over folded words, left to right, in any case', () => {
    const query = 'Who founded the military museum of Phu Luong, near Paris?';
    expect(vocabulary.match(query)).toEqual([
      { name: 'Military Museum of Phú Lương', text: 'military museum of Phu Luong', start: 16, end: 44 },
      { name: 'Paris', text: 'Paris', start: 51, end: 56 },
    ]);
  });

  it('matches a one-word name only when capitalised (or written lower-case in the vocabulary)', () => {
    expect(vocabulary.match('plaster of paris').map((m) => m.name)).toEqual([]);
    expect(vocabulary.match('which drama film won?').map((m) => m.name)).toEqual(['drama film']);
    expect(vocabulary.match('Is NBA old?').map((m) => m.name)).toEqual(['National Basketball Association']);
  });

  it('builds from a knowledge graph with its aliases', () => {
    const kg = assembleKnowledgeGraph(
      [item('a', [entity('Edvin D. MacAlder', 'person')]), item('b', [entity('MacAlder')])],
      { entityLinking: true },
    );
    const fromKg = EntityVocabulary.fromEntities(kg.entities.values(), kg.linking?.aliases);
    expect(fromKg.match('Where was MacAlder born?').map((m) => m.name)).toEqual(['Edvin D. MacAlder']);
    expect(fromKg.get('edvin d macalder')).toBe('Edvin D. MacAlder');
  });

  it('gives its entries, from which fromEntries makes a vocabulary that matches alike', () => {
    const entries = vocabulary.entries();
    expect(entries).toHaveLength(vocabulary.size);
    expect(entries).toContainEqual({ key: 'nba', name: 'National Basketball Association', lower: false });
    expect(entries).toContainEqual({ key: 'drama film', name: 'drama film', lower: true });
    const back = EntityVocabulary.fromEntries(entries);
    expect(back.size).toBe(vocabulary.size);
    expect(back.entries()).toEqual(entries);
    for (const query of [
      'Who founded the military museum of Phu Luong, near Paris?',
      'plaster of paris',
      'which drama film won?',
      'Is NBA old?',
    ]) {
      expect(back.match(query)).toEqual(vocabulary.match(query));
    }
    expect(() => EntityVocabulary.fromEntries([...entries, entries[0]!])).toThrow(/repeats/);
    expect(() => EntityVocabulary.fromEntries([{ key: '', name: 'x', lower: true }])).toThrow(/not a key/);
  });

  it('withVocabularyMatches puts the matches first and drops what they cover', () => {
    expect(
      withVocabularyMatches(
        'Who founded the military museum of Phu Luong?',
        ['Phu Luong', 'museum', 'founder'],
        vocabulary,
      ),
    ).toEqual(['Military Museum of Phú Lương', 'founder']);
    expect(withVocabularyMatches('x', ['a'], undefined)).toEqual(['a']);
  });
});
