import type { Tokenizer } from '@grag/core';
import { createBuildContext, flatIndexFactory, getTokenizer } from '@grag/core/kit';
import { createScriptedEmbedder } from '@grag/core/test';
import { createOfflineTasks } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import {
  countSubChunks,
  renderedEntity,
  renderedRelation,
  renderedSubChunk,
  retrievalTokenizer,
} from '../src/counts.js';
import { createKetRag } from '../src/index.js';
import { CORPUS } from './corpus.js';

const base = getTokenizer('cl100k_base');
const subChunks = [{ id: 'a/0' }, { id: 'a/1' }, { id: 'b/0' }];
const texts = [
  'Alpha\nThe first line, ending.',
  'Alpha\nSecond: 1881 —',
  'Beta\nTwo paragraphs.\n\nThe second, with trailing space.  ',
];

/** `base`, counting every call (what the retrieval tokenizer leaves to it). */
function spy(): Tokenizer & { calls: string[] } {
  const calls: string[] = [];
  return {
    ...base,
    name: base.name,
    additiveAfterBlankLine: true,
    calls,
    count: (text) => {
      calls.push(text);
      return base.count(text);
    },
    encode: (t) => base.encode(t),
    decode: (t) => base.decode(t),
    truncate: (t, n) => base.truncate(t, n),
  };
}

describe('retrievalTokenizer', () => {
  const counts = countSubChunks(base, subChunks, texts);
  const items = subChunks.map((s, i) => renderedSubChunk(s.id, texts[i]!));

  it('counts the sub-chunks at build time as the tokenizer does', () => {
    expect([...counts.text]).toEqual(texts.map((t) => base.count(t)));
    expect([...counts.item]).toEqual(items.map((t) => base.count(t)));
    expect([...counts.itemWithBlankLine]).toEqual(items.map((t) => base.count(`${t}\n\n`)));
  });

  it('answers a rendered sub-chunk, alone or followed by a blank line, from the stored counts', () => {
    const inner = spy();
    const t = retrievalTokenizer(inner, subChunks, texts, counts);
    for (const item of items) {
      expect(t.count(item)).toBe(base.count(item));
      expect(t.count(`${item}\n\n`)).toBe(base.count(`${item}\n\n`));
    }
    expect(inner.calls).toEqual([]);
    // Near misses are counted by the tokenizer.
    for (const text of [`${items[0]}x`, `${items[0]}\n`, `[a/0] ${texts[1]}`, '[zz] text', '[a/0]']) {
      expect(t.count(text)).toBe(base.count(text));
    }
    expect(inner.calls).toHaveLength(5);
  });

  it('counts a context packed from sub-chunks from their stored counts alone', () => {
    const inner = spy();
    const t = retrievalTokenizer(inner, subChunks, texts, counts);
    const context = [items[2], items[0], items[1]].join('\n\n');
    expect(t.count(context)).toBe(base.count(context));
    expect(t.count(`${context}\n\n`)).toBe(base.count(`${context}\n\n`));
    expect(inner.calls).toEqual([]);
  });

  it('counts any text exactly as the sum of its paragraphs', () => {
    const t = retrievalTokenizer(spy(), subChunks, texts, counts);
    const samples = [
      '',
      'one paragraph only',
      `${items.join('\n\n')}`,
      `(entity) X: a description.\n\n(relation) X -> Y.\n\n${items[1]}`,
      'ends with a blank line\n\n',
      'three newlines\n\n\nthen text',
      'blank then space\n\n indented\n\nnext',
      'punctuation.\n\n!bang\n\n1881\n\n—dash',
      '\n\nleading blank line',
      'emoji 🎉\n\n🎉 after',
      `${items[0]}\n\n[a/1] not the sub-chunk\n\n(paragraph) in brackets\n\n${items[2]}`,
    ];
    for (const text of samples) expect(t.count(text)).toBe(base.count(text));
  });

  it('without stored counts, or for a tokenizer whose counts do not add up, still counts exactly', () => {
    const plain = retrievalTokenizer(base, subChunks, texts, undefined);
    const text = `${items[0]}\n\n${items[2]}`;
    expect(plain.count(text)).toBe(base.count(text));
    const inner = spy();
    const notAdditive = retrievalTokenizer(
      { ...inner, additiveAfterBlankLine: false },
      subChunks,
      texts,
      counts,
    );
    expect(notAdditive.count(text)).toBe(base.count(text));
    expect(inner.calls).toEqual([text]);
  });
});

describe('retrievalTokenizer over a built index', () => {
  it("answers the skeleton's entities and relationships as local search writes them from the counts stored at build", async () => {
    const ctx = createBuildContext({
      embedder: createScriptedEmbedder({ dimensions: 16 }),
      tasks: createOfflineTasks(),
      vectorIndex: flatIndexFactory,
    });
    const index = await createKetRag().build(CORPUS, ctx, { chunking: 'document', preset: 'offline' });
    const graph = index.skeleton!.graph;
    expect(index.counts?.graph?.relation.length).toBe(graph.relationships.length);
    const inner = spy();
    const t = retrievalTokenizer(inner, index.subChunks, index.subChunkTexts, index.counts, graph);
    const rendered = [
      ...graph.entities.map((_, i) => renderedEntity(graph, i)),
      ...graph.relationships.map((_, i) => renderedRelation(graph, i)),
    ];
    expect(rendered.length).toBeGreaterThan(10);
    for (const text of rendered) {
      expect(t.count(text)).toBe(base.count(text));
      expect(t.count(`${text}\n\n`)).toBe(base.count(`${text}\n\n`));
    }
    const context = rendered.join('\n\n');
    expect(t.count(context)).toBe(base.count(context));
    expect(inner.calls).toEqual([]);
    // A retrieval counts with it and gets what the plain tokenizer gives.
    const r = await createKetRag().retrieve(index, 'Who founded the Kessler Shipyard?', {
      budgetTokens: 400,
    });
    expect(r.tokens).toBe(base.count(r.context));
  });
});
