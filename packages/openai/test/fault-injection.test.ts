import { ProviderError } from '@grag/core';
import { hashedBagOfWords } from '@grag/core/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI, type OpenAIProviderSettings } from '../src/index.js';
import { rejection } from './fake-server.js';
import {
  type Fault,
  type FaultKind,
  type FaultRecord,
  type FaultServer,
  faultSequence,
  rateLimitStorm,
  seededFaults,
  startFaultServer,
} from './fault-server.js';

const DIMENSIONS = 16;
/** Small delays keep the suite fast; the timeout must be well above a healthy local answer. */
const FAST: OpenAIProviderSettings = {
  apiKey: 'sk-test',
  timeoutMs: 300,
  maxRetries: 4,
  retryBaseDelayMs: 5,
  retryMaxDelayMs: 50,
};

let server: FaultServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: ConstructorParameters<typeof FaultServer>[0] = {}): Promise<FaultServer> {
  server = await startFaultServer({ dimensions: DIMENSIONS, ...options });
  return server;
}

function provider(s: FaultServer, settings: OpenAIProviderSettings = {}) {
  return createOpenAI({ ...FAST, baseURL: s.baseURL, ...settings });
}

const say = (content: string) => [{ role: 'user' as const, content }];

/** One fault of every kind and variant the server can inject. */
const EVERY_FAULT: [string, Fault][] = [
  ['429 with Retry-After (seconds)', { kind: 'rate-limit', retryAfterSeconds: 0.01 }],
  ['429 with retry-after-ms', { kind: 'rate-limit', retryAfterMs: 10 }],
  ['429 without Retry-After', { kind: 'rate-limit' }],
  ['500', { kind: 'server-error', status: 500 }],
  ['502', { kind: 'server-error', status: 502 }],
  ['503', { kind: 'server-error', status: 503 }],
  ['reset before the headers', { kind: 'reset', at: 'before-headers' }],
  ['reset in the middle of the body', { kind: 'reset', at: 'mid-body' }],
  ['stall before the headers', { kind: 'stall', at: 'before-headers' }],
  ['stall in the middle of the body', { kind: 'stall', at: 'mid-body' }],
  ['200 with JSON cut short', { kind: 'malformed', variant: 'cut-json' }],
  ['200 with an HTML page', { kind: 'malformed', variant: 'html' }],
  ['200 shorter than its Content-Length', { kind: 'truncated' }],
];

describe('every fault is retried and the call succeeds', () => {
  it.each(EVERY_FAULT)('chat: %s', async (_name, fault) => {
    const s = await start({ faults: faultSequence(fault, fault) });
    const result = await provider(s)
      .chat('m')
      .doGenerate({ messages: say('hello there') });
    expect(result.text).toBe('echo: hello there');
    expect(s.records.map((r) => r.fault?.kind ?? 'ok')).toEqual([fault.kind, fault.kind, 'ok']);
    // The same request each time: retries resend the call unchanged.
    expect(new Set(s.records.map((r) => r.key)).size).toBe(1);
  });

  it.each(EVERY_FAULT)('embeddings: %s', async (_name, fault) => {
    const s = await start({ faults: faultSequence(fault) });
    const values = ['graph retrieval', 'community search', 'graph'];
    const { embeddings } = await provider(s).embedding('e', { dimensions: DIMENSIONS }).doEmbed({ values });
    expect(embeddings).toEqual(values.map((v) => hashedBagOfWords(v, DIMENSIONS)));
    expect(s.records.map((r) => r.fault?.kind ?? 'ok')).toEqual([fault.kind, 'ok']);
  });
});

/** What a failure message must say about each kind of last failure. */
const CAUSE: Record<FaultKind, RegExp> = {
  'rate-limit': /HTTP 429/,
  'server-error': /HTTP 50[023]/,
  reset: /lost the connection (before the response arrived|while reading the response) \(.*ECONNRESET/,
  stall: /timed out after 300 ms/,
  malformed: /malformed response \(not JSON/,
  truncated: /lost the connection while reading the response/,
};

/** The advice after the dash. */
const HINT: Record<FaultKind, RegExp> = {
  'rate-limit': /lower concurrency or raise maxRetries/,
  'server-error': /the server is overloaded or failing; try again later or raise maxRetries/,
  reset: /check the network and the server at baseURL/,
  stall: /raise timeoutMs/,
  malformed: /check that baseURL points to an OpenAI-compatible API/,
  truncated: /check the network/,
};

describe('faults beyond maxRetries', () => {
  it.each(EVERY_FAULT)(
    'chat fails after maxRetries + 1 attempts of %s with a one-line ProviderError',
    async (_n, fault) => {
      const s = await start({ faults: () => fault });
      const error = await rejection(
        provider(s, { maxRetries: 2 })
          .chat('gpt-test')
          .doGenerate({ messages: say('x') }),
      );
      expect(ProviderError.isInstance(error)).toBe(true);
      const e = error as ProviderError;
      expect(s.records).toHaveLength(3);
      expect(e.retryable).toBe(true);
      expect(e.provider).toBe('openai');
      expect(e.status).toBe(
        fault.kind === 'rate-limit' ? 429 : fault.kind === 'server-error' ? fault.status : undefined,
      );
      expect(e.message).not.toMatch(/[\r\n]/);
      expect(e.message).toMatch(
        /^@grag\/openai: chat request for model 'gpt-test' failed after 3 attempts \(last: /,
      );
      expect(e.message).toMatch(CAUSE[fault.kind]);
      expect(e.message).toMatch(new RegExp(`\\) — [^—]*${HINT[fault.kind].source}[^—]*\\.$`));
    },
  );

  it('embeddings name the embedding call and the model', async () => {
    const s = await start({ faults: () => ({ kind: 'server-error', status: 502 }) });
    const error = await rejection(
      provider(s, { maxRetries: 1 })
        .embedding('embed-x', { dimensions: DIMENSIONS })
        .doEmbed({ values: ['a'] }),
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    const e = error as ProviderError;
    expect(e.message).toMatch(
      /^@grag\/openai: embedding request for model 'embed-x' failed after 2 attempts \(last: failed with HTTP 502: injected 502\) — /,
    );
    expect(s.records).toHaveLength(2);
  });

  it('a call that gets through on its last allowed attempt succeeds', async () => {
    const fault: Fault = { kind: 'server-error', status: 503 };
    const s = await start({ faults: faultSequence(fault, fault) });
    const result = await provider(s, { maxRetries: 2 })
      .chat('m')
      .doGenerate({ messages: say('last') });
    expect(result.text).toBe('echo: last');
    expect(s.records).toHaveLength(3);
  });
});

/** Milliseconds between consecutive attempts of each call, as the server saw them, after a fault of `kind`. */
function gapsAfter(records: FaultRecord[], kind: FaultKind): { fault: Fault; gap: number }[] {
  const byKey = new Map<string, FaultRecord[]>();
  for (const r of records) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  const out: { fault: Fault; gap: number }[] = [];
  for (const list of byKey.values()) {
    for (let i = 0; i + 1 < list.length; i++) {
      const fault = list[i]!.fault;
      if (fault?.kind === kind) out.push({ fault, gap: list[i + 1]!.receivedAt - list[i]!.receivedAt });
    }
  }
  return out;
}

describe('backoff', () => {
  it('waits what Retry-After and retry-after-ms ask for', async () => {
    const s = await start({
      faults: faultSequence(
        { kind: 'rate-limit', retryAfterMs: 120 },
        { kind: 'rate-limit', retryAfterSeconds: 0.12 },
      ),
    });
    // Far above the jittered backoff (at most 5 and 10 ms here), so the waits come from the headers.
    await provider(s, { retryMaxDelayMs: 1000 })
      .chat('m')
      .doGenerate({ messages: say('wait') });
    const gaps = gapsAfter(s.records, 'rate-limit').map((g) => g.gap);
    expect(gaps).toHaveLength(2);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(110);
  });

  it('rides out a 429 storm across concurrent calls, each waiting the Retry-After it got', async () => {
    const s = await start({ faults: rateLimitStorm({ from: 0, count: 14, retryAfterMs: 40 }) });
    const chat = provider(s, { concurrency: 4, maxRetries: 6, retryMaxDelayMs: 200 }).chat('m');
    const prompts = Array.from({ length: 8 }, (_, i) => `question ${i}`);
    const results = await Promise.all(prompts.map((p) => chat.doGenerate({ messages: say(p) })));
    expect(results.map((r) => r.text)).toEqual(prompts.map((p) => `echo: ${p}`));
    expect(s.outcomes()).toEqual({ 'rate-limit': 14, ok: 8 });
    const gaps = gapsAfter(s.records, 'rate-limit');
    expect(gaps).toHaveLength(14);
    for (const { gap } of gaps) expect(gap).toBeGreaterThanOrEqual(35);
  });

  it('backs off with jitter between attempts when the server names no delay', async () => {
    const fault: Fault = { kind: 'server-error', status: 500 };
    const s = await start({ faults: faultSequence(fault, fault, fault, fault) });
    await provider(s, { retryBaseDelayMs: 20, retryMaxDelayMs: 40 })
      .chat('m')
      .doGenerate({ messages: say('b') });
    const gaps = gapsAfter(s.records, 'server-error').map((g) => g.gap);
    expect(gaps).toHaveLength(4);
    // Full jitter below the caps 20, 40, 40, 40 ms; the bound only catches a wait from elsewhere
    // (a default 500 ms base, a Retry-After), not the exact draw.
    for (const gap of gaps) expect(gap).toBeLessThan(40 + 250);
  });
});

describe('a dense seeded fault schedule', () => {
  const schedule = { seed: 7, rate: 0.6, maxFaultsPerCall: 3 };

  it('every call of a mixed chat and embedding workload gets its own answer', async () => {
    const s = await start({ faults: seededFaults(schedule) });
    // A healthy answer must never time out here (a second "ok" for one call): 36 calls six at a
    // time on a loaded 2-core machine took over FAST's 300 ms once, so this test waits 1.5 s.
    const p = provider(s, { maxRetries: 3, concurrency: 6, timeoutMs: 1500 });
    const chat = p.chat('m');
    const embedder = p.embedding('e', { dimensions: DIMENSIONS, batchSize: 2 });
    const prompts = Array.from({ length: 24 }, (_, i) => `prompt number ${i}`);
    const values = Array.from({ length: 24 }, (_, i) => `text ${i} about graphs`);
    const [texts, vectors] = await Promise.all([
      Promise.all(prompts.map((q) => chat.doGenerate({ messages: say(q) }).then((r) => r.text))),
      embedder.doEmbed({ values }).then((r) => r.embeddings),
    ]);
    expect(texts).toEqual(prompts.map((q) => `echo: ${q}`));
    expect(vectors).toEqual(values.map((v) => hashedBagOfWords(v, DIMENSIONS)));
    // Not vacuous: the schedule injected every kind of fault.
    const outcomes = s.outcomes();
    for (const kind of ['rate-limit', 'server-error', 'reset', 'stall', 'malformed', 'truncated']) {
      expect(outcomes[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    // One normal answer per call (24 chats, 12 batches), and every fault was followed by a retry.
    expect(outcomes['ok']).toBe(36);
    const keys = new Set(s.records.map((r) => r.key));
    expect(keys.size).toBe(36);
    for (const key of keys) {
      const attempts = s.records.filter((r) => r.key === key);
      expect(attempts.at(-1)?.fault).toBeUndefined();
      expect(attempts.slice(0, -1).every((r) => r.fault !== undefined)).toBe(true);
    }
  });

  it('with fewer retries than faults, exactly the calls whose attempts all fail are lost', async () => {
    const plan = seededFaults(schedule);
    const s = await start({ faults: plan });
    const chat = provider(s, { maxRetries: 1, concurrency: 6 }).chat('m');
    const prompts = Array.from({ length: 30 }, (_, i) => `call ${i}`);
    const settled = await Promise.allSettled(prompts.map((q) => chat.doGenerate({ messages: say(q) })));
    // Oracle: the plan itself, asked about attempts 0 and 1 of each call's key.
    const keyOf = new Map(s.records.map((r) => [r.body.messages[0].content as string, r.key]));
    const expectedLost = prompts.filter((q) => {
      const key = keyOf.get(q)!;
      return [0, 1].every(
        (attempt) => plan({ index: 0, endpoint: 'chat', body: {}, key, attempt }) !== undefined,
      );
    });
    const lost = prompts.filter((_, i) => settled[i]!.status === 'rejected');
    expect(lost).toEqual(expectedLost);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.length).toBeLessThan(prompts.length);
    for (const [i, outcome] of settled.entries()) {
      if (outcome.status === 'fulfilled') expect(outcome.value.text).toBe(`echo: ${prompts[i]}`);
      else expect(ProviderError.isInstance(outcome.reason) && outcome.reason.retryable).toBe(true);
    }
  });
});
