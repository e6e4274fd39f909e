/**
 * The JSON shapes of the whole-graph routes (`GET /v1/indexes/{name}/graph`, `GET
 * /v1/indexes/{name}/graph/nodes/{id}`) and of the method list (`GET /v1/methods`), as JSON Schema
 * built with TypeBox like the rest of the API (schema.ts). Every answer is bounded by its `limit`,
 * whatever the size of the graph.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { stringPair } from './schema.js';

/** One node of an index's graph, as the graph routes list it. */
export const GraphNodeSchema = Type.Object(
  {
    id: Type.String({ description: 'The node id (GET /v1/indexes/{name}/graph/nodes/{id}).' }),
    label: Type.String({ description: 'What to show: an entity name, or the start of a text.' }),
    type: Type.String({
      description:
        "The node's type: entity for a plain knowledge graph, NodeRAG's N R S A H O T for its heterograph.",
    }),
    degree: Type.Integer({ minimum: 0, description: 'How many neighbours the node has in the whole graph.' }),
    community: Type.Optional(
      Type.String({
        description: 'The community the node belongs to (or summarizes), when the method has them.',
      }),
    ),
  },
  { title: 'GraphNode', description: "A node of an index's graph.", additionalProperties: false },
);
/** One node of an index's graph. */
export type GraphNode = Static<typeof GraphNodeSchema>;

/** A type of node and how many nodes of it the graph holds. */
const GraphTypeCount = Type.Object(
  { type: Type.String(), count: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);

/** The body of `GET /v1/indexes/{name}/graph`. */
export const GraphSearchSchema = Type.Object(
  {
    index: Type.String({ description: 'The name of the index.' }),
    version: Type.String({ description: 'The version searched (the one served now).' }),
    nodes: Type.Integer({ minimum: 0, description: 'Nodes of the whole graph.' }),
    edges: Type.Integer({ minimum: 0, description: 'Edges of the whole graph.' }),
    types: Type.Array(GraphTypeCount, { description: 'Node types of the whole graph, most frequent first.' }),
    communityType: Type.Union([Type.String(), Type.Null()], {
      description:
        'The node type that stands for a community (its neighbours are its members), or null when the method keeps no communities.',
    }),
    total: Type.Integer({
      minimum: 0,
      description: 'How many nodes match (all of them, not only this page).',
    }),
    offset: Type.Integer({ minimum: 0, description: 'The position of the first match listed.' }),
    matches: Type.Array(GraphNodeSchema, {
      description:
        'At most limit matching nodes from offset: exact names first, then names that start with the query, then the rest; each group by degree.',
    }),
  },
  {
    title: 'GraphSearch',
    description: "A page of the nodes of an index's graph that match a search.",
    additionalProperties: false,
  },
);
/** The body of `GET /v1/indexes/{name}/graph`. */
export type GraphSearch = Static<typeof GraphSearchSchema>;

/** The body of `GET /v1/indexes/{name}/graph/nodes/{id}`. */
export const GraphNeighbourhoodSchema = Type.Object(
  {
    index: Type.String({ description: 'The name of the index.' }),
    version: Type.String({ description: 'The version read (the one served now).' }),
    node: GraphNodeSchema,
    text: Type.Optional(
      Type.String({ description: "The node's text (a description or a passage), cut to 2000 characters." }),
    ),
    neighbours: Type.Array(GraphNodeSchema, {
      description: 'At most limit neighbours from offset, the best connected first.',
    }),
    total: Type.Integer({ minimum: 0, description: 'How many neighbours the node has.' }),
    offset: Type.Integer({ minimum: 0, description: 'The position of the first neighbour listed.' }),
    edges: Type.Array(stringPair(), {
      description:
        'Edges among the node and the neighbours listed, as pairs of node ids: the node to each, and between neighbours (at most 4 × limit of those).',
    }),
  },
  {
    title: 'GraphNeighbourhood',
    description: 'A node of an index graph, a page of its neighbours and the edges among them.',
    additionalProperties: false,
  },
);
/** The body of `GET /v1/indexes/{name}/graph/nodes/{id}`. */
export type GraphNeighbourhood = Static<typeof GraphNeighbourhoodSchema>;

/** The body of `GET /v1/methods`. */
export const MethodListSchema = Type.Object(
  {
    create: Type.Boolean({
      description:
        'Whether this server creates indexes (POST /v1/indexes): it needs a folder or createContext.',
    }),
    methods: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'The name POST /v1/indexes takes as method.' }),
          description: Type.String(),
          options: Type.Union([Type.Array(Type.String()), Type.Null()], {
            description: 'The build option keys it declares (null: none declared).',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'The methods new indexes may be built with.' },
    ),
  },
  {
    title: 'MethodList',
    description: 'The methods this server builds new indexes with.',
    additionalProperties: false,
  },
);
/** The body of `GET /v1/methods`. */
export type MethodList = Static<typeof MethodListSchema>;

/** The named schemas of the graph and method routes. */
export const GRAPH_SCHEMAS: readonly TSchema[] = [
  GraphNodeSchema,
  GraphSearchSchema,
  GraphNeighbourhoodSchema,
  MethodListSchema,
];
