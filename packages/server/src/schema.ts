/**
 * The JSON shapes of the grag HTTP API, each written once, as JSON Schema built with
 * [TypeBox](https://github.com/sinclairzx81/typebox). The OpenAPI document (`GET /openapi.json`,
 * openapi.ts) is made of these schemas, and the TypeScript types of the API — the server's, the
 * typed client's, the explorer page's — are derived from them with `Static`, so the document and
 * the code cannot describe two different APIs.
 *
 * Browser-safe: this module imports TypeBox's builders and nothing else, and the client
 * (client.ts) imports only its types. A schema with a `title` becomes a named component of the
 * document (`#/components/schemas/<title>`), referenced wherever it is used.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

/** A pair of strings, as JSON Schema 2020-12 writes a tuple (TypeBox's `Tuple` writes draft-07's `items: [...]`). */
export function stringPair() {
  return Type.Unsafe<[string, string]>({
    type: 'array',
    prefixItems: [{ type: 'string' }, { type: 'string' }],
    items: false,
    minItems: 2,
    maxItems: 2,
  });
}

/** An object whose every property has the schema `value` (`Record<string, T>`). */
function mapOf<T extends TSchema>(value: T, description: string) {
  return Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: value, description });
}

/** A JSON object of any properties. */
function anyObject(description: string) {
  return Type.Unsafe<Record<string, unknown>>({ type: 'object', description });
}

// ---------------------------------------------------------------------------------------------
// Errors

/** The body of every error response: `{"error": {"code", "message"}}`. */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({
          description:
            'What went wrong, in snake_case: bad_request, answer_unavailable, unauthorized, forbidden_origin, forbidden, not_found, unknown_index, no_graph, conflict, not_writable, payload_too_large, unsupported_media_type, misdirected_request, aborted, provider_error, model_output_error, internal_error.',
        }),
        message: Type.String({
          description: 'What went wrong and what to do, on one line; never a stack trace.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  {
    title: 'ErrorBody',
    description: 'The body of every error response.',
    additionalProperties: false,
  },
);
/** The body of every error response: `{"error": {"code", "message"}}`. */
export type ErrorBody = Static<typeof ErrorBodySchema>;

// ---------------------------------------------------------------------------------------------
// GET /healthz

/** The body of `GET /healthz`. */
export const HealthSchema = Type.Object(
  { ok: Type.Literal(true) },
  { title: 'Health', description: 'The server is up.', additionalProperties: false },
);
/** The body of `GET /healthz`. */
export type Health = Static<typeof HealthSchema>;

// ---------------------------------------------------------------------------------------------
// GET /v1/indexes

/** How a method ranks passages (`Method.passageRanking`). */
export const PassageRankingSchema = Type.Object(
  {
    kinds: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'The item kinds that are passages, or null when every item is one.',
    }),
    order: Type.Union([Type.Literal('context'), Type.Literal('score')], {
      description: 'Whether the passages are ranked in context order or by score.',
    }),
  },
  { title: 'PassageRanking', additionalProperties: false },
);

/** An index as `GET /v1/indexes` lists it. */
export const IndexInfoSchema = Type.Object(
  {
    name: Type.String({
      description: 'The name the index is addressed by: /v1/indexes/{name}/..., or "method" in a request.',
    }),
    version: Type.String({
      description:
        'The id of the version served now (a write swaps in a new one); every query response names the version that answered it.',
    }),
    method: Type.String({ description: "The method's name, e.g. noderag." }),
    description: Type.String({ description: 'What the method does, in one line.' }),
    documents: Type.Integer({ minimum: 0, description: 'How many source documents the index holds.' }),
    chunks: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'How many chunks, or null when the index keeps none.',
    }),
    providers: mapOf(
      Type.String(),
      'Fingerprints of the providers the index was built with (embedder, tasks, vectorIndex).',
    ),
    passageRanking: Type.Union([PassageRankingSchema, Type.Null()], {
      description: 'How the method ranks passages, or null when it does not say.',
    }),
    options: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description:
        "The keys a query's options may hold (the method's retrieve options but signal and budgetTokens), or null when the method declares none (any key is passed on).",
    }),
    writable: Type.Boolean({
      description:
        "Whether documents can be uploaded to and deleted from it (its method has an incremental update and the server knows the index's providers).",
    }),
  },
  { title: 'IndexInfo', description: 'One served index.', additionalProperties: false },
);
/** An index as `GET /v1/indexes` lists it. */
export type IndexInfo = Static<typeof IndexInfoSchema>;

/** The body of `GET /v1/indexes`. */
export const IndexListSchema = Type.Object(
  {
    indexes: Type.Array(IndexInfoSchema, {
      description: 'In the order they were given; a query without "method" asks the first.',
    }),
  },
  { title: 'IndexList', additionalProperties: false },
);
/** The body of `GET /v1/indexes`. */
export type IndexList = Static<typeof IndexListSchema>;

// ---------------------------------------------------------------------------------------------
// POST /v1/query: the request

/**
 * The body of `POST /v1/query`. The server checks it field by field (query.ts) with a message per
 * field; this schema says the same, and a test holds the two together. The `question`'s
 * `maxLength` is the server's `maxQuestionChars`, set in the document the server serves.
 */
export const QueryRequestSchema = Type.Object(
  {
    question: Type.String({
      pattern: '\\S',
      description: "The question: not blank, at most the server's maxQuestionChars characters.",
    }),
    method: Type.Optional(
      Type.String({ description: 'The name of the index to ask (GET /v1/indexes); default the first.' }),
    ),
    budget: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Token budget of the context (the method's budgetTokens); default the method's.",
      }),
    ),
    topK: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "How many items the retrieval returns: its first topK items in context order, the context rewritten from those alone; default every item the method packs. The method's own ranking depth goes in options.topK.",
      }),
    ),
    options: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        propertyNames: { not: { enum: ['signal', 'budgetTokens'] } },
        description:
          "The method's own retrieve options for this query (as grag query --set gives them), each key one of the index's options (GET /v1/indexes); an unknown key or a value the method refuses is a 400 with the method's message. signal and budgetTokens are refused: a query stops when its client closes the connection, and its budget is budget.",
      }),
    ),
    answer: Type.Optional(
      Type.Boolean({ default: false, description: 'Answer from the retrieved items too.' }),
    ),
    stream: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'With answer: stream the answer as Server-Sent Events (text/event-stream).',
      }),
    ),
  },
  { title: 'QueryRequest', description: 'A query of one index.', additionalProperties: false },
);
/** The body of `POST /v1/query`. */
export type QueryRequest = Static<typeof QueryRequestSchema>;

// ---------------------------------------------------------------------------------------------
// POST /v1/query: the response

/** A place in a source file (core's `SourceLocation`). */
export const SourceLocationSchema = Type.Object(
  {
    path: Type.String({ description: 'The file, as the loader was given it.' }),
    page: Type.Optional(Type.Integer({ minimum: 1, description: 'PDF page, from 1.' })),
    section: Type.Optional(
      Type.Array(Type.String(), { description: 'Heading path, outermost first (Markdown, HTML, Word).' }),
    ),
    row: Type.Optional(
      Type.Integer({ minimum: 1, description: 'CSV row as a spreadsheet shows it (the header is row 1).' }),
    ),
    record: Type.Optional(Type.Integer({ minimum: 1, description: 'JSON or JSONL record, from 1.' })),
  },
  { title: 'SourceLocation', description: 'A place in a source file.' },
);
/** A place in a source file (core's `SourceLocation`). */
export type SourceLocation = Static<typeof SourceLocationSchema>;

/** Where a retrieved item comes from (core's `Provenance`). */
export const ProvenanceSchema = Type.Object(
  {
    chunkIds: Type.Array(Type.String()),
    docIds: Type.Array(Type.String()),
    locations: Type.Optional(
      Type.Array(SourceLocationSchema, {
        description: 'The places in the source files, when the documents were loaded with them.',
      }),
    ),
  },
  { title: 'Provenance', description: 'The chunks and documents an item comes from.' },
);

/** One item of retrieved context (core's `RetrievedItem`), as the method returned it. */
export const RetrievedItemSchema = Type.Object(
  {
    id: Type.String({ description: 'Id of the item in its index (what an answer cites).' }),
    kind: Type.String({ description: 'chunk, entity, relation, summary, community, …' }),
    text: Type.String(),
    score: Type.Number(),
    source: ProvenanceSchema,
  },
  { title: 'RetrievedItem', description: 'One item of retrieved context.' },
);
/** One item of retrieved context (core's `RetrievedItem`). */
export type RetrievedItem = Static<typeof RetrievedItemSchema>;

/** The retrieved subgraph, with whatever else the method gives with it. */
export const SubgraphSchema = Type.Object(
  {
    nodes: Type.Array(Type.String(), {
      description: 'Node ids as the method names them (entity:x, T:doc#0, x).',
    }),
    edges: Type.Array(stringPair(), { description: 'Edges as pairs of node ids.' }),
    edgeLabels: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Null()]), {
        description: 'Labels of edges, index for index, when the method gives them.',
      }),
    ),
  },
  {
    title: 'Subgraph',
    description: 'The retrieved subgraph; other properties are whatever else the method gives with it.',
  },
);
/** The retrieved subgraph (other properties are whatever else the method gives with it). */
export type Subgraph = Static<typeof SubgraphSchema>;

/** The retrieval part of a query response. */
export const RetrievalSchema = Type.Object(
  {
    context: Type.String({ description: 'What goes to the model, within the token budget.' }),
    tokens: Type.Integer({ minimum: 0, description: 'Token count of context.' }),
    items: Type.Array(RetrievedItemSchema, {
      description: 'The items packed into context, in context order.',
    }),
    subgraph: Type.Optional(SubgraphSchema),
    entryPoints: Type.Optional(
      Type.Array(Type.String(), {
        description: "Subgraph node ids that were the query's entry points, when the method names them.",
      }),
    ),
    trace: Type.Optional(
      anyObject('Which branch ran, parameters chosen; firstItems {k, retrieved} when topK cut the items.'),
    ),
  },
  { title: 'Retrieval', description: "The method's retrieval.", additionalProperties: false },
);
/** The retrieval part of a query response. */
export type RetrievalJson = Static<typeof RetrievalSchema>;

/** What one citation points at (core's `CitedSource`). */
export const CitedSourceSchema = Type.Object(
  {
    id: Type.String({ description: 'The cited item id.' }),
    docIds: Type.Array(Type.String(), {
      description: 'Its documents (empty for an id that is no retrieved item).',
    }),
    locations: Type.Optional(Type.Array(SourceLocationSchema)),
    label: Type.String({
      description:
        "What to show: 'report.pdf p. 3', 'guide.html § Install › Linux', else the document ids; '' when nothing is known.",
    }),
  },
  { title: 'CitedSource', description: 'What one citation points at.', additionalProperties: false },
);
/** What one citation points at (core's `CitedSource`). */
export type CitedSource = Static<typeof CitedSourceSchema>;

/** A generated answer. */
export const AnswerSchema = Type.Object(
  {
    text: Type.String({ description: 'The answer, citing items as [id].' }),
    citations: Type.Array(Type.String(), { description: 'The ids of the context items the answer cites.' }),
    sources: Type.Array(CitedSourceSchema, { description: 'One per citation, in the same order.' }),
  },
  { title: 'Answer', description: 'A generated answer with its citations.', additionalProperties: false },
);
/** A generated answer, the ids of the context items it cites, and what each citation points at. */
export type AnswerJson = Static<typeof AnswerSchema>;

/** The body of a `POST /v1/query` response. */
export const QueryResponseSchema = Type.Object(
  {
    index: Type.String({ description: 'The name of the index asked.' }),
    version: Type.String({
      description: 'The id of the version of the index that answered (the whole answer comes from it).',
    }),
    method: Type.String({ description: "The index's method." }),
    retrieval: RetrievalSchema,
    answer: Type.Optional(AnswerSchema),
    ms: Type.Number({ minimum: 0, description: 'Wall time of the query on the server, in milliseconds.' }),
  },
  { title: 'QueryResponse', description: 'A query answered.', additionalProperties: false },
);
/** The body of a `POST /v1/query` response. */
export type QueryResponse = Static<typeof QueryResponseSchema>;

// ---------------------------------------------------------------------------------------------
// POST /v1/query with "answer" and "stream": Server-Sent Events

/** One event of the answer stream: its `event:` name and its `data:` parsed as JSON. */
function streamEvent<Name extends string, Data extends TSchema>(name: Name, data: Data, description: string) {
  return Type.Object({ event: Type.Literal(name), data }, { description, additionalProperties: false });
}

/**
 * One event of `POST /v1/query`'s answer stream (`text/event-stream`), as `{event, data}`: the
 * event's name and its `data:` line parsed as JSON.
 */
export const QueryStreamEventSchema = Type.Union(
  [
    streamEvent('retrieval', QueryResponseSchema, 'First: the response without its answer.'),
    streamEvent(
      'delta',
      Type.Object({ text: Type.String() }, { additionalProperties: false }),
      'A piece of answer text, as the model writes it.',
    ),
    streamEvent('answer', AnswerSchema, 'The whole answer with its citations and their sources.'),
    streamEvent('done', Type.Object({}, { additionalProperties: false }), 'Last: the stream ends.'),
    streamEvent('error', ErrorBodySchema, 'A failure after the stream started; the stream ends.'),
  ],
  {
    title: 'QueryStreamEvent',
    description:
      'One Server-Sent Event of the answer stream: retrieval, then a delta per piece of answer text, answer, done; or error, which ends the stream. Each is sent as "event: <event>" and "data: <data as JSON>".',
  },
);
/** One event of the answer stream, as `{event, data}`. */
export type QueryStreamEvent = Static<typeof QueryStreamEventSchema>;

// ---------------------------------------------------------------------------------------------
// GET /v1/documents/:id

/** The body of `GET /v1/documents/:id`. */
export const DocumentResponseSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.Optional(Type.String()),
    text: Type.String({
      description:
        'The document as the index keeps it: its chunks joined at their offsets, its summary-tree leaves, or the facts of its graph.',
    }),
    index: Type.String({ description: 'The name of the index it was read from.' }),
    version: Type.String({ description: 'The id of the version of the index it was read from.' }),
  },
  { title: 'DocumentResponse', description: 'A source document.', additionalProperties: false },
);
/** The body of a `GET /v1/documents/:id` response. */
export type DocumentResponse = Static<typeof DocumentResponseSchema>;

/** The named schemas of the API, as `#/components/schemas` lists them. */
export const API_SCHEMAS: readonly TSchema[] = [
  ErrorBodySchema,
  HealthSchema,
  PassageRankingSchema,
  IndexInfoSchema,
  IndexListSchema,
  QueryRequestSchema,
  SourceLocationSchema,
  ProvenanceSchema,
  RetrievedItemSchema,
  SubgraphSchema,
  RetrievalSchema,
  CitedSourceSchema,
  AnswerSchema,
  QueryResponseSchema,
  QueryStreamEventSchema,
  DocumentResponseSchema,
];
