/**
 * The OpenAPI document at `GET /openapi.json`: valid OpenAPI 3.1 (checked by an OpenAPI
 * validator), one operation for every route the app has, served under the browser guard, and
 * describing what the live server answers (each response body checked with ajv against the
 * document's schema for its route, status and content type).
 */

import type { RetrievedItem as CoreItem, SourceLocation as CoreLocation, Retrieval } from '@grag/core';
import type { CitedSource as CoreCitedSource } from '@grag/core/kit';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { parseChatRequest } from '../src/chat.js';
import { createGragServer, openApiDocument, type RunningServer, serve } from '../src/index.js';
import { checkRequestOptions, parseQueryRequest } from '../src/query.js';
import type { CitedSource, QueryRequest, RetrievedItem, SourceLocation, Subgraph } from '../src/schema.js';
import { demoIndexes, QUESTION } from './explorer-fixture.js';
import { get, parseEvents, postQuery, rawRequest, scriptedIndex, streamingChat } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Doc = Record<string, any>;

/** A user message of one text part, as `useChat` sends it. */
function userText(text: string) {
  return { id: 'u', role: 'user', parts: [{ type: 'text', text }] };
}

/** POST a JSON body to `/v1/chat`. */
function postChat(base: string, body: unknown, headers: Record<string, string> = {}) {
  return get(base, '/v1/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

let server: RunningServer;
let doc: Doc;
const TOKEN = 'openapi-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };
/** The methods the streamed answers are checked on, with the last query event and the last chat chunk of each. */
const STREAM_ENDS = [
  ['scripted-graph', 'done', 'finish'],
  ['e2graphrag', 'done', 'finish'],
  ['broken', 'error', 'error'],
] as const;

beforeAll(async () => {
  const demo = await demoIndexes();
  server = await serve({
    indexes: [
      ...demo,
      scriptedIndex(streamingChat(['Ilse Marren ', 'directs it [lindqvist].'])),
      scriptedIndex(streamingChat(['It is '], { failAfter: 0 }), 'broken'),
    ],
    explorerDir: false,
    token: TOKEN,
    maxQuestionChars: 300,
    onError: () => {},
    port: 0,
  });
  doc = (await (await get(server.url, '/openapi.json')).json()) as Doc;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    for (const candidate of [
      doc,
      openApiDocument(),
      openApiDocument({ bearerAuth: true, maxQuestionChars: 10 }),
    ]) {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(candidate));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
      expect(() => validator.resolveRefs()).not.toThrow();
    }
  });

  it('writes every component schema as valid JSON Schema 2020-12 (the dialect of OpenAPI 3.1)', () => {
    const ajv = new Ajv2020({ strict: true });
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, object>)) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText()}`).toBe(true);
    }
  });

  it('has one operation for every route of the app, and no other', () => {
    const app = createGragServer({
      indexes: [scriptedIndex()],
      explorerDir: false,
    });
    const routes = new Set(
      app.routes
        .filter((r) => r.method !== 'ALL')
        // Hono's `/v1/documents/:id{.+}` is OpenAPI's `/v1/documents/{id}`.
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')}`),
    );
    const documented = new Set(
      Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    expect([...documented].sort()).toEqual([...routes].sort());
    expect(documented).toContain('POST /v1/query');
    expect(documented).toContain('GET /openapi.json');
  });

  it('names the bearer scheme on every /v1 route when the server has a token, and nowhere without one', () => {
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    for (const [path, item] of Object.entries(doc.paths as Doc)) {
      for (const op of Object.values(item as Doc)) {
        const guarded = path.startsWith('/v1/');
        expect(op.security, path).toEqual(guarded ? [{ bearer: [] }] : undefined);
        expect(op.responses['401'] !== undefined, path).toBe(guarded);
        // The browser guard answers every route.
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['403', '421']));
      }
    }
    const open = openApiDocument();
    expect(open.components).not.toHaveProperty('securitySchemes');
    expect(JSON.stringify(open.paths)).not.toContain('"security"');
  });

  it("states the server's question limit and the streams' content types", () => {
    expect(doc.components.schemas.QueryRequest.properties.question.maxLength).toBe(300);
    const ok = doc.paths['/v1/query'].post.responses['200'].content;
    expect(Object.keys(ok)).toEqual(['application/json', 'text/event-stream']);
    expect(ok['text/event-stream'].schema).toEqual({ $ref: '#/components/schemas/QueryStreamEvent' });
    const chat = doc.paths['/v1/chat'].post;
    expect(chat.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ChatRequest',
    });
    expect(chat.responses['200'].content).toEqual({
      'text/event-stream': { schema: { $ref: '#/components/schemas/ChatStreamChunk' } },
    });
    expect(chat.responses['200'].headers['x-vercel-ai-ui-message-stream'].schema.const).toBe('v1');
  });
});

describe('GET /openapi.json', () => {
  it('needs no token, and is JSON', async () => {
    const res = await get(server.url, '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is behind the Host and Origin checks like every route', async () => {
    const rebound = await rawRequest(server.url, '/openapi.json', { headers: { host: 'attacker.example' } });
    expect(rebound.status).toBe(421);
    expect(JSON.parse(rebound.body).error.code).toBe('misdirected_request');
    const foreign = await get(server.url, '/openapi.json', { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe('forbidden_origin');
    const noCors = await get(server.url, '/openapi.json', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(noCors.status).toBe(403);
  });
});

/** A JSON Pointer segment, as a URI fragment writes it. */
function segment(name: string): string {
  return encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1'));
}

/**
 * A check of response bodies against the document: the errors of `body` against the schema the
 * document gives for `method path`, `status` and content `type` (none when it conforms).
 */
function responseChecker(document: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The whole document as one schema, so `#/components/schemas/…` references resolve inside it.
  ajv.addSchema({ ...document, $id: 'grag-openapi' });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  return (path: string, method: string, status: number, type: string, body: unknown): string[] => {
    const declared = document.paths[path]?.[method]?.responses?.[String(status)];
    if (!declared) return [`${method} ${path} documents no ${status} response`];
    // A response given by reference lives under #/components/responses.
    const at = declared.$ref
      ? (declared.$ref as string).slice(1)
      : `/paths/${segment(path)}/${method}/responses/${status}`;
    const response = declared.$ref ? document.components.responses[declared.$ref.split('/').pop()] : declared;
    if (!response.content?.[type]) return [`${method} ${path} ${status} documents no ${type} body`];
    const pointer = `${at}/content/${segment(type)}/schema`;
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `grag-openapi#${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe('the live server answers as the document says', () => {
  let check: ReturnType<typeof responseChecker>;
  beforeAll(() => {
    check = responseChecker(doc);
  });

  async function expectJson(res: Response, path: string, method: string, status: number): Promise<Doc> {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Doc;
    expect(check(path, method, status, 'application/json', body)).toEqual([]);
    return body;
  }

  it('GET /healthz and GET /v1/indexes', async () => {
    await expectJson(await get(server.url, '/healthz'), '/healthz', 'get', 200);
    const list = await expectJson(
      await get(server.url, '/v1/indexes', { headers: auth }),
      '/v1/indexes',
      'get',
      200,
    );
    expect(list.indexes.map((ix: { name: string }) => ix.name)).toEqual([
      'e2graphrag',
      'bm25',
      'scripted-graph',
      'broken',
    ]);
  });

  it('POST /v1/query: retrieval alone, with an answer, and with a subgraph, entry points and edge labels', async () => {
    for (const body of [
      { question: QUESTION, method: 'e2graphrag' },
      { question: QUESTION, method: 'e2graphrag', answer: true, topK: 2 },
      { question: QUESTION, method: 'bm25', answer: true, budget: 200 },
      { question: QUESTION, method: 'scripted-graph', answer: true },
    ]) {
      const json = await expectJson(await postQuery(server.url, body, auth), '/v1/query', 'post', 200);
      if (body.answer) expect(json.answer.sources.length).toBe(json.answer.citations.length);
    }
    // The demo indexes carry source locations, which the schemas describe too.
    const located = await (
      await postQuery(server.url, { question: QUESTION, method: 'bm25', answer: true }, auth)
    ).json();
    expect(located.retrieval.items[0].source.locations.length).toBeGreaterThan(0);
    expect(located.answer.sources[0].locations.length).toBeGreaterThan(0);
  });

  it('POST /v1/query with a streamed answer: every event is a QueryStreamEvent', async () => {
    for (const [method, last] of STREAM_ENDS) {
      const res = await postQuery(
        server.url,
        { question: QUESTION, method, answer: true, stream: true },
        auth,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = parseEvents(await res.text());
      expect(events.at(-1)?.event).toBe(last);
      for (const event of events)
        expect(check('/v1/query', 'post', 200, 'text/event-stream', event)).toEqual([]);
    }
  });

  it('POST /v1/chat: every chunk of the UI message stream is a ChatStreamChunk, and the stream ends with [DONE]', async () => {
    for (const [method, , last] of STREAM_ENDS) {
      const res = await postChat(
        server.url,
        { messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: QUESTION }] }], method },
        auth,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
      const data = (await res.text())
        .split('\n\n')
        .filter((block) => block !== '')
        .map((block) => block.replace(/^data: /, ''));
      expect(data.at(-1)).toBe('[DONE]');
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as { type: string });
      expect(chunks.at(-1)?.type).toBe(last);
      if (last === 'finish') expect(chunks.map((c) => c.type)).toContain('source-document');
      for (const chunk of chunks)
        expect(check('/v1/chat', 'post', 200, 'text/event-stream', chunk), JSON.stringify(chunk)).toEqual([]);
    }
  });

  it('GET /v1/documents/{id}', async () => {
    const res = await get(server.url, '/v1/documents/02-kessler-shipyard.md?method=bm25', { headers: auth });
    const body = await expectJson(res, '/v1/documents/{id}', 'get', 200);
    expect([body.id, body.title, body.index]).toEqual(['02-kessler-shipyard.md', 'Kessler Shipyard', 'bm25']);
  });

  it('errors: each status a route documents, with the error body', async () => {
    const cases: [Promise<Response>, string, string, number][] = [
      [postQuery(server.url, { question: '' }, auth), '/v1/query', 'post', 400],
      [postQuery(server.url, { question: 'x'.repeat(301) }, auth), '/v1/query', 'post', 400],
      [postQuery(server.url, { question: 'x' }), '/v1/query', 'post', 401],
      [postQuery(server.url, { question: 'x', method: 'nope' }, auth), '/v1/query', 'post', 404],
      [postQuery(server.url, { question: 'x'.repeat(70_000) }, auth), '/v1/query', 'post', 413],
      [
        get(server.url, '/v1/query', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'text/plain' },
          body: '{"question":"x"}',
        }),
        '/v1/query',
        'post',
        415,
      ],
      [postChat(server.url, { messages: [] }, auth), '/v1/chat', 'post', 400],
      [postChat(server.url, { messages: [userText('q')] }), '/v1/chat', 'post', 401],
      [postChat(server.url, { messages: [userText('q')], method: 'nope' }, auth), '/v1/chat', 'post', 404],
      [postChat(server.url, { messages: [userText('x'.repeat(70_000))] }, auth), '/v1/chat', 'post', 413],
      [
        get(server.url, '/v1/chat', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'text/plain' },
          body: JSON.stringify({ messages: [userText('q')] }),
        }),
        '/v1/chat',
        'post',
        415,
      ],
      [get(server.url, '/v1/documents/nope', { headers: auth }), '/v1/documents/{id}', 'get', 404],
      [get(server.url, '/v1/indexes'), '/v1/indexes', 'get', 401],
      [
        get(server.url, '/v1/indexes', { headers: { ...auth, origin: 'https://evil.example' } }),
        '/v1/indexes',
        'get',
        403,
      ],
    ];
    for (const [pending, path, method, status] of cases) {
      const body = await expectJson(await pending, path, method, status);
      expect(typeof body.error.code).toBe('string');
    }
  });
});

describe('the request schema and the server check the same things', () => {
  it('accepts exactly the bodies the server accepts (fast-check)', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...openApiDocument({ maxQuestionChars: 12 }), $id: 'doc' });
    const validate = ajv.compile({ $ref: 'doc#/components/schemas/QueryRequest' });
    const served = {
      method: { name: 'any', optionKeys: undefined },
    } as unknown as Parameters<typeof checkRequestOptions>[0];
    const anyValue = fc.oneof(
      fc.string({ maxLength: 16 }),
      fc.constantFrom('', ' ', '\t\n', 'a', ' x ', '\u{1F600}'.repeat(12), '\u{1F600}'.repeat(13)),
      fc.integer({ min: -3, max: 40 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom('topK', 'signal', 'budgetTokens', 'teleport'), fc.integer(), {
        maxKeys: 2,
      }),
    );
    /** A field's value: mostly one the server takes (so whole bodies pass too), else anything. */
    const field = <T>(valid: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: anyValue, weight: 1 });
    const positive = fc.integer({ min: 1, max: 50 });
    const fields = {
      question: field(fc.string({ minLength: 1, maxLength: 14, unit: 'grapheme' })),
      method: field(fc.string({ maxLength: 8 })),
      budget: field(positive),
      topK: field(positive),
      options: field(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue(), { maxKeys: 2 })),
      answer: field(fc.boolean()),
      stream: field(fc.boolean()),
    };
    const body = fc.oneof(
      // Bodies with a question, the other fields optional: about half of them are valid.
      { weight: 6, arbitrary: fc.record(fields, { requiredKeys: ['question'] }) },
      // Any subset of the fields, and a field the server does not take.
      { weight: 3, arbitrary: fc.record({ ...fields, extra: anyValue }, { requiredKeys: [] }) },
      { weight: 1, arbitrary: anyValue },
    );
    let bothAccepted = 0;
    fc.assert(
      fc.property(body, (candidate) => {
        let accepted = true;
        try {
          checkRequestOptions(served, parseQueryRequest(candidate, 12));
        } catch {
          accepted = false;
        }
        expect(validate(candidate), JSON.stringify(candidate)).toBe(accepted);
        if (accepted) bothAccepted++;
      }),
      { numRuns: 2000 },
    );
    // Enough of the bodies were valid for the agreement on them to mean something.
    expect(bothAccepted).toBeGreaterThan(200);
  });
});

describe('the chat request schema and the server check the same things', () => {
  it('accepts every body the server accepts; a body it accepts and the server refuses is refused for its last message, which JSON Schema cannot single out (fast-check)', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...openApiDocument({ maxQuestionChars: 12 }), $id: 'doc' });
    const validate = ajv.compile({ $ref: 'doc#/components/schemas/ChatRequest' });
    const anyValue = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer({ min: -3, max: 40 }),
      fc.boolean(),
      fc.constant(null),
      fc.constant([]),
      fc.constant({}),
    );
    const field = <T>(valid: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: anyValue, weight: 1 });
    const text = fc.oneof(
      { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 10 }) },
      { weight: 1, arbitrary: fc.constantFrom('', ' \n', 'x'.repeat(12), 'x'.repeat(13)) },
    );
    const textPart = fc.record({ type: fc.constant('text'), text: field(text) });
    const part = fc.oneof(
      { weight: 6, arbitrary: textPart },
      {
        weight: 2,
        arbitrary: fc.record({ type: fc.constantFrom('file', 'source-url', 'step-start'), url: fc.string() }),
      },
      { weight: 1, arbitrary: fc.record({ type: anyValue, text: fc.string() }, { requiredKeys: [] }) },
      { weight: 1, arbitrary: fc.constantFrom({ type: 'text' }, { type: 'text', content: 'q' }) },
      { weight: 1, arbitrary: anyValue },
    );
    const message = (role: fc.Arbitrary<string>, parts: fc.Arbitrary<unknown[]>) =>
      fc.record(
        {
          id: field(fc.string({ maxLength: 4 })),
          role: field(role),
          parts: field(parts),
          metadata: fc.jsonValue(),
        },
        { requiredKeys: ['role', 'parts'] },
      );
    const anyMessage = fc.oneof(
      {
        weight: 9,
        arbitrary: message(fc.constantFrom('user', 'assistant', 'system'), fc.array(part, { maxLength: 3 })),
      },
      { weight: 1, arbitrary: anyValue },
    );
    // Mostly a question last, so that whole bodies pass too; else any message.
    const lastMessage = fc.oneof(
      {
        weight: 3,
        arbitrary: message(fc.constant('user'), fc.array(textPart, { minLength: 1, maxLength: 2 })),
      },
      { weight: 1, arbitrary: anyMessage },
    );
    const messages = fc
      .tuple(fc.array(anyMessage, { maxLength: 1 }), lastMessage)
      .map(([history, last]) => [...history, last]);
    const fields = {
      messages: fc.oneof({ weight: 12, arbitrary: messages }, { weight: 1, arbitrary: anyValue }),
      id: field(fc.string({ maxLength: 6 })),
      trigger: field(fc.constantFrom('submit-message', 'regenerate-message')),
      messageId: field(fc.string({ maxLength: 6 })),
      method: field(fc.string({ maxLength: 8 })),
      topK: field(fc.integer({ min: 1, max: 50 })),
      options: field(
        fc.dictionary(fc.constantFrom('topK', 'signal', 'teleport'), fc.integer(), { maxKeys: 2 }),
      ),
    };
    const body = fc.oneof(
      { weight: 12, arbitrary: fc.record(fields, { requiredKeys: ['messages'] }) },
      { weight: 1, arbitrary: fc.record({ ...fields, question: anyValue }, { requiredKeys: [] }) },
      { weight: 1, arbitrary: anyValue },
    );
    const served = {
      method: { name: 'any', optionKeys: undefined },
    } as unknown as Parameters<typeof checkRequestOptions>[0];
    let bothAccepted = 0;
    let lastMessageOnly = 0;
    fc.assert(
      fc.property(body, (candidate) => {
        let refusal: string | undefined;
        try {
          checkRequestOptions(served, parseChatRequest(candidate, 12));
        } catch (error) {
          refusal = (error as Error).message;
        }
        const valid = validate(candidate);
        if (refusal === undefined) {
          expect(valid, JSON.stringify(candidate)).toBe(true);
          bothAccepted++;
        } else if (valid) {
          // What JSON Schema cannot say: the last message is the user's, with text, within the limit.
          expect(refusal, JSON.stringify(candidate)).toMatch(/^The last message /);
          lastMessageOnly++;
        }
      }),
      { numRuns: 2000 },
    );
    expect(bothAccepted).toBeGreaterThan(200);
    expect(lastMessageOnly).toBeGreaterThan(20);
  });
});

describe("the schemas' types", () => {
  it("are core's types where the server passes core's values through (checked by the type-check)", () => {
    expectTypeOf<RetrievedItem>().toEqualTypeOf<CoreItem>();
    expectTypeOf<CitedSource>().toEqualTypeOf<CoreCitedSource>();
    expectTypeOf<SourceLocation>().toEqualTypeOf<CoreLocation>();
    expectTypeOf<Subgraph>().toExtend<NonNullable<Retrieval['subgraph']>>();
    expectTypeOf<QueryRequest['topK']>().toEqualTypeOf<number | undefined>();
  });
});
