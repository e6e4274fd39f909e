import type { Retrieval } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { retrievalJson } from '../src/query.js';

function retrieval(subgraph: Record<string, unknown> | undefined, trace: Record<string, unknown>): Retrieval {
  return {
    context: 'c',
    tokens: 1,
    items: [],
    ...(subgraph ? { subgraph: subgraph as unknown as Retrieval['subgraph'] } : {}),
    trace,
  };
}

describe('retrievalJson', () => {
  const subgraph = { nodes: ['entity:a', 'entity:b', 'chunk:x'], edges: [['entity:a', 'chunk:x']] };

  it("reads entry points from the trace's seeds, matching ids to entity: nodes, in order and once", () => {
    const json = retrievalJson(retrieval(subgraph, { seeds: ['b', 'zzz', 'a', 'b'] }));
    expect(json.entryPoints).toEqual(['entity:b', 'entity:a']);
  });

  it("prefers the subgraph's own entry points, and keeps no key it gave out of the subgraph", () => {
    const json = retrievalJson(retrieval({ ...subgraph, entryPoints: ['chunk:x'] }, { seeds: ['a'] }));
    expect(json.entryPoints).toEqual(['chunk:x']);
    expect(json.subgraph).toEqual(subgraph);
  });

  it('has no entry points when nothing the method names is a node, nor without a subgraph', () => {
    expect(
      retrievalJson(retrieval(subgraph, { entryPoints: 'hybrid', queryEntities: ['q'] })).entryPoints,
    ).toBeUndefined();
    const bare = retrievalJson(retrieval(undefined, { seeds: ['a'] }));
    expect(bare).toEqual({ context: 'c', tokens: 1, items: [], trace: { seeds: ['a'] } });
  });
});
