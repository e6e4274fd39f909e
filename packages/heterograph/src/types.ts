/**
 * The seven node types of NodeRAG's heterograph (NodeRAG §2.1, appendix C.1, Table 6) and the roles
 * each plays, as data: which types are retrievable, which are entry points and by which search, and
 * which are embedded. Everything else in this package reads these tables instead of testing types
 * one by one.
 */

/** Node type: entity, relationship, semantic unit, attribute, high-level element, high-level overview, text. */
export type NodeType = 'N' | 'R' | 'S' | 'A' | 'H' | 'O' | 'T';

/** How a node type becomes an entry point of a search. */
export type EntryKind = 'exact' | 'vector' | null;

/** What NodeRAG's Table 6 says of a node type. */
export interface NodeTypeInfo {
  /** Full name, e.g. `'semantic unit'`. */
  name: string;
  /** Identifier-style name, also the `kind` of retrieved items, e.g. `'semantic-unit'`. */
  kind: string;
  /** Whether its content may be returned as retrieval context. */
  retrievable: boolean;
  /** How it becomes an entry point: exact name match, vector similarity, or never. */
  entry: EntryKind;
  /** Whether it is embedded (selective embedding, NodeRAG §2.4). */
  embedded: boolean;
  /** One line on the role of the type. */
  description: string;
}

/** Table 6 of NodeRAG as data. */
export const NODE_TYPES: Readonly<Record<NodeType, Readonly<NodeTypeInfo>>> = {
  N: {
    name: 'entity',
    kind: 'entity',
    retrievable: false,
    entry: 'exact',
    embedded: false,
    description: 'a named entity (person, place, concept); a name only, an entry point by exact match',
  },
  R: {
    name: 'relationship',
    kind: 'relationship',
    retrievable: true,
    entry: null,
    embedded: false,
    description: 'a relationship between two entities as a node; a connector and secondary retrievable node',
  },
  S: {
    name: 'semantic unit',
    kind: 'semantic-unit',
    retrievable: true,
    entry: 'vector',
    embedded: true,
    description: 'an independent event or fact paraphrased from a text chunk',
  },
  A: {
    name: 'attribute',
    kind: 'attribute',
    retrievable: true,
    entry: 'vector',
    embedded: true,
    description: 'a summary of an important entity from its semantic units and relationships',
  },
  H: {
    name: 'high-level element',
    kind: 'high-level-element',
    retrievable: true,
    entry: 'vector',
    embedded: true,
    description: 'an insight summarizing a graph community',
  },
  O: {
    name: 'high-level overview',
    kind: 'high-level-overview',
    retrievable: false,
    entry: 'exact',
    embedded: false,
    description: 'the keyword title of a high-level element; an entry point by exact match',
  },
  T: {
    name: 'text',
    kind: 'text',
    retrievable: true,
    entry: 'vector',
    embedded: true,
    description: 'an original text chunk',
  },
};

/** Every node type, in Table 4's column order. */
export const ALL_NODE_TYPES: readonly NodeType[] = ['T', 'S', 'N', 'R', 'A', 'O', 'H'];

function typesWhere(predicate: (info: NodeTypeInfo) => boolean): readonly NodeType[] {
  return ALL_NODE_TYPES.filter((t) => predicate(NODE_TYPES[t]));
}

/** Types whose content may be retrieved: {T, S, A, H, R} (NodeRAG §2.5, "Filter Retrieval Nodes"). */
export const RETRIEVABLE_TYPES: readonly NodeType[] = typesWhere((i) => i.retrievable);
/** Types found by exact name matching in dual search: {N, O}. */
export const EXACT_ENTRY_TYPES: readonly NodeType[] = typesWhere((i) => i.entry === 'exact');
/**
 * Types found by vector similarity in dual search: {T, S, A, H}, as Table 6 and the official code
 * (whose HNSW index holds every embedded node) have it; §2.5's formula lists {S, A, H}.
 */
export const VECTOR_ENTRY_TYPES: readonly NodeType[] = typesWhere((i) => i.entry === 'vector');
/** Types that are embedded (selective embedding, NodeRAG §2.4): {T, S, A, H}. */
export const EMBEDDED_TYPES: readonly NodeType[] = typesWhere((i) => i.embedded);

/** Whether `value` is one of the seven node types. */
export function isNodeType(value: unknown): value is NodeType {
  return typeof value === 'string' && Object.hasOwn(NODE_TYPES, value);
}

/**
 * Kind of a structural edge, named after NodeRAG's edge symbols: `d` semantic unit – entity or
 * relationship (§2.2 e_d), `r` relationship – its source or target entity (e_r), `a` entity –
 * attribute (e_a), `h` high-level element – semantic unit or attribute (e_h, semantic matching), `o`
 * high-level element – overview (e_o), `s` text – semantic unit (e_s); `hnsw` an HNSW semantic edge
 * that joined no structural edge (§2.4).
 */
export type EdgeKind = 'd' | 'r' | 'a' | 'h' | 'o' | 's' | 'hnsw';

/** Attributes of a heterograph node. */
export interface HeteroNodeAttributes {
  type: NodeType;
  /** Content: the name of an entity or overview, the text of every other type. */
  text: string;
  /** How often the node was produced (an entity's mentions, a repeated unit). @default 1 */
  weight: number;
  /** Chunks the node comes from (provenance). */
  chunks: string[];
  /** Documents the node comes from (provenance). */
  docs: string[];
  /** Anything else a method stores on the node. */
  [key: string]: unknown;
}

/** Attributes of a heterograph edge. */
export interface HeteroEdgeAttributes {
  /** Kind of the first edge laid between the two nodes. */
  kind: EdgeKind;
  /** Total weight: structural weight plus HNSW weight. Each structural edge weighs 1 (NodeRAG §2.1). */
  weight: number;
  /** Weight without the HNSW contribution (for the "without HNSW" ablation). */
  baseWeight: number;
  /** Weight added by HNSW semantic edges (0 or 1). */
  hnsw: number;
}
