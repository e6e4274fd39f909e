/**
 * Fault injection at build level: a DA-RAG build against a local OpenAI-compatible server that
 * answers with 429 storms, 5xx, resets, stalls, malformed and truncated bodies. The build must
 * lose no chunk, account for every record the model wrote unreadably, and write the same index as
 * a build against a server without faults. A chunk whose calls always fail must stop the build
 * with an error naming the stage, the chunk and how to resume, and a rerun must redo only it.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuildStageError, type ChatModel, type Document, ProviderError } from '@grag/core';
import {
  cachedChat,
  chunkDocuments,
  createBuildContext,
  getTokenizer,
  MemoryCallCache,
  trackBuilds,
} from '@grag/core/kit';
import {
  createPromptTasks,
  DEFAULT_ENTITY_TYPES,
  GLEANING_CHECK_PROMPT,
  gleaningContinuePrompt,
  graphExtractionPrompt,
  TUPLE_DELIMITER_DEFAULTS,
  titleDescriptionPrompt,
} from '@grag/core/tasks';
import { indexFileDigests } from '@grag/core/test';
import { createDaRag, type DaRagOptions } from '@grag/da-rag';
import { createOpenAI, type OpenAIProviderSettings } from '@grag/openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  combineFaults,
  type FaultPlan,
  type FaultRecord,
  type FaultServer,
  rateLimitStorm,
  seededFaults,
  seededUnit,
  startFaultServer,
  type WireMessage,
} from '../../openai/test/fault-server.js';

// ---------------------------------------------------------------------------------------------
// Corpus: short notes about invented people, organisations and places.
// ---------------------------------------------------------------------------------------------

const PEOPLE = [
  'Ada Brandt',
  'Jonas Keller',
  'Mira Okafor',
  'Tomas Lind',
  'Sara Voss',
  'Elias Ferro',
  'Nadia Holm',
];
const ORGS = [
  'Kessler Shipyard',
  'Orsa Marine Institute',
  'Veskan Line',
  'Brandt Foundation',
  'Lindholm Archive',
];
const PLACES = ['Port Halvard', 'Orsa', 'Veskan Strait', 'Lindholm', 'Cape Tarrow'];
const KNOWN: { name: string; type: string }[] = [
  ...PEOPLE.map((name) => ({ name, type: 'person' })),
  ...ORGS.map((name) => ({ name, type: 'organization' })),
  ...PLACES.map((name) => ({ name, type: 'geo' })),
];

const POISON = 'Quarantined ledger';

function corpus(count: number): Document[] {
  return Array.from({ length: count }, (_, i) => {
    const a = PEOPLE[i % PEOPLE.length]!;
    const b = PEOPLE[(i * 3 + 1) % PEOPLE.length]!;
    const org = ORGS[(i * 2) % ORGS.length]!;
    const place = PLACES[(i + 2) % PLACES.length]!;
    return {
      id: `note-${String(i).padStart(2, '0')}`,
      title: `Note ${i}`,
      text:
        `${a} joined ${org} in ${place} in the year ${1900 + i * 7}. ` +
        `Later ${b} worked with ${a} on survey number ${i} near ${place}, funded by ${org}.`,
    };
  });
}

/** Fixed chunks small enough that most notes make two chunks. */
// Entity linking off: it would add each note's title as an entity of its chunks, and this test
// counts exactly the entities the model named.
const OPTIONS: Partial<DaRagOptions> = { chunking: 'fixed', chunkSize: 24, overlap: 4, entityLinking: false };

// ---------------------------------------------------------------------------------------------
// The model behind the server: recognises each prompt-task call and answers it validly, with an
// unreadable record in some extraction answers.
// ---------------------------------------------------------------------------------------------

const EXTRACTION = {
  entityTypes: DEFAULT_ENTITY_TYPES,
  format: 'tuples' as const,
  ...TUPLE_DELIMITER_DEFAULTS,
};
const { tupleDelimiter: T, recordDelimiter: R, completionDelimiter: DONE } = TUPLE_DELIMITER_DEFAULTS;
const GLEANING_PROMPT = gleaningContinuePrompt('tuples', TUPLE_DELIMITER_DEFAULTS);
const SEED = 11;

/** The text between the `<<<` / `>>>` fences of a prompt. */
function fencedText(prompt: string): string | undefined {
  const start = prompt.indexOf('\n<<<\n');
  const end = prompt.lastIndexOf('\n>>>');
  return start >= 0 && end > start ? prompt.slice(start + 5, end) : undefined;
}

type Call =
  | { task: 'extract' | 'describe'; text: string; turn: 'first' | 'gleaning' | 'check' | 'repair' }
  | undefined;

/** Which task and turn a request is, from its messages alone (prompts rebuilt with core's functions). */
function classify(messages: WireMessage[]): Call {
  const firstUser = messages.find((m) => m.role === 'user')?.content ?? '';
  const text = fencedText(firstUser);
  if (text === undefined) return undefined;
  const task =
    firstUser === graphExtractionPrompt(text, EXTRACTION).user
      ? 'extract'
      : firstUser === titleDescriptionPrompt(text).user
        ? 'describe'
        : undefined;
  if (!task) return undefined;
  const prefix = messages.findIndex((m) => m.content === firstUser) + 1;
  const last = messages.at(-1)!;
  const turn =
    messages.length === prefix
      ? 'first'
      : last.content === GLEANING_PROMPT
        ? 'gleaning'
        : last.content === GLEANING_CHECK_PROMPT
          ? 'check'
          : 'repair';
  return { task, text, turn };
}

function namesIn(text: string): { name: string; type: string }[] {
  return KNOWN.filter((k) => text.includes(k.name));
}

/** The unreadable records written for a chunk text: in the first answer, in the gleaning answer, or neither. */
function badRecords(text: string): { first?: string; gleaning?: string } {
  const tag = createHash('sha256').update(text).digest('hex').slice(0, 10);
  const out: { first?: string; gleaning?: string } = {};
  // An entity without a name, and a relationship without its two ends: both skipped by the parser.
  if (seededUnit(SEED, text, 'first') < 0.35)
    out.first = `("entity"${T}${T}person${T}unreadable BAD-${tag}-1)`;
  if (seededUnit(SEED, text, 'gleaning') < 0.2) {
    out.gleaning = `("relationship"${T}${T}${T}unreadable BAD-${tag}-2${T}3)`;
  }
  return out;
}

const BAD_TOKEN = /BAD-[0-9a-f]{10}-[12]/g;

function extraction(text: string): string {
  const names = namesIn(text);
  const records = names.map(
    (n) => `("entity"${T}${n.name.toUpperCase()}${T}${n.type}${T}${n.name} is named in the note)`,
  );
  for (let i = 0; i + 1 < names.length; i++) {
    const [a, b] = [names[i]!.name.toUpperCase(), names[i + 1]!.name.toUpperCase()];
    records.push(`("relationship"${T}${a}${T}${b}${T}${a} and ${b} appear in the same note${T}${4 + i})`);
  }
  const bad = badRecords(text).first;
  if (bad) records.splice(Math.min(1, records.length), 0, bad);
  return `${records.join(R)}${DONE}`;
}

function titleFor(text: string): { title: string; description: string } {
  const names = namesIn(text).map((n) => n.name);
  return {
    title: names.length > 0 ? `About ${names.slice(0, 2).join(' and ')}` : 'A note without names',
    description: `The note names ${names.length} known entities.`,
  };
}

function respond(messages: WireMessage[]): string {
  const call = classify(messages);
  if (!call) throw new Error(`unexpected chat request: ${JSON.stringify(messages).slice(0, 200)}`);
  if (call.task === 'describe') return JSON.stringify(titleFor(call.text));
  switch (call.turn) {
    case 'first':
      return extraction(call.text);
    case 'gleaning':
      return `${badRecords(call.text).gleaning ?? ''}${DONE}`;
    case 'check':
      return 'NO';
    case 'repair': {
      // Repeat the unreadable records the repair request quotes, so they stay unreadable.
      const bad = badRecords(call.text);
      const asked = new Set(messages.at(-1)!.content.match(BAD_TOKEN) ?? []);
      const again = [bad.first, bad.gleaning].filter(
        (r): r is string => r !== undefined && [...asked].some((t) => r.includes(t)),
      );
      return `${again.join(R)}${DONE}`;
    }
  }
}

/** Unreadable-record tokens in the answers the client actually received, outside repair turns. */
function injectedTokens(records: readonly FaultRecord[]): Set<string> {
  const tokens = new Set<string>();
  for (const r of records) {
    if (r.endpoint !== 'chat' || r.fault || typeof r.answer !== 'string') continue;
    if (classify(r.body.messages)?.turn === 'repair') continue;
    for (const t of r.answer.match(BAD_TOKEN) ?? []) tokens.add(t);
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

const PROVIDER: OpenAIProviderSettings = {
  apiKey: 'sk-test',
  timeoutMs: 300,
  maxRetries: 8,
  retryBaseDelayMs: 5,
  retryMaxDelayMs: 50,
  concurrency: 8,
};

const servers: FaultServer[] = [];
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'grag-fault-build-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function server(faults?: FaultPlan): Promise<FaultServer> {
  const s = await startFaultServer({ chat: respond, dimensions: 16, ...(faults ? { faults } : {}) });
  servers.push(s);
  return s;
}

function context(
  s: FaultServer,
  settings: OpenAIProviderSettings = {},
  wrap?: (chat: ChatModel) => ChatModel,
) {
  const openai = createOpenAI({ ...PROVIDER, ...settings, baseURL: s.baseURL });
  const chat = openai.chat('fault-chat');
  return createBuildContext({
    embedder: openai.embedding('fault-embed', { dimensions: 16, batchSize: 4 }),
    tasks: createPromptTasks(wrap ? wrap(chat) : chat),
  });
}

/** Whether a build item label (`'note-03#1'`, `'chunk note-03#1'`) is the chunk `id`. */
function namesChunk(item: string, id: string): boolean {
  return item.split(/\s+/).includes(id);
}

/** The chunk each unreadable token was written for. */
function tokenChunks(texts: readonly string[], chunkIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  texts.forEach((text, i) => {
    const bad = badRecords(text);
    for (const record of [bad.first, bad.gleaning]) {
      const token = record?.match(BAD_TOKEN)?.[0];
      if (token) out.set(token, chunkIds[i]!);
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('a DA-RAG build against a faulty OpenAI-compatible server', () => {
  it('loses no chunk, accounts for every unreadable record, and writes the index of a fault-free build', async () => {
    const docs = corpus(16);
    const method = createDaRag();
    const expectedChunks = chunkDocuments(docs, {
      chunkSize: OPTIONS.chunkSize!,
      overlap: OPTIONS.overlap!,
      tokenizer: getTokenizer(),
    });
    expect(expectedChunks.length).toBeGreaterThanOrEqual(30);

    const faulty = await server(
      combineFaults(
        rateLimitStorm({ from: 12, count: 16, retryAfterSeconds: 0.03 }),
        seededFaults({ seed: SEED, rate: 0.4, maxFaultsPerCall: 3 }),
      ),
    );
    const ctx = context(faulty);
    const builds = trackBuilds(ctx);
    const index = await method.build(docs, ctx, OPTIONS);
    await method.save(index, join(dir, 'faulty'));

    const clean = await server();
    const cleanCtx = context(clean);
    const cleanBuilds = trackBuilds(cleanCtx);
    const cleanIndex = await method.build(docs, cleanCtx, OPTIONS);
    await method.save(cleanIndex, join(dir, 'clean'));

    // The schedule was dense and hit both endpoints with every kind of fault.
    const outcomes = faulty.outcomes();
    for (const kind of ['rate-limit', 'server-error', 'reset', 'stall', 'malformed', 'truncated']) {
      expect(outcomes[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    expect(faulty.records.filter((r) => r.fault).length).toBeGreaterThan(faulty.records.length / 4);
    expect(faulty.recordsOf('embeddings').some((r) => r.fault)).toBe(true);
    expect(clean.records.every((r) => r.fault === undefined)).toBe(true);

    // 0 chunks lost: every chunk of the corpus is in the index, with the title the model gave it
    // and exactly the entities the model named in it.
    expect(index.chunks.map((c) => c.id)).toEqual(expectedChunks.map((c) => c.id));
    expect(index.titles).toEqual(index.texts.map((t) => titleFor(t).title));
    index.chunks.forEach((chunk, i) => {
      const names = index.entities.filter((e) => e.chunkIds.includes(chunk.id)).map((e) => e.name);
      expect(names.sort(), chunk.id).toEqual(
        namesIn(index.texts[i]!)
          .map((n) => n.name.toUpperCase())
          .sort(),
      );
    });
    expect(index.entities.length).toBe(KNOWN.length);

    // Every unreadable record the client received is one parse issue of the extract stage, with
    // its raw text and its chunk, whether or not a repair retry was sent for it.
    const injected = injectedTokens(faulty.records);
    expect(injected.size).toBeGreaterThan(3);
    const owner = tokenChunks(
      index.texts,
      index.chunks.map((c) => c.id),
    );
    const skipped = builds[0]!.issues.filter((i) => i.kind === 'skipped-record');
    const reported = skipped.flatMap((i) =>
      (i.raw.match(BAD_TOKEN) ?? []).map((token) => ({ token, issue: i })),
    );
    expect(reported.map((r) => r.token).sort()).toEqual([...injected].sort());
    expect(skipped).toHaveLength(injected.size);
    for (const { token, issue } of reported) {
      expect(issue.stage).toBe('extract');
      expect(namesChunk(issue.item, owner.get(token)!), issue.item).toBe(true);
      expect(issue.raw).toContain(`unreadable ${token}`);
    }
    // The same issues, and the same repair requests (when the tasks send any), without faults.
    const issueKeys = (b: typeof builds) =>
      b[0]!.issues.map((i) => JSON.stringify([i.stage, i.item, i.kind, i.raw])).sort();
    expect(issueKeys(cleanBuilds)).toEqual(issueKeys(builds));
    const repairKeys = (s: FaultServer) =>
      [
        ...new Set(
          s.records
            .filter((r) => !r.fault && r.endpoint === 'chat' && classify(r.body.messages)?.turn === 'repair')
            .map((r) => r.key),
        ),
      ].sort();
    expect(repairKeys(faulty)).toEqual(repairKeys(clean));

    // Faults change nothing in the index.
    const [a, b] = [await indexFileDigests(join(dir, 'faulty')), await indexFileDigests(join(dir, 'clean'))];
    expect(Object.keys(a)).toEqual(Object.keys(b));
    expect(a).toEqual(b);
  });

  it('stops on a chunk whose calls always fail, naming the stage, the chunk and how to resume; a rerun redoes only it', async () => {
    const docs = corpus(10);
    const last = docs.length - 1;
    docs[last] = { ...docs[last]!, text: `${POISON}. ${docs[last]!.text}` };
    const poisoned: FaultPlan = ({ endpoint, body }) =>
      endpoint === 'chat' && JSON.stringify(body.messages).includes(POISON)
        ? { kind: 'server-error', status: 500 }
        : undefined;
    const s = await server(poisoned);
    const cache = new MemoryCallCache();
    const method = createDaRag();
    const chunks = chunkDocuments(docs, {
      chunkSize: OPTIONS.chunkSize!,
      overlap: OPTIONS.overlap!,
      tokenizer: getTokenizer(),
    });
    const bad = chunks.find((c) => c.text.includes(POISON))!;
    expect(chunks.filter((c) => c.text.includes(POISON)).map((c) => c.id)).toEqual([bad.id]);

    let error: unknown;
    try {
      const ctx = context(s, { maxRetries: 2 }, (chat) => cachedChat(chat, cache));
      ctx.runtime = { ...ctx.runtime, resumeHint: 'run the same build again to resume' };
      await method.build(docs, ctx, OPTIONS);
    } catch (e) {
      error = e;
    }
    expect(BuildStageError.isInstance(error)).toBe(true);
    const e = error as BuildStageError;
    expect(e.stage).toBe('extract');
    expect(namesChunk(e.item, bad.id), e.item).toBe(true);
    expect(e.message).not.toMatch(/[\r\n]/);
    expect(e.message).toContain('stage "extract"');
    expect(e.message).toContain(bad.id);
    expect(e.message).toContain('failed after 3 attempts (last: failed with HTTP 500');
    expect(e.message).toMatch(/run the same build again to resume\.$/);
    expect(ProviderError.isInstance(e.cause)).toBe(true);
    // The poisoned chunk's first call was tried 3 times; every other chunk's extraction was answered.
    const poisonedRequests = s.records.filter((r) => JSON.stringify(r.body.messages).includes(POISON));
    expect(poisonedRequests).toHaveLength(3);
    const answered = new Set(
      s.records
        .filter((r) => !r.fault && r.endpoint === 'chat')
        .map((r) => classify(r.body.messages))
        .filter((c) => c?.task === 'extract' && c.turn === 'first')
        .map((c) => c!.text),
    );

    // The server recovers; the rerun with the same call cache asks again only for the failed chunk.
    s.faults = () => undefined;
    const before = s.records.length;
    const index = await method.build(
      docs,
      context(s, {}, (chat) => cachedChat(chat, cache)),
      OPTIONS,
    );
    expect(index.chunks.map((c) => c.id)).toEqual(chunks.map((c) => c.id));
    const others = index.texts.filter((t) => !t.includes(POISON));
    expect(others).toHaveLength(chunks.length - 1);
    expect(others.filter((t) => !answered.has(t))).toEqual([]);
    const rerunExtractions = s.records
      .slice(before)
      .filter((r) => r.endpoint === 'chat')
      .map((r) => classify(r.body.messages))
      .filter((c) => c?.task === 'extract');
    expect(rerunExtractions.length).toBeGreaterThan(0);
    expect(rerunExtractions.every((c) => c!.text.includes(POISON))).toBe(true);
  });
});
