import type { QueryGraph } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { createOfflineProviders } from '@grag/offline';
import { describe, expect, it } from 'vitest';
import { createSgRag, type SgRagIndex, type Triple } from '../src/index.js';
import { T } from './helpers.js';

// A hand-made film graph. Heat: De Niro, Pacino, Mann, crime. Ronin: De Niro, Reno, crime.
// Alien: Weaver, Scott, science fiction.
const triples: Triple[] = [
  T('heat', 'starring', 'deniro'),
  T('heat', 'starring', 'pacino'),
  T('heat', 'directed by', 'mann'),
  T('heat', 'genre', 'crime'),
  T('ronin', 'starring', 'deniro'),
  T('ronin', 'starring', 'reno'),
  T('ronin', 'genre', 'crime'),
  T('alien', 'starring', 'weaver'),
  T('alien', 'directed by', 'scott'),
  T('alien', 'genre', 'scifi'),
  T('pacino', 'born in', 'new york'),
  T('deniro', 'born in', 'new york'),
];
const entityText = {
  heat: 'Heat',
  ronin: 'Ronin',
  alien: 'Alien',
  deniro: 'Robert De Niro',
  pacino: 'Al Pacino',
  mann: 'Michael Mann',
  reno: 'Jean Reno',
  weaver: 'Sigourney Weaver',
  scott: 'Ridley Scott',
  crime: 'Crime film',
  scifi: 'Science fiction',
  'new york': 'New York City',
};

/** A query graph: `X` is the unknown target; each constraint is `[entity label, relation]`. */
function starQuery(constraints: [string, string][], extraUnknown?: [string, string][]): QueryGraph {
  const nodes: QueryGraph['nodes'] = [{ id: 'X', label: null, isTarget: true }];
  const edges: QueryGraph['edges'] = [];
  constraints.forEach(([label, relation], i) => {
    nodes.push({ id: `c${i}`, label, isTarget: false });
    edges.push({ source: 'X', target: `c${i}`, relation });
  });
  if (extraUnknown) {
    nodes.push({ id: 'Y', label: null, isTarget: true });
    extraUnknown.forEach(([label, relation]) => {
      const id = nodes.find((n) => n.label === label)?.id ?? `y${nodes.length}`;
      if (!nodes.some((n) => n.id === id)) nodes.push({ id, label, isTarget: false });
      edges.push({ source: 'Y', target: id, relation });
    });
  }
  return { nodes, edges, issues: [] };
}

async function build(pathLength: 1 | 2 = 1): Promise<SgRagIndex> {
  const ctx = createBuildContext({
    embedder: createScriptedEmbedder(),
    tasks: createOfflineProviders().tasks,
  });
  return createSgRag().build([], ctx, { triples, entityText, pathLength });
}

const answersOf = (r: { trace: Record<string, unknown> }) => [...(r.trace.answers as string[])].sort();

describe('sg-rag on a hand-made film graph', () => {
  it('answers an exact multi-constraint question with exactly the satisfying entity', async () => {
    const index = await build();
    const sg = createSgRag();
    const r = await sg.retrieve(index, 'Which crime film by Michael Mann stars Robert De Niro?', {
      queryGraph: starQuery([
        ['Robert De Niro', 'starring'],
        ['Michael Mann', 'directed by'],
        ['Crime film', 'genre'],
      ]),
    });
    expect(r.trace.fallback).toBe(false);
    expect(answersOf(r)).toEqual(['Heat']);
    expect(r.items).toHaveLength(1);
    expect(r.items[0]!.kind).toBe('subgraph');
    expect(r.items[0]!.text).toContain('Heat is related to Michael Mann via: directed by.');
    expect(new Set(r.subgraph!.nodes)).toEqual(new Set(['heat', 'deniro', 'mann', 'crime']));
    expect(r.subgraph!.edges).toHaveLength(3);
  });

  it('returns both entities when two satisfy every constraint', async () => {
    const index = await build();
    const r = await createSgRag().retrieve(index, 'Which crime films star Robert De Niro?', {
      queryGraph: starQuery([
        ['Robert De Niro', 'starring'],
        ['Crime film', 'genre'],
      ]),
    });
    expect(answersOf(r)).toEqual(['Heat', 'Ronin']);
    expect(r.items).toHaveLength(2);
  });

  it('falls back to the one-hop neighbourhood when no subgraph satisfies the question', async () => {
    const index = await build();
    const r = await createSgRag().retrieve(index, 'Which film by Michael Mann stars Sigourney Weaver?', {
      queryGraph: starQuery([
        ['Sigourney Weaver', 'starring'],
        ['Michael Mann', 'directed by'],
      ]),
    });
    expect(r.trace.fallback).toBe(true);
    // One hop around Weaver (Alien) and Mann (Heat): exactly those two facts.
    expect(r.items.map((i) => i.kind)).toEqual(['relation', 'relation']);
    expect(new Set(r.subgraph!.edges.map((e) => [...e].sort().join('-')))).toEqual(
      new Set(['alien-weaver', 'heat-mann']),
    );
  });

  it('never maps two query nodes to one data node', async () => {
    const index = await build();
    const sg = createSgRag();
    // X and Y both star De Niro and are crime films: (Heat, Ronin) and (Ronin, Heat), never X = Y.
    const both = await sg.retrieve(index, 'Which two crime films star De Niro?', {
      queryGraph: starQuery(
        [
          ['Robert De Niro', 'starring'],
          ['Crime film', 'genre'],
        ],
        [
          ['Robert De Niro', 'starring'],
          ['Crime film', 'genre'],
        ],
      ),
    });
    const bindings = both.trace.bindings as Record<string, string>[];
    expect(bindings.map((b) => `${b.X}/${b.Y}`).sort()).toEqual(['heat/ronin', 'ronin/heat']);
    // Only Heat is directed by Mann: X = Y = Heat is the only homomorphism, and it is rejected.
    const one = await sg.retrieve(index, 'Which two films did Michael Mann direct?', {
      queryGraph: starQuery([['Michael Mann', 'directed by']], [['Michael Mann', 'directed by']]),
    });
    expect(one.trace.fallback).toBe(true);
    // Two known query nodes that normalize to one data node (De Niro twice) are rejected too.
    const twice = await sg.retrieve(index, 'q', {
      queryGraph: starQuery([
        ['Robert De Niro', 'starring'],
        ['robert de niro', 'starring'],
      ]),
    });
    // (The dominance filter already rejects it: X's query star has De Niro twice, no data star does.)
    expect(twice.trace.fallback).toBe(true);
  });

  it('agrees with a brute-force oracle on random graphs and star questions', async () => {
    let seed = 7;
    const rand = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const n = 30;
    const random: Triple[] = [];
    const adj = Array.from({ length: n }, () => new Set<number>());
    while (random.length < 90) {
      const a = Math.floor(rand() * n);
      const b = Math.floor(rand() * n);
      if (a === b || adj[a]!.has(b)) continue;
      adj[a]!.add(b);
      adj[b]!.add(a);
      random.push(T(`e${a}`, 'r', `e${b}`));
    }
    const text = Object.fromEntries(Array.from({ length: n }, (_, i) => [`e${i}`, `entity ${i}`]));
    const ctx = createBuildContext({
      embedder: createScriptedEmbedder(),
      tasks: createOfflineProviders().tasks,
    });
    const sg = createSgRag();
    for (const pathLength of [1, 2] as const) {
      const index = await sg.build([], ctx, { triples: random, entityText: text, pathLength });
      let checked = 0;
      for (let v = 0; v < n && checked < 12; v++) {
        const ns = [...adj[v]!];
        if (ns.length < 2) continue;
        const constraints = ns.slice(0, 2 + (v % 2));
        checked++;
        // Oracle: every node adjacent to all constraint nodes, other than them.
        const oracle = Array.from({ length: n }, (_, x) => x)
          .filter((x) => !constraints.includes(x) && constraints.every((c) => adj[c]!.has(x)))
          .map((x) => `entity ${x}`)
          .sort();
        const r = await sg.retrieve(index, 'q', {
          queryGraph: starQuery(constraints.map((c) => [`entity ${c}`, 'r'])),
        });
        expect(answersOf(r)).toEqual(oracle);
        expect(r.trace.fallback).toBe(false);
      }
      expect(checked).toBe(12);
    }
  });

  it('normalizes a query entity to the most similar node label and reports the similarity', async () => {
    const index = await build();
    const r = await createSgRag().retrieve(index, 'Which film stars De Niro and Jean Reno?', {
      queryGraph: starQuery([
        ['De Niro', 'starring'],
        ['Jean Reno', 'starring'],
      ]),
    });
    const norm = r.trace.normalization as {
      label: string;
      node: string;
      similarity: number;
      exact: boolean;
    }[];
    const deNiro = norm.find((n) => n.label === 'De Niro')!;
    expect(deNiro.node).toBe('deniro');
    expect(deNiro.exact).toBe(false);
    expect(deNiro.similarity).toBeGreaterThan(0);
    expect(deNiro.similarity).toBeLessThan(1);
    expect(answersOf(r)).toEqual(['Ronin']);
  });

  it('ignores a query node that sits on no edge', async () => {
    const index = await build();
    const queryGraph = starQuery([
      ['Robert De Niro', 'starring'],
      ['Jean Reno', 'starring'],
    ]);
    queryGraph.nodes.push({ id: 'lone', label: 'Ridley Scott', isTarget: false });
    const r = await createSgRag().retrieve(index, 'q', { queryGraph });
    expect(answersOf(r)).toEqual(['Ronin']);
    expect(r.trace.bindings).toEqual([{ X: 'ronin', c0: 'deniro', c1: 'reno' }]);
  });

  it('matches two-edge paths the same way as one-edge paths', async () => {
    const index = await build(2);
    const r = await createSgRag().retrieve(index, 'Which crime film by Michael Mann stars Robert De Niro?', {
      queryGraph: starQuery([
        ['Robert De Niro', 'starring'],
        ['Michael Mann', 'directed by'],
        ['Crime film', 'genre'],
      ]),
    });
    expect(answersOf(r)).toEqual(['Heat']);
    // A bridge: the unknown X stars someone (unknown Y) born in New York, and X is directed by Mann.
    const bridge = await createSgRag().retrieve(index, 'q', {
      queryGraph: {
        nodes: [
          { id: 'X', label: null, isTarget: true },
          { id: 'Y', label: null, isTarget: false },
          { id: 'ny', label: 'New York City', isTarget: false },
          { id: 'm', label: 'Michael Mann', isTarget: false },
        ],
        edges: [
          { source: 'X', target: 'Y', relation: 'starring' },
          { source: 'Y', target: 'ny', relation: 'born in' },
          { source: 'X', target: 'm', relation: 'directed by' },
        ],
        issues: [],
      },
    });
    expect(answersOf(bridge)).toEqual(['Heat']);
    expect((bridge.trace.bindings as Record<string, string>[]).map((b) => b.Y).sort()).toEqual([
      'deniro',
      'pacino',
    ]);
  });

  it('checks relation labels and direction only when asked', async () => {
    const index = await build();
    const sg = createSgRag();
    // De Niro "directed by" Heat: structure matches, the relation does not.
    const qg = starQuery([['Robert De Niro', 'directed by']]);
    expect(answersOf(await sg.retrieve(index, 'q', { queryGraph: qg }))).toEqual([
      'Heat',
      'New York City',
      'Ronin',
    ]);
    const strict = await sg.retrieve(index, 'q', { queryGraph: qg, matchRelations: true });
    expect(strict.trace.fallback).toBe(true);
    const right = await sg.retrieve(index, 'q', {
      queryGraph: starQuery([['Robert De Niro', 'starring']]),
      matchRelations: true,
    });
    expect(answersOf(right)).toEqual(['Heat', 'Ronin']);
  });

  it('runs the Table 3 baselines: entities, one hop and two hops', async () => {
    const index = await build();
    const sg = createSgRag();
    const queryGraph = starQuery([['Michael Mann', 'directed by']]);
    const entity = await sg.retrieve(index, 'q', { queryGraph, mode: 'entity' });
    expect(entity.items.map((i) => i.text)).toEqual(['Michael Mann']);
    const one = await sg.retrieve(index, 'q', { queryGraph, mode: 'one-hop' });
    expect(one.items).toHaveLength(1);
    const two = await sg.retrieve(index, 'q', { queryGraph, mode: 'two-hop' });
    // Mann – Heat, then Heat's four other facts (De Niro, Pacino, crime, and Mann already counted).
    expect(two.items).toHaveLength(4);
    expect(two.trace.fallback).toBe(false);
  });

  it('extracts the query graph with the core task when none is given', async () => {
    const chat = createScriptedChatModel([
      JSON.stringify({
        nodes: [
          { id: 'x', label: 'UNK', target: true },
          { id: 'a', label: 'Robert De Niro' },
          { id: 'b', label: 'Jean Reno' },
        ],
        edges: [
          { source: 'x', target: 'a', relation: 'starring' },
          { source: 'x', target: 'b', relation: 'starring' },
        ],
      }),
    ]);
    const ctx = createBuildContext({ embedder: createScriptedEmbedder(), tasks: createPromptTasks(chat) });
    const sg = createSgRag();
    const index = await sg.build([], ctx, { triples, entityText });
    const r = await sg.retrieve(index, 'Which film stars Robert De Niro and Jean Reno?');
    expect(chat.calls).toHaveLength(1);
    expect(JSON.stringify(chat.calls[0])).toContain('Which film stars Robert De Niro and Jean Reno?');
    expect(answersOf(r)).toEqual(['Ronin']);
  });
});
