/**
 * `gragMiddleware`: retrieval-augmented generation as AI SDK language model middleware. The last
 * user message is searched in a grag index, the items go to the model with the question, and the
 * items the answer cites come back as the AI SDK's source parts.
 */
import type { RetrievedItem, RetrieveOptions } from '@grag/core';
import { citedSources } from '@grag/core/kit';
import { parseAnswer } from '@grag/core/tasks';
import type { LanguageModelMiddleware } from 'ai';
import {
  type GragToolCommonOptions,
  type GragToolOptions,
  type GragToolRetrieveOptions,
  itemCount,
  retrievedItems,
  retrieverOf,
} from './tool.js';

/** What {@link gragMiddleware} adds to the question when none is given: how to use and cite the items. */
export const GRAG_MIDDLEWARE_INSTRUCTIONS =
  'Answer from the sources below. Cite each source you use by its id in square brackets, as [id]. ' +
  'If the sources do not hold the answer, say so.';

/** What {@link gragMiddleware} takes besides its retrieval (an index and method, or `retrieve`). */
export interface GragMiddlewareCommonOptions extends Pick<GragToolCommonOptions, 'k'> {
  /**
   * What the model reads before the sources, after the question.
   * @default {@link GRAG_MIDDLEWARE_INSTRUCTIONS}
   */
  instructions?: string;
}

/** Options of {@link gragMiddleware}: an index and its method, or a `retrieve` function, as `gragTool` takes them. */
export type GragMiddlewareOptions<
  Index,
  R extends RetrieveOptions = RetrieveOptions,
> = GragMiddlewareCommonOptions &
  (Omit<GragToolOptions<Index, R>, 'description'> | Omit<GragToolRetrieveOptions, 'description'>);

type Prompt = { role: string; content: unknown }[];
type Part = { type: string; text?: string; delta?: string };

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return (content as Part[])
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The sources as the model reads them: the instructions, then `[id] text` per item. */
function sourcesText(instructions: string, items: readonly RetrievedItem[]): string {
  const lines = items.map((item) => `[${item.id}] ${item.text.replace(/\s+/g, ' ').trim()}`);
  return `${instructions}\n\nSources:\n${lines.join('\n')}`;
}

/** The AI SDK source parts of the items `text` cites, in citation order. */
function sourceParts(text: string, items: readonly RetrievedItem[]) {
  const { citations } = parseAnswer(
    text,
    items.map((item) => item.id),
  );
  return citedSources(citations, items).map((cited) => {
    const filename = cited.locations?.[0]?.path;
    const grag = {
      itemId: cited.id,
      docIds: cited.docIds,
      ...(cited.locations ? { locations: cited.locations.map((l) => ({ ...l })) } : {}),
    };
    return {
      type: 'source' as const,
      sourceType: 'document' as const,
      id: cited.id,
      mediaType: 'text/plain',
      title: cited.label || cited.id,
      ...(filename !== undefined ? { filename } : {}),
      providerMetadata: { grag },
    };
  });
}

/**
 * Retrieval-augmented generation as AI SDK language model middleware, for
 * `wrapLanguageModel({ model, middleware: gragMiddleware({ index, method }) })`: before each call,
 * the text of the last user message is searched (`method.retrieve(index, question)`, or
 * `retrieve(question, { signal })`, with the call's `abortSignal`), and its first `k` items (`topK`
 * of `retrieveOptions` when `k` is not given, else all) are
 * appended to that message as one more text part — the instructions, then `[id] text` per item. The
 * answer's citations of those ids come back as source parts (`sourceType: 'document'`, `id` the
 * item's id, `title` its source label such as `report.pdf p. 3`, `filename` its file,
 * `providerMetadata.grag` `{ itemId, docIds, locations? }`): `result.sources` of `generateText`,
 * and `source-document` parts of `streamText(...).toUIMessageStreamResponse({ sendSources: true })`
 * for `useChat`. In a streamed call they are sent just before `finish`.
 *
 * A call with no user message, or one with no text, goes to the model unchanged. Each call
 * searches, so every step of a multi-step call (tools) searches the same question again.
 *
 * Throws `InvalidArgumentError` for the options `gragTool` refuses (a missing method or index, a bad
 * `k` or `retrieveOptions`, a `retrieve` that is not a function).
 *
 * @example
 * ```ts
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: gragMiddleware({ index, method: nodeRag, k: 8 }) });
 * const { text, sources } = await generateText({ model, prompt: 'Who founded the Kessler Shipyard?' });
 * ```
 */
export function gragMiddleware<Index, R extends RetrieveOptions = RetrieveOptions>(
  options: GragMiddlewareOptions<Index, R>,
): LanguageModelMiddleware {
  const retrieve = retrieverOf(
    options as GragToolOptions<unknown> | GragToolRetrieveOptions,
    'gragMiddleware',
  );
  const k = itemCount(options, 'gragMiddleware');
  const instructions = options.instructions ?? GRAG_MIDDLEWARE_INSTRUCTIONS;
  // The items each transformed call was given, for its answer's sources.
  const given = new WeakMap<object, readonly RetrievedItem[]>();
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => {
      const prompt = params.prompt as Prompt;
      const at = prompt.findLastIndex((message) => message.role === 'user');
      const question = at < 0 ? '' : textOf(prompt[at]!.content).trim();
      if (question === '') return params;
      const items = await retrievedItems(retrieve, question, params.abortSignal, k, 'gragMiddleware');
      const part = { type: 'text', text: sourcesText(instructions, items) };
      const next = {
        ...params,
        prompt: prompt.map((message, i) =>
          i === at ? { ...message, content: [...(message.content as Part[]), part] } : message,
        ),
      } as typeof params;
      given.set(next, items);
      return next;
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      const items = given.get(params);
      if (!items) return result;
      const text = textOf(result.content);
      return { ...result, content: [...result.content, ...sourceParts(text, items)] };
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      const items = given.get(params);
      if (!items) return result;
      let text = '';
      type StreamPart = typeof result.stream extends ReadableStream<infer P> ? P : never;
      const withSources = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') text += part.delta;
          if (part.type === 'finish') {
            for (const source of sourceParts(text, items)) controller.enqueue(source);
          }
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(withSources) };
    },
  };
}
