import { InvalidArgumentError, type Method } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { parseSetOptions } from '../src/cli.js';
import { optionsFor } from '../src/eval-command.js';
import type { MethodEntry } from '../src/registry.js';

describe('--set values', () => {
  it('converts booleans, null, numbers and lists as written, and keeps other strings', () => {
    expect(
      parseSetOptions([
        'a=true',
        'b=false',
        'c=null',
        'd=600',
        'e=0.5',
        'f=document',
        'g=[person,place]',
        'h=person,place',
        'i=[]',
        'j=[geo]',
        'k=[1, 2,null]',
        'l=',
      ]),
    ).toEqual({
      a: true,
      b: false,
      c: null,
      d: 600,
      e: 0.5,
      f: 'document',
      g: ['person', 'place'],
      h: ['person', 'place'],
      i: [],
      j: ['geo'],
      k: [1, 2, null],
      l: '',
    });
  });

  it('refuses a pair without a key', () => {
    expect(() => parseSetOptions(['=3'])).toThrow(InvalidArgumentError);
  });
});

function entry(name: string, build: string[], retrieve: string[], retrieveDefaults?: string[]): MethodEntry {
  return {
    name,
    description: name,
    usesEmbedder: false,
    method: {
      name,
      optionKeys: { build, retrieve, ...(retrieveDefaults ? { retrieveDefaults } : {}) },
    } as unknown as Method<unknown>,
  };
}

describe('eval option routing', () => {
  const a = entry('a', ['chunkSize', 'similarityLayer'], ['budgetTokens', 'graphSearch', 'similarityLayer']);
  const b = entry('b', ['k1'], ['budgetTokens']);

  it('sends build keys to build, retrieve keys to retrieve, and keys of both to both', () => {
    const options = { chunkSize: 300, graphSearch: false, similarityLayer: false, k1: 1.2 };
    expect(optionsFor(a, options, [a, b])).toEqual({
      build: { chunkSize: 300, similarityLayer: false },
      retrieve: { graphSearch: false, similarityLayer: false },
    });
    expect(optionsFor(b, options, [a, b])).toEqual({ build: { k1: 1.2 }, retrieve: {} });
  });

  it("sends a key of both that build only keeps as retrieve's default to retrieve alone", () => {
    const c = entry('c', ['chunkSize', 'topK', 'layer'], ['budgetTokens', 'topK', 'layer'], ['topK']);
    expect(optionsFor(c, { chunkSize: 300, topK: 40, layer: false }, [c])).toEqual({
      build: { chunkSize: 300, layer: false },
      retrieve: { topK: 40, layer: false },
    });
  });

  it('refuses a key no method of the run knows, suggesting the closest', () => {
    expect(() => optionsFor(a, { graphSerch: false }, [a, b])).toThrow(/did you mean "graphSearch"/);
  });
});
