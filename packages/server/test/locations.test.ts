/**
 * Provenance to the citation over HTTP: an index of documents loaded with segments (pages,
 * sections, rows) answers with each citation's locations and label, whole and streamed, and every
 * item carries its `source.locations`.
 */
import { formatLocation } from '@grag/core/kit';
import { LOCATED_QUESTIONS, locatedDocuments } from '@grag/core/test';
import { bm25Rag } from '@grag/naive-rag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerJson, type RunningServer, serve } from '../src/index.js';
import { offlineContext, parseEvents, postQuery } from './helpers.js';

describe('citations name the page, section or row they come from', () => {
  let server: RunningServer;

  beforeAll(async () => {
    const index = await bm25Rag.build(locatedDocuments(), offlineContext(), { chunking: 'document' });
    server = await serve({ indexes: [{ method: bm25Rag, index }], port: 0 });
  });

  afterAll(async () => {
    await server?.close();
  });

  for (const q of LOCATED_QUESTIONS) {
    it(`labels the citation of "${q.question}" ${formatLocation(q.location)}`, async () => {
      const body = await (
        await postQuery(server.url, { question: q.question, topK: 2, answer: true })
      ).json();
      const answer = body.answer as AnswerJson;
      expect(answer.text).toContain(q.answer);
      expect(answer.sources.map((s) => s.id)).toEqual(answer.citations);
      const cited = answer.sources[0]!;
      expect(cited.locations).toEqual([q.location]);
      expect(cited.label).toBe(formatLocation(q.location));
      const item = body.retrieval.items.find((i: { id: string }) => i.id === cited.id);
      expect(item.source.locations).toEqual([q.location]);
    });
  }

  it('sends the same sources in the streamed answer event', async () => {
    const question = LOCATED_QUESTIONS[0]!.question;
    const whole = await (await postQuery(server.url, { question, topK: 2, answer: true })).json();
    const res = await postQuery(server.url, { question, topK: 2, answer: true, stream: true });
    const events = parseEvents(await res.text());
    const answer = events.find((e) => e.event === 'answer')!.data as AnswerJson;
    expect(answer).toEqual(whole.answer);
    expect(answer.sources[0]!.label).toBe('report.pdf p. 3');
  });
});
