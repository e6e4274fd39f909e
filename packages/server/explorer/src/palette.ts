/**
 * Node types of a retrieved subgraph and their colours. A node's type is the prefix before the first
 * `:` of its id (`entity:x`, `chunk:doc#0`, NodeRAG's one-letter `N:`, `R:`, `S:`, `A:`, `H:`, `O:`,
 * `T:`); an id without one is a plain `node`.
 */

/** A node type as the legend shows it. */
export interface NodeType {
  /** Stable key (the legend's order and the colour's). */
  key: string;
  /** What the legend says. */
  label: string;
  color: string;
}

/** Known types, colours from Tableau 10 (distinct for the common colour-vision deficiencies). */
const KNOWN: Record<string, Omit<NodeType, 'key'>> = {
  entity: { label: 'entity', color: '#4e79a7' },
  chunk: { label: 'chunk', color: '#f28e2b' },
  text: { label: 'text', color: '#f28e2b' },
  relationship: { label: 'relationship', color: '#e15759' },
  community: { label: 'community', color: '#b07aa1' },
  summary: { label: 'summary', color: '#59a14f' },
  'semantic unit': { label: 'semantic unit', color: '#76b7b2' },
  attribute: { label: 'attribute', color: '#edc948' },
  'high level element': { label: 'high-level element', color: '#9c755f' },
  'high level overview': { label: 'high-level overview', color: '#ff9da7' },
};

/** NodeRAG's one-letter types and other spellings, to the keys of {@link KNOWN}. */
const ALIASES: Record<string, string> = {
  n: 'entity',
  r: 'relationship',
  relation: 'relationship',
  s: 'semantic unit',
  a: 'attribute',
  h: 'high level element',
  'high level': 'high level element',
  o: 'high level overview',
  overview: 'high level overview',
  t: 'text',
  passage: 'chunk',
};

/** Colours of prefixes no table knows, in order of first appearance. */
const EXTRA_COLORS = ['#17becf', '#bcbd22', '#8c564b', '#e377c2', '#7f7f7f'];
/** The colour of ids without a prefix. */
export const PLAIN: NodeType = { key: 'node', label: 'node', color: '#5b6b82' };

const PREFIX = /^([A-Za-z][\w-]{0,23}):(.+)$/s;

/** The type prefix of a node id and the rest, or no prefix. */
export function splitNodeId(id: string): { prefix?: string; rest: string } {
  const m = PREFIX.exec(id);
  return m ? { prefix: m[1]!, rest: m[2]! } : { rest: id };
}

/** Assigns a {@link NodeType} to node ids, giving unknown prefixes the next spare colour. */
export class TypePalette {
  private readonly extra = new Map<string, NodeType>();

  /** The type of a node id. */
  typeOf(id: string): NodeType {
    const { prefix } = splitNodeId(id);
    if (prefix === undefined) return PLAIN;
    const name = prefix.toLowerCase().replace(/[-_]+/g, ' ');
    const key = ALIASES[name] ?? name;
    const known = KNOWN[key];
    if (known) return { key, ...known };
    let type = this.extra.get(key);
    if (!type) {
      type = { key, label: prefix, color: EXTRA_COLORS[this.extra.size % EXTRA_COLORS.length]! };
      this.extra.set(key, type);
    }
    return type;
  }
}

/**
 * A short readable label of a node id: no type prefix, NodeRAG's `a|rel|b` spaced, the node's
 * `text` instead of an id that is only a number, at most `max` characters.
 */
export function nodeLabel(id: string, text?: string, max = 36): string {
  const { rest } = splitNodeId(id);
  const name = text && /^\d+$/.test(rest) ? text : rest.replace(/\|/g, ' · ');
  const label = name.replace(/\s+/g, ' ').trim() || id;
  return label.length > max ? `${label.slice(0, max - 1)}…` : label;
}
