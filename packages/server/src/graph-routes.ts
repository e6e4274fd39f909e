/**
 * The whole-graph routes of `/v1` and the method list: `GET /v1/indexes/:name/graph` (a page of
 * the nodes that match a search), `GET /v1/indexes/:name/graph/nodes/:id` (a node and a page of its
 * neighbours) and `GET /v1/methods` (what `POST /v1/indexes` builds with). Every answer holds at
 * most `limit` nodes, however large the graph (graph-view.ts).
 */
import type { Method } from '@grag/core';
import type { Context, Hono } from 'hono';
import { graphOf } from './graph-view.js';
import { count, type RouteDeps } from './routes.js';
import type { GraphNeighbourhood, GraphSearch, MethodList } from './schema-graph.js';

/** Most nodes one graph answer lists. */
export const GRAPH_LIMIT_MAX = 500;

/** What the method list reads. */
export interface MethodListDeps {
  // biome-ignore lint/suspicious/noExplicitAny: indexes of every method
  methods: readonly Method<any, any>[];
  create: boolean;
}

function search(c: Context, deps: RouteDeps): Response {
  const served = deps.view(c).pick(c.req.param('name'));
  const graph = graphOf(served);
  const offset = count(c, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = count(c, 'limit', 20, GRAPH_LIMIT_MAX);
  const type = c.req.query('type');
  const { total, matches } = graph.search(
    (c.req.query('q') ?? '').slice(0, 200),
    type === undefined || type === '' ? undefined : type,
    offset,
    limit,
  );
  const body: GraphSearch = {
    index: served.name,
    version: served.version,
    nodes: graph.order,
    edges: graph.size,
    types: graph.types(),
    communityType: graph.communityType,
    total,
    offset,
    matches,
  };
  return c.json(body);
}

function neighbourhood(c: Context, deps: RouteDeps): Response {
  const served = deps.view(c).pick(c.req.param('name'));
  const graph = graphOf(served);
  const offset = count(c, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = count(c, 'limit', 50, GRAPH_LIMIT_MAX);
  const at = graph.find(c.req.param('id') as string, served.name);
  const body: GraphNeighbourhood = {
    index: served.name,
    version: served.version,
    offset,
    ...graph.neighbourhood(at, offset, limit),
  };
  return c.json(body);
}

/** Add the graph routes and the method list to `app`. */
export function graphRoutes(app: Hono, deps: RouteDeps, methods: MethodListDeps): void {
  app.get('/v1/methods', (c) =>
    c.json({
      create: methods.create,
      methods: methods.methods.map((m) => ({
        name: m.name,
        description: m.description,
        options: m.optionKeys ? [...m.optionKeys.build] : null,
      })),
    } satisfies MethodList),
  );
  app.get('/v1/indexes/:name/graph', (c) => search(c, deps));
  app.get('/v1/indexes/:name/graph/nodes/:id{.+}', (c) => neighbourhood(c, deps));
}
