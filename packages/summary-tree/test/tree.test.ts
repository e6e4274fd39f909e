import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbortError, type Chunk, IndexFormatError, InvalidArgumentError } from '@grag/core';
import { chunkDocument, cosineSimilarity, flatIndexFactory } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { describe, expect, test } from 'vitest';
import {
  buildSummaryTree,
  coveredLeaves,
  embedSummaryTree,
  indexSummaryTree,
  joinLeafTexts,
  leavesFromChunks,
  loadSummaryTree,
  type SummaryGroup,
  type SummaryLevelRunner,
  type SummaryTreeLeaf,
  saveSummaryTree,
  searchCollapsedTree,
  subtreeWeights,
  summaryCount,
  summaryTreeShape,
  validateSummaryTree,
} from '../src/index.js';

const leaves = (n: number): SummaryTreeLeaf[] =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, text: `chunk number ${i}.` }));

/** A summarizer that names its inputs: the summary of [a, b] is "(a|b)". */
const naming = {
  async summarize(texts: string[]): Promise<string> {
    return `(${texts.join('|')})`;
  },
};

/** Prompt tasks on a scripted model that counts its calls and answers "summary <n>". */
function countingTasks() {
  const model = createScriptedChatModel((_call, i) => `summary ${i + 1}`);
  return { model, tasks: createPromptTasks(model) };
}

describe('buildSummaryTree', () => {
  test('groups 12 leaves by 5 into 3 summaries and stops, since 3 <= 1.2 * 5', async () => {
    const tree = await buildSummaryTree(leaves(12), naming);
    expect(tree.levels).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      [12, 13, 14],
    ]);
    expect(tree.nodes.slice(12).map((n) => n.children)).toEqual([
      [0, 1, 2, 3, 4],
      [5, 6, 7, 8, 9],
      [10, 11],
    ]);
    expect(tree.nodes.slice(12).map((n) => [n.id, n.level, n.parent, n.firstLeaf, n.lastLeaf])).toEqual([
      ['summary:1:0', 1, -1, 0, 4],
      ['summary:1:1', 1, -1, 5, 9],
      ['summary:1:2', 1, -1, 10, 11],
    ]);
    expect(tree.nodes.slice(0, 12).map((n) => n.parent)).toEqual([
      12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 14, 14,
    ]);
    expect(tree.nodes[14]!.text).toBe('(chunk number 10.|chunk number 11.)');
  });

  test('recurses while a level has more than 6 nodes: 40 leaves give levels of 8 and then 2', async () => {
    const tree = await buildSummaryTree(leaves(40), naming);
    expect(tree.levels.map((l) => l.length)).toEqual([40, 8, 2]);
    const top = tree.levels[2]!.map((i) => tree.nodes[i]!);
    expect(top.map((n) => [n.firstLeaf, n.lastLeaf])).toEqual([
      [0, 24],
      [25, 39],
    ]);
    expect(top[1]!.children.map((c) => tree.nodes[c]!.id)).toEqual([
      'summary:1:5',
      'summary:1:6',
      'summary:1:7',
    ]);
  });

  test('summarizes the texts of the summaries below, never their ids', async () => {
    const { model, tasks } = countingTasks();
    await buildSummaryTree(leaves(35), tasks, { concurrency: 1 });
    // 7 summaries of leaves, then 2 of summaries.
    expect(model.calls).toHaveLength(9);
    const upper = model.calls[7]!.messages.at(-1)!.content;
    for (const n of [1, 2, 3, 4, 5]) expect(upper).toContain(`summary ${n}`);
    expect(upper).not.toContain('summary:1:');
    expect(model.calls[8]!.messages.at(-1)!.content).toContain('summary 7');
  });

  test('drops the overlap of consecutive chunks when summarizing them together', async () => {
    const text = Array.from({ length: 300 }, (_, i) => `Sentence ${i} tells of ship ${i % 7}.`).join(' ');
    const chunks = chunkDocument({ id: 'doc', text }, { chunkSize: 200, overlap: 40 });
    expect(chunks.length).toBeGreaterThan(5);
    const seen: string[][] = [];
    await buildSummaryTree(leavesFromChunks(chunks), {
      async summarize(texts) {
        seen.push(texts);
        return 'x';
      },
    });
    // The first group is one continuous passage: exactly the document from chunk 0's start to chunk 4's end.
    expect(seen[0]).toEqual([text.slice(chunks[0]!.start, chunks[4]!.end)]);
    // The second group starts a new passage with its first chunk whole (its overlap was with chunk 4).
    expect(seen[1]![0]!.startsWith(chunks[5]!.text)).toBe(true);
  });

  test('keeps chunks of different documents as separate passages and writes a title once per document', () => {
    const chunks: Chunk[] = [
      { id: 'a#0', docId: 'a', order: 0, text: 'alpha one', tokens: 2, start: 0, end: 9 },
      { id: 'a#1', docId: 'a', order: 1, text: 'one two', tokens: 2, start: 6, end: 13 },
      { id: 'b#0', docId: 'b', order: 0, text: 'beta', tokens: 1, start: 0, end: 4 },
    ];
    const l = leavesFromChunks(chunks, { titles: new Map([['a', 'Alpha']]) });
    expect(l.map((x) => [x.text, x.overlapChars])).toEqual([
      ['Alpha\nalpha one', undefined],
      ['one two', 3],
      ['beta', undefined],
    ]);
    expect(joinLeafTexts(l)).toEqual(['Alpha\nalpha one two', 'beta']);
  });

  test("keeps each chunk's source-file location on its leaf and leaf node, through validation", async () => {
    const p3 = { path: 'report.pdf', page: 3 };
    const chunks: Chunk[] = [
      { id: 'r#0', docId: 'r', order: 0, text: 'page two', tokens: 2, start: 0, end: 8 },
      { id: 'r#1', docId: 'r', order: 1, text: 'page three', tokens: 2, start: 10, end: 20, location: p3 },
    ];
    const l = leavesFromChunks(chunks);
    expect(l.map((x) => x.location)).toEqual([undefined, p3]);
    const tree = validateSummaryTree(JSON.parse(JSON.stringify(await buildSummaryTree(l, naming))));
    expect(tree.nodes.slice(0, 2).map((n) => n.location)).toEqual([undefined, p3]);
    expect(() =>
      validateSummaryTree({
        ...tree,
        nodes: tree.nodes.map((n, i) => (i === 1 ? { ...n, location: { page: 3 } } : n)),
      }),
    ).toThrow(/nodes\[1\]\.location\.path/);
  });

  test('summarizes the leaves even when there are only a few', async () => {
    const tree = await buildSummaryTree(leaves(3), naming);
    expect(tree.levels.map((l) => l.length)).toEqual([3, 1]);
    expect(tree.nodes[3]!.text).toBe('(chunk number 0.|chunk number 1.|chunk number 2.)');
  });

  test('makes about n/(g-1) summarization calls for several n (E2GraphRAG §4.4)', async () => {
    // Hand-computed shapes for g = 5: levels shrink by ceil(x/5) until a level has <= 6 nodes.
    const expected: Record<number, number> = {
      1: 1, // [1]
      5: 1, // [1]
      6: 2, // [2]
      7: 2, // [2]
      30: 6, // [6]
      31: 9, // [7, 2]
      100: 24, // [20, 4]
      150: 36, // [30, 6]
      151: 40, // [31, 7, 2]
      700: 174, // [140, 28, 6]
    };
    for (const [n, calls] of Object.entries(expected).map(([k, v]) => [Number(k), v] as const)) {
      const { model, tasks } = countingTasks();
      const tree = await buildSummaryTree(leaves(n), tasks, { concurrency: 8 });
      expect(model.calls.length, `n = ${n}`).toBe(calls);
      expect(summaryCount(tree)).toBe(calls);
      // Up to rounding (one call per level) and the levels above the stop (at most 1.2g/(g-1) calls).
      const levels = tree.levels.length - 1;
      expect(calls).toBeLessThanOrEqual(Math.ceil(n / 4) + levels);
      expect(calls).toBeGreaterThanOrEqual(n / 4 - (1.2 * 5) / 4);
    }
  });

  test('summaryTreeShape predicts the level sizes of the built tree', async () => {
    for (const n of [1, 9, 26, 64, 333]) {
      const tree = await buildSummaryTree(leaves(n), naming, { groupSize: 3, stopRatio: 1 });
      expect(summaryTreeShape(n, { groupSize: 3, stopRatio: 1 })).toEqual(tree.levels.map((l) => l.length));
      expect(tree.levels.at(-1)!.length).toBeLessThanOrEqual(3);
      if (tree.levels.length > 2) expect(tree.levels.at(-2)!.length).toBeGreaterThan(3);
    }
  });

  test('runs the summaries of a level concurrently, never more than `concurrency` at once', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = {
      async summarize(texts: string[]): Promise<string> {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return texts[0]!;
      },
    };
    const tree = await buildSummaryTree(leaves(60), slow, { concurrency: 3 });
    expect(most).toBe(3);
    // Order is kept whatever finishes first: summary i of level 1 starts with leaf 5i.
    expect(tree.levels[1]!.map((i) => tree.nodes[i]!.text)).toEqual(
      Array.from({ length: 12 }, (_, i) => `chunk number ${5 * i}.`),
    );
  });

  test('reports progress against the planned number of calls', async () => {
    const events: [number, number | undefined][] = [];
    await buildSummaryTree(leaves(31), naming, { onProgress: (e) => events.push([e.done, e.total]) });
    expect(events).toEqual(Array.from({ length: 9 }, (_, i) => [i + 1, 9]));
  });

  test('rejects no leaves, duplicate ids, a group size below 2 and an aborted signal', async () => {
    await expect(buildSummaryTree([], naming)).rejects.toSatisfy(InvalidArgumentError.isInstance);
    await expect(
      buildSummaryTree(
        [
          { id: 'x', text: 'a' },
          { id: 'x', text: 'b' },
        ],
        naming,
      ),
    ).rejects.toThrow(/duplicate leaf id/);
    await expect(buildSummaryTree(leaves(3), naming, { groupSize: 1 })).rejects.toThrow(/groupSize/);
    const controller = new AbortController();
    controller.abort();
    await expect(buildSummaryTree(leaves(3), naming, { signal: controller.signal })).rejects.toSatisfy(
      AbortError.isInstance,
    );
  });
});

describe('buildSummaryTree with runLevel', () => {
  test('hands each level its groups, in order, with the ids and leaf ranges the nodes get', async () => {
    const seen: Omit<SummaryGroup, 'children'>[][] = [];
    const runLevel: SummaryLevelRunner = async (groups, summarize) => {
      seen.push(groups.map(({ children: _c, ...g }) => g));
      return Promise.all(groups.map(summarize));
    };
    // 40 leaves by 5: 8 summaries of leaves, then 2 of summaries (8 > 1.2 · 5).
    const tree = await buildSummaryTree(leaves(40), naming, { runLevel });
    expect(seen).toEqual([
      Array.from({ length: 8 }, (_, i) => ({
        level: 1,
        index: i,
        id: `summary:1:${i}`,
        firstLeaf: 5 * i,
        lastLeaf: 5 * i + 4,
      })),
      [
        { level: 2, index: 0, id: 'summary:2:0', firstLeaf: 0, lastLeaf: 24 },
        { level: 2, index: 1, id: 'summary:2:1', firstLeaf: 25, lastLeaf: 39 },
      ],
    ]);
    expect(tree).toEqual(await buildSummaryTree(leaves(40), naming));
  });

  test('builds the same tree whatever order the runner makes the summaries in', async () => {
    const reversed: SummaryLevelRunner = async (groups, summarize) => {
      const texts = new Array<string>(groups.length);
      for (let g = groups.length - 1; g >= 0; g--) texts[g] = await summarize(groups[g]!);
      return texts;
    };
    expect(await buildSummaryTree(leaves(33), naming, { runLevel: reversed, groupSize: 3 })).toEqual(
      await buildSummaryTree(leaves(33), naming, { groupSize: 3 }),
    );
  });

  test('a runner that returns texts kept from an earlier run rebuilds the tree without any call', async () => {
    const kept = new Map<string, string>();
    const keeping: SummaryLevelRunner = async (groups, summarize) => {
      const texts = await Promise.all(groups.map(summarize));
      for (const [i, g] of groups.entries()) kept.set(g.id, texts[i]!);
      return texts;
    };
    const { model, tasks } = countingTasks();
    const first = await buildSummaryTree(leaves(35), tasks, { runLevel: keeping });
    expect(model.calls).toHaveLength(9);
    const replaying: SummaryLevelRunner = async (groups) => groups.map((g) => kept.get(g.id)!);
    const again = countingTasks();
    const second = await buildSummaryTree(leaves(35), again.tasks, { runLevel: replaying });
    expect(again.model.calls).toHaveLength(0);
    expect(second).toEqual(first);
  });

  test('rejects a runner that does not give one text per group', async () => {
    const short: SummaryLevelRunner = async (groups, summarize) =>
      Promise.all(groups.slice(1).map(summarize));
    await expect(buildSummaryTree(leaves(12), naming, { runLevel: short })).rejects.toSatisfy(
      (e: unknown) => InvalidArgumentError.isInstance(e) && /runLevel/.test((e as Error).message),
    );
  });
});

describe('subtreeWeights', () => {
  test("sums children's weights recursively", async () => {
    const tree = await buildSummaryTree(leaves(31), naming); // levels [31, 7, 2]
    const leafWeights = Array.from({ length: 31 }, (_, i) => (i % 3 === 0 ? i : 0));
    const w = subtreeWeights(tree, leafWeights);
    // Summary 0 of level 1 covers leaves 0..4: 0 + 3 = 3; summary 6 covers leaf 30: 30.
    expect(w[31]).toBe(3);
    expect(w[37]).toBe(30);
    // The top nodes cover leaves 0..24 and 25..30.
    expect(w[38]).toBe([0, 3, 6, 9, 12, 15, 18, 21, 24].reduce((a, b) => a + b));
    expect(w[39]).toBe(27 + 30);
    // Every node equals the sum over the leaves it covers.
    tree.nodes.forEach((_, i) => {
      expect(w[i]).toBe(coveredLeaves(tree, i).reduce((s, leaf) => s + leafWeights[leaf]!, 0));
    });
  });

  test('rejects a weight vector of the wrong length', async () => {
    const tree = await buildSummaryTree(leaves(4), naming);
    expect(() => subtreeWeights(tree, [1, 2])).toThrow(/one weight per leaf/);
  });
});

describe('collapsed-tree retrieval', () => {
  test('searches leaves and summaries of every level in one index, as brute force does', async () => {
    const texts = [
      'the harbour and its ships',
      'a lighthouse keeper',
      'ships leave the harbour at dawn',
      'the mayor of the town',
      'a storm at sea',
      'fish market prices',
      'the lighthouse in the storm',
    ];
    const l = texts.map((text, i) => ({ id: `c${i}`, text }));
    const tree = await buildSummaryTree(l, { summarize: async (t) => t.join(' ') }, { groupSize: 3 });
    const embedder = createScriptedEmbedder({ dimensions: 64 });
    const index = await embedSummaryTree(tree, embedder, flatIndexFactory);
    expect(index.size).toBe(tree.nodes.length);
    const [query] = (await embedder.doEmbed({ values: ['lighthouse storm'] })).embeddings;
    const hits = searchCollapsedTree(tree, index, query!, 4);
    const [nodeVectors] = [(await embedder.doEmbed({ values: tree.nodes.map((n) => n.text) })).embeddings];
    const oracle = nodeVectors
      .map((v, node) => ({ node, score: cosineSimilarity(v, query!) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 4);
    expect(hits.map((h) => h.node)).toEqual(oracle.map((o) => o.node));
    expect(hits.some((h) => h.level > 0)).toBe(true);
    const leavesOnly = searchCollapsedTree(tree, index, query!, 3, { levels: [0] });
    expect(leavesOnly.every((h) => h.level === 0)).toBe(true);
    expect(leavesOnly[0]!.id).toBe('c6');
  });

  test('indexSummaryTree over vectors computed elsewhere searches like embedSummaryTree', async () => {
    const tree = await buildSummaryTree(leaves(17), naming, { groupSize: 4 });
    const embedder = createScriptedEmbedder({ dimensions: 32 });
    const { embeddings } = await embedder.doEmbed({ values: tree.nodes.map((n) => n.text) });
    const index = indexSummaryTree(tree, embeddings, flatIndexFactory);
    const reference = await embedSummaryTree(tree, embedder, flatIndexFactory);
    expect(index.size).toBe(tree.nodes.length);
    // Leaf 0, leaf 9 and summary:1:0 (leaves 0-3): texts no other node repeats.
    for (const node of [0, 9, 17]) {
      const query = embeddings[node]!;
      expect(searchCollapsedTree(tree, index, query, 5)).toEqual(
        searchCollapsedTree(tree, reference, query, 5),
      );
      expect(searchCollapsedTree(tree, index, query, 1)[0]!.node).toBe(node);
    }
    expect(() => indexSummaryTree(tree, embeddings.slice(1), flatIndexFactory)).toThrow(
      /one vector per node/,
    );
  });
});

describe('save and load', () => {
  test('round-trips a tree and rejects a broken file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'summary-tree-'));
    try {
      const tree = await buildSummaryTree(leaves(31), naming);
      await saveSummaryTree(tree, join(dir, 'tree.json'));
      expect(await loadSummaryTree(join(dir, 'tree.json'))).toEqual(tree);
      const broken = structuredClone(tree);
      broken.nodes[3]!.parent = 35; // leaf 3 belongs to summary 31
      await writeFile(join(dir, 'broken.json'), JSON.stringify(broken));
      await expect(loadSummaryTree(join(dir, 'broken.json'))).rejects.toSatisfy(IndexFormatError.isInstance);
      expect(() => validateSummaryTree({ ...tree, formatVersion: 2 })).toThrow(/format version 2/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
