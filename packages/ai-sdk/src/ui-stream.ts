/** A grag answer as an AI SDK UI message stream: the answer's text, then a source per citation. */
import type { ChatModel, Retrieval, TaskSuite } from '@grag/core';
import { type CitedSource, citedSources } from '@grag/core/kit';
import { streamAnswer } from '@grag/core/tasks';
import { createUIMessageStream, generateId, type UIMessageChunk } from 'ai';

/** Options of {@link gragUIMessageStream}. */
export interface GragUIMessageStreamOptions {
  /** The user's question. */
  question: string;
  /** What grag retrieved for it (`method.retrieve(index, question)`): the answer reads its items. */
  retrieval: Pick<Retrieval, 'items'>;
  /**
   * Where the answer comes from, as core's `streamAnswer` takes it: a task suite (a prompt suite on
   * a model that streams streams its answer; another suite, such as `@grag/offline`'s, answers in
   * one piece) or a chat model (e.g. `fromAiSdk(openai('gpt-4o-mini'))`).
   */
  answer: TaskSuite | ChatModel;
  /** Aborts the model call. */
  abortSignal?: AbortSignal;
  /**
   * A URL for a citation, to send it as a `source-url` part (e.g. your app's page of the cited
   * document); without one (or when it returns `undefined`) the citation is a `source-document`
   * part. @default none
   */
  sourceUrl?: (source: CitedSource) => string | undefined;
  /** Send the `start` chunk (turn off to merge this stream into another message). @default true */
  sendStart?: boolean;
  /** Send the `finish` chunk (turn off to merge this stream into another message). @default true */
  sendFinish?: boolean;
  /**
   * The error text a client sees when the answer fails mid-stream.
   * @default the AI SDK's `createUIMessageStream` default (a generic message; details stay on the server)
   */
  onError?: (error: unknown) => string;
}

/** The UI message chunk of one citation. */
function sourceChunk(source: CitedSource, url: string | undefined): UIMessageChunk {
  const grag = {
    itemId: source.id,
    docIds: source.docIds,
    ...(source.locations ? { locations: source.locations.map((l) => ({ ...l })) } : {}),
  };
  const title = source.label || source.id;
  const providerMetadata = { grag } as NonNullable<
    Extract<UIMessageChunk, { type: 'source-url' }>['providerMetadata']
  >;
  if (url !== undefined) return { type: 'source-url', sourceId: source.id, url, title, providerMetadata };
  const filename = source.locations?.[0]?.path;
  return {
    type: 'source-document',
    sourceId: source.id,
    mediaType: 'text/plain',
    title,
    ...(filename !== undefined ? { filename } : {}),
    providerMetadata,
  };
}

/**
 * A grag answer as an AI SDK UI message stream (`createUIMessageStream`), for `useChat` and any
 * reader of the AI SDK's UI messages: `start`, one text part streamed as the model writes the answer
 * (`text-start`, `text-delta`…, `text-end`), then one source part per citation of the answer (of a retrieved item), in
 * citation order (`source-document` titled with the cited item's source label — `report.pdf p. 3`,
 * else its documents — and the file name of its first place; or `source-url` with `sourceUrl`), then
 * `finish`. Each source's `sourceId` is the cited item's id (what the text cites as `[id]`) and its
 * `providerMetadata.grag` holds `itemId`, `docIds` and `locations`. A failure of the model is an
 * `error` chunk (see `onError`).
 *
 * Send it from a route with the AI SDK's `createUIMessageStreamResponse({ stream })`.
 *
 * @example
 * ```ts
 * const retrieval = await bm25Rag.retrieve(index, question);
 * return createUIMessageStreamResponse({
 *   stream: gragUIMessageStream({ question, retrieval, answer: ctx.tasks }),
 * });
 * ```
 */
export function gragUIMessageStream(options: GragUIMessageStreamOptions): ReadableStream<UIMessageChunk> {
  const { question, retrieval, answer, abortSignal, sourceUrl } = options;
  const items = retrieval.items;
  return createUIMessageStream({
    ...(options.onError ? { onError: options.onError } : {}),
    execute: async ({ writer }) => {
      if (options.sendStart !== false) writer.write({ type: 'start' });
      const id = generateId();
      let started = false;
      const context = items.map((item) => ({ id: item.id, text: item.text }));
      for await (const part of streamAnswer(answer, question, context, abortSignal ? { abortSignal } : {})) {
        if (part.type === 'text-delta') {
          if (!started) writer.write({ type: 'text-start', id });
          started = true;
          writer.write({ type: 'text-delta', id, delta: part.text });
          continue;
        }
        if (started) writer.write({ type: 'text-end', id });
        // An id the answer cites that is no retrieved item points at nothing to show.
        const known = part.answer.citations.filter((cited) => items.some((item) => item.id === cited));
        for (const source of citedSources(known, items)) {
          writer.write(sourceChunk(source, sourceUrl?.(source)));
        }
      }
      if (options.sendFinish !== false) writer.write({ type: 'finish' });
    },
  });
}
