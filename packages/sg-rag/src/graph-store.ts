/**
 * The data graph as stored by format 3: `graph.json` holds the strings once each (node ids, labels
 * and descriptions; the distinct relation texts, chunk ids, document ids and source locations) and
 * `graph.bin` (gzipped) the edges as typed arrays (endpoints, and each edge's facts, chunks, documents and
 * locations as CSR lists of positions in those tables). Reading it builds no schema over every
 * edge: the tables are checked, then every position against its table.
 */
import type { SourceLocation } from '@grag/core';
import {
  decodeArrays,
  decompressed,
  keyedTable,
  type OpenedIndex,
  packLists,
  type Schema,
  type StoredArray,
  sourceLocationSchema,
  unpackLists,
  v,
} from '@grag/core/kit';
import type { SgEdge, SgGraph } from './kg.js';

/** The strings of a stored graph (`graph.json` of format 3). */
export interface GraphTables {
  ids: string[];
  labels: string[];
  descriptions: string[];
  relations: string[];
  chunks: string[];
  docs: string[];
  locations: SourceLocation[];
}

const strings = v.array(v.string());
export const graphTablesSchema: Schema<GraphTables> = v.object({
  ids: strings,
  labels: strings,
  descriptions: strings,
  relations: strings,
  chunks: strings,
  docs: strings,
  locations: v.array(sourceLocationSchema),
});

/** `graph` as format 3 stores it: its string tables and its edges as typed arrays. */
export function storedGraph(graph: SgGraph): { tables: GraphTables; arrays: Record<string, StoredArray> } {
  const relations = keyedTable<string>(String);
  const chunks = keyedTable<string>(String);
  const docs = keyedTable<string>(String);
  const locations = keyedTable<SourceLocation>((l) => JSON.stringify(l));
  const { edges } = graph;
  const facts = packLists(edges.map((e) => e.facts.map((f) => relations.ref(f.relation))));
  const chunkLists = packLists(edges.map((e) => e.chunkIds.map(chunks.ref)));
  const docLists = packLists(edges.map((e) => e.docIds.map(docs.ref)));
  const locationLists = packLists(edges.map((e) => (e.locations ?? []).map(locations.ref)));
  return {
    tables: {
      ids: graph.ids,
      labels: graph.labels,
      descriptions: graph.descriptions,
      relations: relations.values,
      chunks: chunks.values,
      docs: docs.values,
      locations: locations.values,
    },
    arrays: {
      edgeA: Int32Array.from(edges, (e) => e.a),
      edgeB: Int32Array.from(edges, (e) => e.b),
      factOffsets: facts.offsets,
      factRelations: facts.targets,
      factForward: Uint8Array.from(
        edges.flatMap((e) => e.facts),
        (f) => (f.forward ? 1 : 0),
      ),
      chunkOffsets: chunkLists.offsets,
      chunks: chunkLists.targets,
      docOffsets: docLists.offsets,
      docs: docLists.targets,
      locationOffsets: locationLists.offsets,
      locations: locationLists.targets,
      hasLocations: Uint8Array.from(edges, (e) => (e.locations ? 1 : 0)),
    },
  };
}

/** The graph of `tables` and `arrays` (read from `file`); throws the index's error for a bad array. */
export function graphOfStored(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  tables: GraphTables,
  arrays: Map<string, StoredArray>,
): SgGraph {
  const where = opened.locate(file);
  const [a, b, forward, hasLocations] = ['edgeA', 'edgeB', 'factForward', 'hasLocations'].map((k) =>
    arrays.get(k),
  );
  if (!(a instanceof Int32Array) || !(b instanceof Int32Array) || a.length !== b.length) {
    throw opened.error(file, 'lacks the int32 arrays edgeA and edgeB of one endpoint per edge');
  }
  const m = a.length;
  const lists = (name: string, offsets: string, bound: number) =>
    unpackLists(
      { offsets: arrays.get(offsets), targets: arrays.get(name) },
      { lists: m, bound },
      where,
      name,
    );
  const facts = lists('factRelations', 'factOffsets', tables.relations.length);
  const chunks = lists('chunks', 'chunkOffsets', tables.chunks.length);
  const docs = lists('docs', 'docOffsets', tables.docs.length);
  const locations = lists('locations', 'locationOffsets', tables.locations.length);
  const factCount = facts.reduce((n, l) => n + l.length, 0);
  if (!(forward instanceof Uint8Array) || forward.length !== factCount || forward.some((f) => f > 1)) {
    throw opened.error(file, `lacks factForward, one 0 or 1 per fact (${factCount})`);
  }
  if (!(hasLocations instanceof Uint8Array) || hasLocations.length !== m || hasLocations.some((f) => f > 1)) {
    throw opened.error(file, `lacks hasLocations, one 0 or 1 per edge (${m})`);
  }
  let f = 0;
  const edges = Array.from({ length: m }, (_, i): SgEdge => {
    const edge: SgEdge = {
      a: a[i]!,
      b: b[i]!,
      facts: Array.from(facts[i]!, (r) => ({ relation: tables.relations[r]!, forward: forward[f++] === 1 })),
      chunkIds: Array.from(chunks[i]!, (c) => tables.chunks[c]!),
      docIds: Array.from(docs[i]!, (d) => tables.docs[d]!),
    };
    if (hasLocations[i] === 1) edge.locations = Array.from(locations[i]!, (l) => tables.locations[l]!);
    return edge;
  });
  return { ids: tables.ids, labels: tables.labels, descriptions: tables.descriptions, edges };
}

/** The typed arrays of gzipped artifact `file` (written as `compress(encodeArrays(arrays))`). */
export function gunzippedArrays(
  opened: OpenedIndex<unknown, unknown>,
  file: string,
  bytes: Uint8Array,
): Map<string, StoredArray> {
  const where = opened.locate(file);
  return decodeArrays(decompressed(bytes, where), where);
}
