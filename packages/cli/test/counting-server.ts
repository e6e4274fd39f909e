/**
 * A counting OpenAI-compatible server on 127.0.0.1 for tests that run `grag` against an endpoint:
 * deterministic answers, a log of every call received and completed, and a switch that holds
 * requests after N completed chat calls so a client can be stopped at a known point.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashedBagOfWords } from '@grag/core/kit';

/** One request: its body hash and kind. */
export interface Call {
  key: string;
  kind: 'chat' | 'embeddings';
}

/**
 * An OpenAI-compatible server with deterministic answers: chat answers name the capitalized words
 * of the last user message as entities (JSON every structured parser reads), embeddings are hashed
 * bags of words. It logs the calls it completed (the whole response written), and can hold every
 * request after a given number of completed chat calls, so a client is stopped at a known point.
 */
export class CountingServer {
  readonly received: Call[] = [];
  readonly completed: Call[] = [];
  holdAfterChat: number | undefined;
  readonly #held = new Set<ServerResponse>();
  /** How each held request is answered when {@link release} lets it go. */
  readonly #answers = new Map<ServerResponse, () => void>();
  readonly #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const res of this.#held) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  reset(): void {
    this.received.length = 0;
    this.completed.length = 0;
    this.holdAfterChat = undefined;
    for (const res of this.#held) res.destroy();
    this.#held.clear();
    this.#answers.clear();
  }

  /** Hold no more: answer the requests held so far, and those to come. */
  release(): void {
    this.holdAfterChat = undefined;
    for (const answer of this.#answers.values()) answer();
    this.#held.clear();
    this.#answers.clear();
  }

  get completedChats(): number {
    return this.completed.filter((c) => c.kind === 'chat').length;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const kind = req.url?.endsWith('/embeddings') ? 'embeddings' : 'chat';
      // biome-ignore lint/suspicious/noExplicitAny: request bodies
      const body = JSON.parse(raw) as any;
      const call: Call = { kind, key: createHash('sha256').update(raw).digest('hex') };
      this.received.push(call);
      const answer = () => {
        const payload = kind === 'chat' ? chatAnswer(body) : embeddingAnswer(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload), () => this.completed.push(call));
      };
      if (this.holdAfterChat !== undefined && this.completedChats >= this.holdAfterChat) {
        this.#held.add(res);
        this.#answers.set(res, answer);
        return;
      }
      answer();
    });
  }
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies
function chatAnswer(body: any): unknown {
  const messages = body.messages as { role: string; content: string }[];
  const last = messages.at(-1)?.content ?? '';
  const names = [...new Set(last.match(/\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b/g) ?? [])].slice(0, 6);
  // A follow-up turn (gleaning, repair) finds nothing more.
  const first = messages.filter((m) => m.role === 'assistant').length === 0;
  const entities = first
    ? names.map((name) => ({ name, type: 'organization', description: `${name} appears in the text.` }))
    : [];
  const relations = entities.slice(1).map((e, i) => ({
    source: entities[i]!.name,
    target: e.name,
    description: `${entities[i]!.name} is mentioned with ${e.name}.`,
    strength: 5,
  }));
  const content = JSON.stringify({
    entities,
    relations,
    title: names[0] ?? 'Text',
    description: last.slice(0, 60),
  });
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: Math.ceil(JSON.stringify(messages).length / 4), completion_tokens: 20 },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies
function embeddingAnswer(body: any): unknown {
  const inputs = body.input as string[];
  return {
    object: 'list',
    model: body.model,
    data: inputs.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: Array.from(hashedBagOfWords(text, 16)),
    })),
    usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
  };
}

/** Flags that point grag at the models of {@link CountingServer}. */
export const MODEL_FLAGS = [
  '--embedding-model',
  'test-embed',
  '--embedding-dimensions',
  '16',
  '--chat-model',
  'test-chat',
  '--vector-index',
  'flat',
];
