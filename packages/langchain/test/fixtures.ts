/**
 * Shared test material: a hand-written corpus, a LangChain embeddings class whose vectors (and so
 * rankings) can be worked out by hand, and a LangChain fake chat model that reports token usage.
 */
import type { Document } from '@grag/core';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { Embeddings } from '@langchain/core/embeddings';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { FakeListChatModel } from '@langchain/core/utils/testing';

/** Four short passages; each question below has exactly one passage that answers it. */
export const DOCS: Document[] = [
  {
    id: 'kessler',
    title: 'Kessler Shipyard',
    text: 'The Kessler Shipyard was founded in 1881 by Anton and Jakob Kessler. It builds ferries.',
  },
  {
    id: 'orsa',
    title: 'Orsa',
    text: 'Orsa is an island across the Veskan Strait, home of a marine institute.',
  },
  {
    id: 'nordlys',
    title: 'Nordlys',
    text: 'The Nordlys is a ferry that crosses the Veskan Strait from Port Halvard.',
  },
  {
    id: 'regatta',
    title: 'Varnholm Regatta',
    text: 'The Varnholm Regatta is a sailing race held every August.',
  },
];

/** Substrings counted by {@link KeywordEmbeddings}, one dimension each. */
export const VOCABULARY = ['shipyard', 'island', 'ferr', 'race', 'institute', 'found'] as const;

/**
 * A LangChain `Embeddings`: dimension i counts the occurrences of `VOCABULARY[i]` in the lower-cased
 * text. With titles written first (naive-rag's default), the corpus embeds as
 * kessler [2,0,1,0,0,1], orsa [0,1,0,0,1,0], nordlys [0,0,1,0,0,0], regatta [0,0,0,1,0,0].
 * Records every `embedDocuments` batch.
 */
export class KeywordEmbeddings extends Embeddings {
  readonly batches: string[][] = [];
  readonly model = 'keyword-counts';

  constructor() {
    super({});
  }

  static vector(text: string): number[] {
    const lower = text.toLowerCase();
    return VOCABULARY.map((word) => lower.split(word).length - 1);
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    this.batches.push([...documents]);
    return documents.map((d) => KeywordEmbeddings.vector(d));
  }

  async embedQuery(document: string): Promise<number[]> {
    return KeywordEmbeddings.vector(document);
  }
}

/** Token usage every {@link UsageFakeChat} reply reports. */
export const FAKE_USAGE = { input_tokens: 42, output_tokens: 7, total_tokens: 49 } as const;

/**
 * LangChain's `FakeListChatModel` (answers its `responses` in turn; `stop[0]` when `stop` is
 * given) with `usage_metadata` and a `finish_reason` on every reply, as real providers report
 * them, and a record of the messages each call received.
 */
export class UsageFakeChat extends FakeListChatModel {
  readonly received: BaseMessage[][] = [];
  finishReason = 'stop';

  override async _generate(
    messages: BaseMessage[],
    options?: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    this.received.push(messages);
    const result = await super._generate(messages, options, runManager);
    const generation = result.generations[0]!;
    generation.message = new AIMessage({
      content: generation.text,
      usage_metadata: { ...FAKE_USAGE },
      response_metadata: { finish_reason: this.finishReason },
    });
    return result;
  }
}
