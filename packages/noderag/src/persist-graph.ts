/**
 * The graph of a NodeRAG index on disk since format 3: `graph.arrays` (node types and weights, the
 * provenance as references, and every edge, HNSW semantic edges included, as typed arrays in the
 * graph's order) and `graph-text.json` (keys, texts, the chunk and document ids referred to, extra
 * attributes; gzipped). Loading reads them as they are (`HeteroGraph.fromArrays`): no graphology
 * graph is built and no semantic edge is laid again, and the walk's CSR is the one the graph gives.
 *
 * The vector index of an HNSW index is stored without its vectors when the index can export its
 * graph (`hnsw-graph.bin`, core kit's `saveVectorGraph` / `loadVectorGraph`): the vectors are the
 * kept embeddings, stored once, and the factory's `fromGraph` puts them back exactly.
 */
import { InvalidArgumentError } from '@grag/core';
import { type IndexWriter, type OpenedIndex, type Schema, v } from '@grag/core/kit';
import { HeteroGraph, type HeteroGraphArrays } from '@grag/heterograph';

export const GRAPH_ARRAYS_FILE = 'graph.arrays';
export const GRAPH_TEXT_FILE = 'graph-text.json';
export const HNSW_GRAPH_FILE = 'hnsw-graph.bin';

interface StoredGraphText {
  keys: string[];
  texts: string[];
  strings: string[];
  extra: [node: number, attributes: Record<string, unknown>][];
}

const graphTextSchema: Schema<StoredGraphText> = v.object({
  keys: v.array(v.string()),
  texts: v.array(v.string()),
  strings: v.array(v.string()),
  extra: v.array(v.tuple(v.int({ min: 0 }), v.record(v.unknown()))),
});

const ARRAY_FIELDS = [
  'types',
  'weights',
  'chunkOffsets',
  'chunkRefs',
  'docOffsets',
  'docRefs',
  'edgeA',
  'edgeB',
  'edgeKinds',
  'edgeBaseWeight',
  'edgeHnsw',
] as const;

const ARRAY_TYPES: Record<(typeof ARRAY_FIELDS)[number] | 'edgeWeight', new () => ArrayLike<number>> = {
  types: Uint8Array,
  weights: Float64Array,
  chunkOffsets: Uint32Array,
  chunkRefs: Uint32Array,
  docOffsets: Uint32Array,
  docRefs: Uint32Array,
  edgeA: Uint32Array,
  edgeB: Uint32Array,
  edgeKinds: Uint8Array,
  edgeBaseWeight: Float64Array,
  edgeHnsw: Uint8Array,
  edgeWeight: Float64Array,
};

/** Write `graph` as `graph.arrays` and `graph-text.json`. */
export async function saveGraph(out: IndexWriter, graph: HeteroGraph): Promise<void> {
  const { keys, texts, strings, extra, edgeWeight, ...arrays } = graph.toArrays();
  await out.arrays(GRAPH_ARRAYS_FILE, { ...arrays, ...(edgeWeight ? { edgeWeight } : {}) });
  await out.json(GRAPH_TEXT_FILE, { keys, texts, strings, extra: [...extra] }, { compress: true });
}

/** The graph {@link saveGraph} wrote. @throws IndexFormatError naming the file at fault. */
export async function loadGraph<P, S>(opened: OpenedIndex<P, S>): Promise<HeteroGraph> {
  const stored = await opened.arrays(GRAPH_ARRAYS_FILE);
  const arrays: Partial<Record<keyof typeof ARRAY_TYPES, ArrayLike<number>>> = {};
  for (const [name, Type] of Object.entries(ARRAY_TYPES) as [
    keyof typeof ARRAY_TYPES,
    new () => ArrayLike<number>,
  ][]) {
    const array = stored.get(name);
    if (array === undefined && name === 'edgeWeight') continue;
    if (!(array instanceof Type)) throw opened.error(GRAPH_ARRAYS_FILE, `has no ${Type.name} ${name}`);
    arrays[name] = array;
  }
  const text = await opened.json(GRAPH_TEXT_FILE, graphTextSchema);
  try {
    return HeteroGraph.fromArrays({
      ...(arrays as Omit<HeteroGraphArrays, 'keys' | 'texts' | 'strings' | 'extra'>),
      keys: text.keys,
      texts: text.texts,
      strings: text.strings,
      extra: new Map(text.extra),
    });
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    const problem = error.message.replace(/^HeteroGraph\.fromArrays: /, '').replace(/\.$/, '');
    throw opened.error(GRAPH_ARRAYS_FILE, problem, { cause: error });
  }
}
