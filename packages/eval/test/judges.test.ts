import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCallOptions } from '@grag/core';
import { ModelOutputError } from '@grag/core';
import { createScriptedChatModel } from '@grag/core/test';
import { createOpenAI } from '@grag/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  empowermentScores,
  judgeCorrectness,
  judgePair,
  PAIRWISE_CRITERIA,
  parseCorrectness,
  parsePairwiseVerdict,
  parseWinner,
  winRates,
} from '../src/index.js';

const user = (call: ChatCallOptions) => call.messages.at(-1)?.content ?? '';

/** The text shown as "Answer 1" in a pairwise prompt. */
function firstShown(prompt: string): string {
  return /Answer 1:\n([\s\S]*?)\n\nAnswer 2:/.exec(prompt)?.[1] ?? '';
}

function verdict(winners: Partial<Record<string, string>>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(winners).map(([c, w]) => [c, { winner: w, reason: 'because' }])),
  );
}

const all = (winner: string) => verdict(Object.fromEntries(PAIRWISE_CRITERIA.map((c) => [c, winner])));

/** A judge that prefers the answer mentioning "detail", wherever it is shown. */
function contentJudge(call: ChatCallOptions): string {
  return all(firstShown(user(call)).includes('detail') ? 'Answer 1' : 'Answer 2');
}

describe('reading judge replies', () => {
  it('reads winners in their usual spellings', () => {
    expect(parseWinner('Answer 1')).toBe(1);
    expect(parseWinner('answer2')).toBe(2);
    expect(parseWinner('The second answer')).toBe(2);
    expect(parseWinner(1)).toBe(1);
    expect(parseWinner('Tie')).toBe('tie');
    expect(parseWinner('Answer 1 and Answer 2')).toBeUndefined();
    expect(parseWinner('')).toBeUndefined();
  });

  it('reads a verdict from JSON in prose, with flat or nested fields', () => {
    const raw =
      'Here you go:\n```json\n{"Comprehensiveness": {"Winner": "Answer 2"}, "diversity": "Answer 1", "Overall": {"winner": "tie"}}\n```';
    expect(parsePairwiseVerdict(raw)).toEqual({ comprehensiveness: 2, diversity: 1, overall: 'tie' });
    expect(parsePairwiseVerdict('no json at all')).toEqual({});
  });

  it('reads correctness from JSON or a leading word', () => {
    expect(parseCorrectness('{"correct": true}')).toBe(true);
    expect(parseCorrectness('{"correct": "no", "reason": "wrong city"}')).toBe(false);
    expect(parseCorrectness('Incorrect. The answer is Oslo.')).toBe(false);
    expect(parseCorrectness('Yes')).toBe(true);
    expect(parseCorrectness('maybe')).toBeUndefined();
  });
});

describe('head-to-head judging with a scripted model', () => {
  it('asks in both orders and averages, so a position-biased judge scores a tie', async () => {
    const model = createScriptedChatModel(() => all('Answer 1'));
    const j = await judgePair(model, { question: 'Q?', a: 'alpha answer', b: 'beta answer' });
    expect(model.calls).toHaveLength(2);
    expect(firstShown(user(model.calls[0] as ChatCallOptions))).toBe('alpha answer');
    expect(firstShown(user(model.calls[1] as ChatCallOptions))).toBe('beta answer');
    expect(model.calls.every((c) => c.temperature === 0 && c.responseFormat === 'json')).toBe(true);
    expect(j.scores).toEqual({ comprehensiveness: 0.5, diversity: 0.5, empowerment: 0.5, overall: 0.5 });
    expect(j.showings.map((s) => s.winners.overall)).toEqual(['a', 'b']);
  });

  it('credits the better answer in both orders and counts ties as half', async () => {
    const model = createScriptedChatModel((call) => {
      const aFirst = firstShown(user(call)).includes('detail');
      return verdict({
        comprehensiveness: aFirst ? 'Answer 1' : 'Answer 2',
        diversity: 'tie',
        empowerment: aFirst ? 'Answer 1' : 'Answer 2',
        overall: aFirst ? 'Answer 1' : 'tie',
      });
    });
    const j = await judgePair(model, { question: 'Q?', a: 'a detailed answer', b: 'short' });
    expect(j.scores).toEqual({ comprehensiveness: 1, diversity: 0.5, empowerment: 1, overall: 0.75 });
  });

  it('averages over the showings that named a criterion and reports the gap', async () => {
    const model = createScriptedChatModel([verdict({ overall: 'Answer 1' }), all('Answer 2')]);
    const j = await judgePair(model, { question: 'Q?', a: 'A', b: 'B' });
    // a first: a wins overall only; b first: "Answer 2" (= a) wins everything
    expect(j.scores).toEqual({ comprehensiveness: 1, diversity: 1, empowerment: 1, overall: 1 });
    expect(j.issues).toEqual([
      'a first: no verdict for comprehensiveness',
      'a first: no verdict for diversity',
      'a first: no verdict for empowerment',
    ]);
  });

  it('throws a ModelOutputError when neither reply names a winner', async () => {
    const model = createScriptedChatModel(['I cannot decide.', '{}']);
    await expect(judgePair(model, { question: 'Q?', a: 'A', b: 'B' })).rejects.toSatisfy(
      (e: unknown) =>
        ModelOutputError.isInstance(e) && e.task === 'judge-pairwise' && e.raw.includes('I cannot decide.'),
    );
  });

  it('computes win rates over questions and leaves failed pairs out', async () => {
    const model = createScriptedChatModel((call) => {
      const prompt = user(call);
      if (prompt.includes('Q3')) return 'unreadable';
      return contentJudge(call);
    });
    const rates = await winRates(
      model,
      [
        { question: 'Q1', a: 'a detailed one', b: 'plain' },
        { question: 'Q2', a: 'plain', b: 'another detailed one' },
        { question: 'Q3', a: 'x', b: 'y' },
      ],
      { concurrency: 2 },
    );
    expect(rates.winRate).toEqual({ comprehensiveness: 0.5, diversity: 0.5, empowerment: 0.5, overall: 0.5 });
    expect(rates.judged).toEqual({ comprehensiveness: 2, diversity: 2, empowerment: 2, overall: 2 });
    expect(rates.failures.map((f) => f.index)).toEqual([2]);
    expect(model.calls).toHaveLength(6);
  });
});

describe('correctness and Empowerment with a scripted model', () => {
  it('grades an answer against the gold answer and its aliases', async () => {
    const model = createScriptedChatModel(['{"correct": true, "reason": "same city"}', 'Incorrect.', 'hmm']);
    const ok = await judgeCorrectness(model, {
      question: 'Capital?',
      gold: ['Oslo', 'Christiania'],
      answer: 'Oslo',
    });
    expect(ok).toMatchObject({ correct: true, reason: 'same city' });
    expect(user(model.calls[0] as ChatCallOptions)).toContain('Oslo (also accepted: Christiania)');
    expect((await judgeCorrectness(model, { question: 'Q', gold: ['x'], answer: 'y' })).correct).toBe(false);
    await expect(judgeCorrectness(model, { question: 'Q', gold: ['x'], answer: 'y' })).rejects.toSatisfy(
      (e: unknown) => ModelOutputError.isInstance(e) && e.task === 'judge-correctness',
    );
  });

  it('scores answers under neutral labels in both orders and clamps the scales', async () => {
    // Content-based: the answer with reasoning ("because") gets logic 5 (clamped to 2) and insight 1.
    const model = createScriptedChatModel((call) => {
      const prompt = user(call);
      const blocks = [...prompt.matchAll(/\[(Answer [A-Z])\]\n([^\n]*)/g)];
      return JSON.stringify(
        Object.fromEntries(
          blocks.map(([, label, text]) => [
            label,
            text?.includes('because') ? { logic: 5, insight: 1 } : { logic: 1, insight: 0 },
          ]),
        ),
      );
    });
    const scores = await empowermentScores(model, {
      question: 'Why is the sky blue?',
      gold: ['Rayleigh scattering'],
      answers: { graph: 'Blue because of Rayleigh scattering.', naive: 'It is blue.' },
    });
    expect(scores).toEqual({
      graph: { logic: 2, insight: 1, total: 3 },
      naive: { logic: 1, insight: 0, total: 1 },
    });
    expect(model.calls).toHaveLength(2);
    expect(model.calls.map((c) => /\[Answer A\]\n([^\n]*)/.exec(user(c))?.[1])).toEqual([
      'Blue because of Rayleigh scattering.',
      'It is blue.',
    ]);
    expect(user(model.calls[0] as ChatCallOptions)).not.toContain('graph');
  });

  it('averages a position-biased Empowerment judge to the same score for both answers', async () => {
    const model = createScriptedChatModel(() =>
      JSON.stringify({ 'Answer A': { logic: 2, insight: 1 }, 'Answer B': { logic: 0, insight: 0 } }),
    );
    const scores = await empowermentScores(model, {
      question: 'Q',
      gold: ['g'],
      answers: { x: 'one', y: 'two' },
    });
    expect(scores).toEqual({
      x: { logic: 1, insight: 0.5, total: 1.5 },
      y: { logic: 1, insight: 0.5, total: 1.5 },
    });
  });
});

describe('judges over a local OpenAI-compatible HTTP server', () => {
  let server: Server;
  let baseURL = '';
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected field by field
  const bodies: any[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString('utf8');
      });
      req.on('end', () => {
        const body = JSON.parse(text);
        bodies.push(body);
        const prompt: string = body.messages.at(-1).content;
        let content: string;
        if (prompt.includes('Answer 1:')) content = contentJudge({ messages: body.messages });
        else if (prompt.includes('Answer to grade'))
          content = JSON.stringify({ correct: /Answer to grade:\nOslo/.test(prompt) });
        else
          content = JSON.stringify({
            'Answer A': { logic: 2, insight: 0 },
            'Answer B': { logic: 1, insight: 1 },
          });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-judge',
            object: 'chat.completion',
            created: 0,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('requests both orders over HTTP and averages them', async () => {
    const model = createOpenAI({ baseURL, apiKey: 'test-key', maxRetries: 0 }).chat('judge-model');
    bodies.length = 0;
    const rates = await winRates(model, [
      { question: 'Q1', a: 'a detailed answer', b: 'plain' },
      { question: 'Q2', a: 'plain', b: 'plain too' },
    ]);
    expect(bodies).toHaveLength(4);
    expect(bodies.every((b) => b.model === 'judge-model' && b.temperature === 0)).toBe(true);
    expect(bodies.every((b) => b.response_format?.type === 'json_object')).toBe(true);
    const shownFirst = bodies.map((b) => firstShown(b.messages.at(-1).content)).sort();
    expect(shownFirst).toEqual(['a detailed answer', 'plain', 'plain', 'plain too']);
    // Q1: a wins both showings (1); Q2: neither says "detail", the judge picks Answer 2 each time (0.5)
    expect(rates.winRate.overall).toBeCloseTo(0.75, 12);
  });

  it('grades correctness and Empowerment over HTTP', async () => {
    const model = createOpenAI({ baseURL, apiKey: 'test-key', maxRetries: 0 }).chat('judge-model');
    expect(
      (await judgeCorrectness(model, { question: 'Capital?', gold: ['Oslo'], answer: 'Oslo' })).correct,
    ).toBe(true);
    expect(
      (await judgeCorrectness(model, { question: 'Capital?', gold: ['Oslo'], answer: 'Bergen' })).correct,
    ).toBe(false);
    const scores = await empowermentScores(model, {
      question: 'Q',
      gold: ['g'],
      answers: { x: 'one', y: 'two' },
    });
    expect(scores.x).toEqual({ logic: 1.5, insight: 0.5, total: 2 });
  });
});
