/**
 * The OpenAPI paths of the whole-graph routes (`/v1/indexes/{name}/graph…`) and of the method
 * list (`/v1/methods`); openapi.ts puts them in the document with the others.
 */
import type { Op } from './openapi.js';
import { json, parameter } from './openapi-parts.js';
import { GraphNeighbourhoodSchema, GraphSearchSchema, MethodListSchema } from './schema-graph.js';

const NAME = parameter('path', 'name', 'The name of the index (GET /v1/indexes).', {
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
});
const OFFSET = parameter('query', 'offset', 'Nodes to skip; default 0.', { type: 'integer', minimum: 0 });
const limit = (fallback: number) =>
  parameter('query', 'limit', `At most this many nodes; default ${fallback}, at most 500.`, {
    type: 'integer',
    minimum: 0,
    maximum: 500,
  });

/** The graph routes and the method list. */
export function graphPaths(op: Op) {
  return {
    '/v1/methods': {
      get: op({
        operationId: 'listMethods',
        summary: 'The methods new indexes are built with',
        description: 'What POST /v1/indexes takes as method, and whether this server creates indexes at all.',
        tags: ['indexes'],
        auth: true,
        ok: { 200: { description: 'The methods.', content: json(MethodListSchema) } },
        errors: [],
      }),
    },
    '/v1/indexes/{name}/graph': {
      get: op({
        operationId: 'searchGraph',
        summary: "Search the named index's graph",
        description:
          "A page of the nodes whose name holds q (every node without q), of one type when type is given, with the graph's size and node types. 404 no_graph for a method that keeps no graph (the passage baselines).",
        tags: ['graph'],
        auth: true,
        parameters: [
          NAME,
          parameter('query', 'q', 'Part of a node name, any case; at most 200 characters are read.', {
            type: 'string',
          }),
          parameter('query', 'type', 'Only nodes of this type (e.g. the communityType).', { type: 'string' }),
          OFFSET,
          limit(20),
        ],
        ok: { 200: { description: 'The page of matches.', content: json(GraphSearchSchema) } },
        errors: [400, 404],
      }),
    },
    '/v1/indexes/{name}/graph/nodes/{id}': {
      get: op({
        operationId: 'graphNeighbourhood',
        summary: 'A node of the graph and its neighbours',
        description:
          'The node, a page of its neighbours (the best connected first) and the edges among them, from the version served now.',
        tags: ['graph'],
        auth: true,
        parameters: [
          NAME,
          parameter('path', 'id', 'The node id, URL-encoded; it may contain /.', {
            type: 'string',
            minLength: 1,
          }),
          OFFSET,
          limit(50),
        ],
        ok: { 200: { description: 'The neighbourhood.', content: json(GraphNeighbourhoodSchema) } },
        errors: [400, 404],
      }),
    },
  };
}
