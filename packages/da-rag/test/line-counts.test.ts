import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexFormatError, type Tokenizer } from '@grag/core';
import { createBuildContext, getTokenizer } from '@grag/core/kit';
import { directoryStore } from '@grag/core/store';
import { copyStoredIndex, createScriptedEmbedder } from '@grag/core/test';
import { expectIdenticalRetrievals } from '@grag/core/test/vitest';
import { createOfflineTasks } from '@grag/offline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaRagIndex, type DaRagRetrieveOptions, daRag, entityText } from '../src/index.js';
import { LINE_COUNTS_FILE } from '../src/line-counts.js';
import { CORPUS } from './corpus.js';
import { wholeTextTokenizer } from './tokenizers.js';

const context = (tokenizer?: Tokenizer) =>
  createBuildContext({
    embedder: createScriptedEmbedder({ dimensions: 16 }),
    tasks: createOfflineTasks(),
    ...(tokenizer ? { tokenizer } : {}),
  });

/** The core tokenizer under another name, its counts raised by `extra`. */
function renamed(name: string, extra = 0): Tokenizer {
  const base = getTokenizer();
  return {
    ...wholeTextTokenizer(base),
    name,
    additiveAfterBlankLine: base.additiveAfterBlankLine === true && extra === 0,
    additiveAfterLineBreak: base.additiveAfterLineBreak === true && extra === 0,
    count: (text) => base.count(text) + extra,
  };
}

const QUERIES = [
  'Who founded the Kessler Shipyard?',
  'Which vessel does Ingrid Solberg command?',
  'Where does the Orsa Marine Institute operate the Meridian?',
  'Which ferry did the shipyard build for the Veskan Line?',
];

/** Retrieval options that render chunk and entity communities of every size, with and without reports. */
const OPTIONS: DaRagRetrieveOptions[] = [
  {},
  { budgetTokens: 300 },
  { communityTokens: 40 },
  { memberOrder: 'linked', communityText: 'members' },
  { anchors: 2, budgetTokens: 800 },
  // The filled context counts its chunks from their saved counts.
  { fillBudget: true, budgetTokens: 1500 },
  { fillBudget: true, budgetTokens: 5000, communityText: 'members' },
  { fillBudget: true, budgetTokens: 50_000 },
];

let root: string;
let saved: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'grag-da-line-counts-'));
  saved = join(root, 'index');
  await daRag.save(await daRag.build(CORPUS, context(), { chunking: 'fixed' }), saved);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function retrieveAll(index: DaRagIndex) {
  const out = [];
  for (const options of OPTIONS) for (const q of QUERIES) out.push(await daRag.retrieve(index, q, options));
  return out;
}

/** `index` as it retrieves without saved line counts. */
const withoutCounts = (index: DaRagIndex): DaRagIndex => ({ ...index, cache: {} });

describe('saved line counts', () => {
  it("are the tokenizer's counts of each chunk and entity text, alone and with its separator", async () => {
    const index = await daRag.load(saved, context());
    const counts = index.cache.lineCounts!;
    const tokenizer = getTokenizer();
    expect(counts.tokenizer).toBe(tokenizer.name);
    expect(Array.from(counts.chunks)).toEqual(
      index.texts.flatMap((t) => [tokenizer.count(t), tokenizer.count(`${t}\n\n`)]),
    );
    expect(Array.from(counts.entities)).toEqual(
      index.entities.flatMap((e) => {
        const text = entityText(e.name, e.descriptions);
        return [tokenizer.count(text), tokenizer.count(`${text}\n`)];
      }),
    );
  });

  it('give the retrievals counting the texts gives, items, scores, contexts and traces alike', async () => {
    const index = await daRag.load(saved, context());
    expect(index.cache.lineCounts).toBeDefined();
    const trace = (r: { trace: Record<string, unknown> }) => ({ ...r.trace, ms: undefined });
    expectIdenticalRetrievals(await retrieveAll(index), await retrieveAll(withoutCounts(index)), trace);
  });

  it('are left unread by a tokenizer of another name, and an index saved without them loads', async () => {
    const other = renamed('another-encoding');
    const index = await daRag.load(saved, context(other));
    expect(index.cache.lineCounts?.tokenizer).toBe(getTokenizer().name);
    expectIdenticalRetrievals(await retrieveAll(index), await retrieveAll(withoutCounts(index)));

    const older = await copyStoredIndex(directoryStore(saved), directoryStore(join(root, 'older')), {
      artifact: (name) => (name === LINE_COUNTS_FILE ? null : undefined),
    });
    const loaded = await daRag.load(older, context());
    expect(loaded.cache.lineCounts).toBeUndefined();
    expectIdenticalRetrievals(
      await retrieveAll(loaded),
      await retrieveAll(await daRag.load(saved, context())),
    );
  });

  it('are counted again when the index is saved with another tokenizer, and refused when damaged', async () => {
    const other = renamed('another-encoding', 1);
    const again = join(root, 'again');
    await daRag.save(await daRag.load(saved, context(other)), again);
    const index = await daRag.load(again, context(other));
    expect(index.cache.lineCounts?.tokenizer).toBe('another-encoding');
    expect(index.cache.lineCounts?.chunks[0]).toBe(getTokenizer().count(index.texts[0]!) + 1);

    const damaged = await copyStoredIndex(directoryStore(saved), directoryStore(join(root, 'damaged')), {
      artifact: (name, data) => (name === LINE_COUNTS_FILE ? data.subarray(0, data.length - 8) : undefined),
    });
    const error = await daRag.load(damaged, context()).catch((e: unknown) => e);
    expect(IndexFormatError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(LINE_COUNTS_FILE);
  });
});
