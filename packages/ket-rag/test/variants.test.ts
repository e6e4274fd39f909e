import { InvalidArgumentError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import {
  KET_RAG_DEFAULTS,
  KET_RAG_VARIANT_PRESETS,
  KET_RAG_VARIANTS,
  parseKetRagVariant,
  resolveKetRagOptions,
} from '../src/index.js';

describe('KET-RAG variants', () => {
  it('lists the eight solutions of KET-RAG §6.1 implemented in the framework', () => {
    expect([...KET_RAG_VARIANTS].sort()).toEqual(
      [
        'hybrid-rag',
        'ket-rag-p',
        'ket-rag-u',
        'keyword-rag',
        'knng-rag',
        'ms-graph-rag',
        'skeleton-rag',
        'text-rag',
      ].sort(),
    );
  });

  it('sets β, λ, the selection and the text channel as the paper defines each solution', () => {
    const p = KET_RAG_VARIANT_PRESETS;
    expect(p['ms-graph-rag']).toMatchObject({ beta: 1, lambda: 1, textChannel: 'none' });
    expect(p['keyword-rag']).toMatchObject({ beta: 0, lambda: 0, textChannel: 'keyword' });
    expect(p['skeleton-rag']).toMatchObject({ beta: 0.8, coreSelection: 'pagerank', textChannel: 'none' });
    expect(p['hybrid-rag']).toMatchObject({ beta: 1, lambda: 0.5, textChannel: 'dense' });
    expect(p['ket-rag-p']).toMatchObject({ beta: 0.8, coreSelection: 'pagerank', lambda: 0.5 });
    expect(p['ket-rag-u']).toMatchObject({ beta: 0.8, coreSelection: 'uniform', lambda: 0.5 });
    expect(p['text-rag']).toMatchObject({ beta: 0, textChannel: 'dense' });
    expect(p['knng-rag']).toMatchObject({ beta: 0, textChannel: 'knn' });
  });

  it('defaults to KET-RAG-P with the paper’s and the official code’s parameters', () => {
    expect(KET_RAG_DEFAULTS).toMatchObject({
      variant: 'ket-rag-p',
      chunkSize: 1200,
      overlap: 100,
      subChunkSize: 150,
      lexicalK: 1,
      semanticK: 1,
      beta: 0.8,
      damping: 0.85,
      lambda: 0.5,
      topKEntities: 10,
      collectFactor: 2,
    });
  });

  it('applies the variant preset, then explicit options', () => {
    expect(resolveKetRagOptions({ variant: 'ms-graph-rag' })).toMatchObject({ beta: 1, lambda: 1 });
    expect(resolveKetRagOptions({ variant: 'ket-rag-u', beta: 0.4 })).toMatchObject({
      beta: 0.4,
      coreSelection: 'uniform',
    });
    // A later layer's variant wins; earlier explicit options still apply on top of its preset.
    expect(
      resolveKetRagOptions({ variant: 'text-rag', lambda: 0.3 }, { variant: 'ket-rag-p' }),
    ).toMatchObject({
      variant: 'ket-rag-p',
      lambda: 0.3,
      beta: 0.8,
    });
  });

  it('parses variant names leniently and rejects unknown ones', () => {
    expect(parseKetRagVariant('KET_RAG_P')).toBe('ket-rag-p');
    expect(parseKetRagVariant(' Keyword-RAG ')).toBe('keyword-rag');
    expect(() => parseKetRagVariant('graph-rag')).toThrow(InvalidArgumentError);
    expect(() => resolveKetRagOptions({ beta: 2 })).toThrow(InvalidArgumentError);
    expect(() => resolveKetRagOptions({ textChannel: 'bm25' as never })).toThrow(InvalidArgumentError);
  });
});
