/** Shared fixtures of the e2graphrag update tests: corpus A, its change, recording providers, variants. */
import type { BuildContext, Document, Retrieval } from '@grag/core';
import { createBuildContext } from '@grag/core/kit';
import { createPromptTasks } from '@grag/core/tasks';
import { createScriptedChatModel, createScriptedEmbedder } from '@grag/core/test';
import { createWinkTextAnalyzer } from '@grag/offline';
import { createE2GraphRag, type E2GraphRagIndex } from '../src/index.js';
import { capitalized, PAPER } from './fixtures.js';

// One chunk per document, groups of 3: A's 12 chunks make a tree of 12 → 4 → 2 nodes.
const PEOPLE = ['Alder', 'Birch', 'Cedar', 'Dahl', 'Elm', 'Fir', 'Gale', 'Hazel', 'Iris', 'Juniper'];
const MORE = ['Kale', 'Larch', 'Maple', 'Nettle', 'Oak', 'Pine'];
const NAMES = [...PEOPLE, ...MORE];
const PLACES = ['Ashby', 'Brill', 'Corfe', 'Dover', 'Exton'];
export const doc = (i: number): Document => ({
  id: `d${i}`,
  title: `${NAMES[i]} House`,
  text: `${NAMES[i]} met ${NAMES[(i + 1) % 16]} in ${PLACES[i % 5]} in ${1800 + i}. ${NAMES[i]} wrote about ${PLACES[(i + 2) % 5]}.`,
});
export const A = Array.from({ length: 12 }, (_, i) => doc(i));
export const B = [12, 13, 14].map(doc);
export const C = ['d4', 'd9'];
export const AplusBminusC = [...A.filter((d) => !C.includes(d.id)), ...B];
export const QUERIES = [
  'Did Alder meet Birch?',
  'Where did Cedar meet Dahl?',
  'What did Gale write about Ashby?',
  'Hazel and Iris in Corfe',
  'Nettle met Oak in Exton',
  'Maple and Nettle',
  'Who wrote about Dover?',
  'Tell me about Brill',
  'What happened in the early years?',
  'Summarize every meeting',
  'Elm and Fir',
  'Juniper met Kale',
  'Larch wrote about Ashby',
  'Fir met Gale in Ashby',
  'Who met whom?',
  'Birch and Cedar in Brill',
  'Dahl wrote about Exton',
  'Oak met Pine',
  'Kale in Dover',
  'Iris and Juniper',
];

/** Providers that record their calls; a summary lists the years its passages name, so it depends on its inputs only. */
export function providers(): { ctx: BuildContext; asked: () => string[][]; embedded: () => string[] } {
  const model = createScriptedChatModel((call) => {
    const user = call.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    return `Digest of ${[...new Set(user.match(/\b18\d\d\b/g) ?? [])].join(' ')}`;
  });
  const embedder = createScriptedEmbedder({ dimensions: 64 });
  return {
    ctx: createBuildContext({
      embedder,
      tasks: createPromptTasks(model),
      textAnalyzer: createWinkTextAnalyzer(),
    }),
    asked: () =>
      model.calls.map((c) => [
        ...new Set(
          c.messages
            .map((m) => String(m.content))
            .join('\n')
            .match(/\b18\d\d\b/g) ?? [],
        ),
      ]),
    embedded: () => embedder.calls.flatMap((c) => c.values),
  };
}

export const variants = [
  {
    label: 'paper configuration',
    method: createE2GraphRag({
      extractor: capitalized,
      defaults: { ...PAPER, chunking: 'document', includeTitle: false, groupSize: 3 },
    }),
  },
  {
    label: 'offline preset (linked, hybrid)',
    method: createE2GraphRag({
      extractor: capitalized,
      defaults: { preset: 'offline', chunking: 'document', groupSize: 3 },
    }),
  },
];

export const retrieveAll = (method: (typeof variants)[0]['method'], index: E2GraphRagIndex) =>
  Promise.all(QUERIES.map((q) => method.retrieve(index, q, { topK: 10, budgetTokens: 100_000 })));
/** What a retrieval gives (its items and context), without the trace's timings. */
export const answers = async (method: (typeof variants)[0]['method'], index: E2GraphRagIndex) =>
  (await retrieveAll(method, index)).map((r) => ({ items: r.items, context: r.context, mode: modeOf(r) }));
/** The top-10 passages of a retrieval (chunk items, in rank order). */
export const top10 = (r: Retrieval) =>
  r.items
    .filter((i) => i.kind === 'chunk')
    .slice(0, 10)
    .flatMap((i) => i.source.chunkIds);
export const modeOf = (r: Retrieval) => (r.trace as { mode?: string }).mode;
