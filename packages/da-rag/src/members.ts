/**
 * What a community contributes: its member text within a token budget, the chunks and documents
 * it comes from in the order the context follows, and the text it packs.
 */
import type { SourceLocation, Tokenizer } from '@grag/core';
import { linkKey } from '@grag/core/graph';
import { suffixedCount } from '@grag/core/kit';
import { findEdge } from '@grag/ktruss';
import { byRelevance, type FoundCommunity } from './community-search.js';
import { lineCountsOf } from './line-counts.js';
import { chunkProvenance, memberTables, relationText } from './member-tables.js';
import type { DaRagQueryOptions } from './options.js';
import type { DaRagIndex } from './types.js';

/** A community's member text and provenance. */
export interface CommunityMembers {
  /** Chunk texts, or entity and relation descriptions, within the budget. */
  members: string;
  /** Tokens of `members`. */
  memberTokens: number;
  /**
   * Tokens of `members` followed by a blank line (how a packed item is counted when another comes
   * after it), when known from the memoized counts of its lines; absent otherwise.
   */
  memberTokensWithBlankLine?: number;
  /** The chunks it comes from (positions), in context order. */
  chunks: number[];
  /** Their ids. */
  chunkIds: string[];
  docIds: string[];
  /** The distinct locations of those chunks, when their documents were loaded with segments. */
  locations?: SourceLocation[];
}

/** Input of {@link subjectEntities}. */
export interface SubjectEntitiesInput {
  entities: readonly { name: string }[];
  /** Chunk texts; with `includeTitle`, their first line is the document title. */
  texts: readonly string[];
  includeTitle: boolean;
}

/**
 * The entity each chunk's document is about: the first entity whose name has the link key of the
 * chunk's title line, or -1 (always -1 without titles). With entity linking, that is the entity
 * other chunks link to when they mention the document.
 */
export function subjectEntities(input: SubjectEntitiesInput): Int32Array {
  const byKey = new Map<string, number>();
  input.entities.forEach((e, i) => {
    const key = linkKey(e.name);
    if (key !== '' && !byKey.has(key)) byKey.set(key, i);
  });
  const out = new Int32Array(input.texts.length).fill(-1);
  if (input.includeTitle) {
    input.texts.forEach((text, i) => {
      const line = text.slice(0, text.indexOf('\n') >>> 0).trim();
      const e = line === '' ? undefined : byKey.get(linkKey(line));
      if (e !== undefined) out[i] = e;
    });
  }
  return out;
}

/**
 * Chunks in `'linked'` order: in the given order (by relevance), each followed by the chunks of
 * `nodes` whose subject entity it mentions (`chunkEntities`, ascending), in the given order.
 *
 * The chunks of `nodes` are listed by subject entity first, so a chunk's mentions are looked up
 * once each (not tested against every chunk of `nodes`): once a chunk mentions an entity, every
 * chunk of that subject is placed, and the entity's list is dropped. Linear in the mentions read.
 */
export function linkedOrder(
  nodes: readonly number[],
  chunkEntities: readonly ArrayLike<number>[],
  subjects: ArrayLike<number>,
): number[] {
  let maxSubject = -1;
  let maxNode = -1;
  for (const c of nodes) {
    if (subjects[c]! > maxSubject) maxSubject = subjects[c]!;
    if (c > maxNode) maxNode = c;
  }
  // Positions in `nodes` of the chunks of each subject entity, ascending: a list per entity from
  // head[e] through next[].
  const head = new Int32Array(maxSubject + 1).fill(-1);
  const next = new Int32Array(nodes.length);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const s = subjects[nodes[i]!]!;
    if (s < 0) continue;
    next[i] = head[s]!;
    head[s] = i;
  }
  const placed = new Uint8Array(maxNode + 1);
  const out: number[] = [];
  const picked: number[] = [];
  for (const c of nodes) {
    if (placed[c] === 1) continue;
    placed[c] = 1;
    out.push(c);
    const mentions = chunkEntities[c]!;
    picked.length = 0;
    for (let j = 0; j < mentions.length; j++) {
      const e = mentions[j]!;
      if (e > maxSubject) break;
      // Every chunk of this subject is placed now: the list is not read again.
      for (let i = head[e]!; i >= 0; i = next[i]!) picked.push(i);
      head[e] = -1;
    }
    if (picked.length > 1) picked.sort((x, y) => x - y);
    for (const i of picked) {
      const d = nodes[i]!;
      if (placed[d] === 1) continue;
      placed[d] = 1;
      out.push(d);
    }
  }
  return out;
}

/** The subject entity of each chunk of `index` (made once, kept in its cache). */
export function indexSubjects(index: DaRagIndex): Int32Array {
  index.cache.subjects ??= subjectEntities({
    entities: index.entities,
    texts: index.texts,
    includeTitle: index.options.includeTitle,
  });
  return index.cache.subjects;
}

/** Input of {@link renderMembers}. */
export interface RenderMembersInput {
  index: DaRagIndex;
  community: FoundCommunity;
  /** Tokens of the member text. */
  budget: number;
  /** Relevance of every chunk (orders an entity community's chunks). */
  chunkRelevance: () => Float64Array;
  memberOrder: DaRagQueryOptions['memberOrder'];
}

/**
 * Member text of a community within `budget` tokens, most relevant members first, with provenance:
 * the member chunks (chunk layer), or the chunks that mention the included entities — by
 * `memberOrder`: those that mention more of them first, then by relevance; or linked order.
 */
export function renderMembers(input: RenderMembersInput): CommunityMembers {
  const { index, community: c, budget } = input;
  const { tokenizer } = index.providers;
  const lines: string[] = [];
  // The counts of each line alone and followed by its separator where the index holds them.
  const known = { alone: [] as (number | undefined)[], separated: [] as (number | undefined)[] };
  const saved = lineCountsOf(index);
  let used = 0;
  // Line counts are saved with the index or memoized by the tokenizer (the same chunk texts recur
  // across queries); the separator adds at most one token. The joined text is checked exactly at
  // the end. `counts`: the saved counts of `line` alone and followed by `separator`.
  const take = (line: string, separator: string, counts?: Uint32Array, at = 0): boolean => {
    const cost = (counts ? counts[2 * at]! : tokenizer.count(line)) + (separator === '' ? 0 : 1);
    if (used + cost > budget) {
      if (lines.length === 0) {
        lines.push(tokenizer.truncate(line, budget));
        known.alone.push(undefined);
        known.separated.push(undefined);
        used = budget;
      }
      return false;
    }
    lines.push(line);
    known.alone.push(counts?.[2 * at]);
    known.separated.push(counts?.[2 * at + 1]);
    used += cost;
    return true;
  };
  let members: string;
  let memberTokens: number | undefined;
  let withBlankLine: number | undefined;
  const tables = memberTables(index);
  let chunks: number[];
  if (c.layer === 'chunk') {
    chunks = [];
    for (const i of c.nodes) {
      const fits = take(index.texts[i]!, '\n\n', saved?.chunks, i);
      if (fits || chunks.length === 0) chunks.push(i);
      if (!fits) break;
    }
    members = lines.join('\n\n');
    memberTokens = blankLineJoinedTokens(tokenizer, lines, known);
    withBlankLine = blankLineTrailedTokens(tokenizer, lines, known);
  } else {
    const included = new Set<number>();
    // How many included entities mention each chunk (the chunks in first-mention order).
    const counts = tables.chunkCounts;
    const mentioned: number[] = [];
    for (const v of c.nodes) {
      const fits = take(tables.entityTexts[v]!, '\n', saved?.entities, v);
      if (!fits && included.size > 0) break;
      included.add(v);
      for (const chunk of tables.entityChunks[v]!) if (counts[chunk]!++ === 0) mentioned.push(chunk);
      if (!fits) break;
    }
    if (c.layer === 'kg') {
      const rank = new Map(c.nodes.map((v, r) => [v, r]));
      const edges = c.edges
        .filter(([a, b]) => included.has(a) && included.has(b))
        .sort((x, y) => rank.get(x[0])! + rank.get(x[1])! - (rank.get(y[0])! + rank.get(y[1])!));
      for (const [a, b] of edges) {
        const e = findEdge(index.kgLayer, a, b);
        if (e < 0) continue;
        if (!take(relationText(index, tables, e, a, b), '\n')) break;
      }
    }
    members = lines.join('\n');
    const counted = lineJoinedTokens(tokenizer, lines, known);
    if (counted) {
      memberTokens = counted.joined;
      withBlankLine = counted.trailed;
    }
    const rel = input.chunkRelevance();
    chunks =
      input.memberOrder === 'linked'
        ? linkedOrder(byRelevance(mentioned, rel), index.chunkEntities, indexSubjects(index))
        : mentioned.sort((x, y) => counts[y]! - counts[x]! || rel[y]! - rel[x]! || x - y);
    for (const chunk of mentioned) counts[chunk] = 0;
  }
  memberTokens ??= tokenizer.count(members);
  if (memberTokens > budget) {
    members = tokenizer.truncate(members, budget);
    memberTokens = tokenizer.count(members);
    withBlankLine = undefined;
  }
  return {
    members,
    memberTokens,
    ...(withBlankLine === undefined ? {} : { memberTokensWithBlankLine: withBlankLine }),
    chunks,
    ...chunkProvenance(index, tables, chunks),
  };
}

/**
 * Counts of lines known in advance (the index's saved line counts), parallel to the lines:
 * `alone[i]` of line `i`, `separated[i]` of it followed by the separator that joins them; where
 * one is `undefined`, the tokenizer counts that text.
 */
export interface KnownLineCounts {
  alone: readonly (number | undefined)[];
  separated: readonly (number | undefined)[];
}

/**
 * The count of line `i` of `lines` alone (`separator` empty) or followed by `separator`, the one
 * that joins them: known, else counted (followed by it, from its count alone and its last word's).
 */
function lineCount(
  tokenizer: Tokenizer,
  known: KnownLineCounts | undefined,
  lines: readonly string[],
  i: number,
  separator: '' | '\n' | '\n\n',
): number {
  const separated = known?.separated[i];
  if (separator !== '' && separated !== undefined) return separated;
  const line = lines[i]!;
  const alone = known?.alone[i] ?? tokenizer.count(line);
  return separator === '' ? alone : suffixedCount(tokenizer, line, alone, separator);
}

/**
 * Tokens of `lines.join('\n\n')` from the (saved or memoized) counts of its lines, each but the last
 * with the blank line after it, when the tokenizer's counts add up across a blank line
 * (`additiveAfterBlankLine`) and every line after the first starts with a non-whitespace character;
 * `undefined` otherwise (count the joined text). `known`: counts of the lines joined by a blank line.
 */
export function blankLineJoinedTokens(
  tokenizer: Tokenizer,
  lines: readonly string[],
  known?: KnownLineCounts,
): number | undefined {
  if (tokenizer.additiveAfterBlankLine !== true) return undefined;
  for (let i = 1; i < lines.length; i++) if (!/^\S/.test(lines[i]!)) return undefined;
  let tokens = 0;
  for (let i = 0; i < lines.length; i++) {
    tokens +=
      i < lines.length - 1
        ? lineCount(tokenizer, known, lines, i, '\n\n')
        : lineCount(tokenizer, known, lines, i, '');
  }
  return tokens;
}

/**
 * Tokens of `lines.join('\n\n') + '\n\n'` from the (saved or memoized) counts of its lines, each with
 * the blank line after it, under the conditions of {@link blankLineJoinedTokens}; `undefined` when
 * they do not hold or there is no line.
 */
export function blankLineTrailedTokens(
  tokenizer: Tokenizer,
  lines: readonly string[],
  known?: KnownLineCounts,
): number | undefined {
  if (tokenizer.additiveAfterBlankLine !== true || lines.length === 0) return undefined;
  for (let i = 1; i < lines.length; i++) if (!/^\S/.test(lines[i]!)) return undefined;
  let tokens = 0;
  for (let i = 0; i < lines.length; i++) tokens += lineCount(tokenizer, known, lines, i, '\n\n');
  return tokens;
}

/**
 * Tokens of `lines.join('\n')` (`joined`) and of it followed by a blank line (`trailed`) from the
 * (saved or memoized) counts of its lines, each but the last with the line break after it, when the
 * tokenizer's counts add up across a line break before a letter or digit (`additiveAfterLineBreak`)
 * and every line after the first starts with one; `undefined` otherwise (count the joined text).
 * `known`: counts of the lines joined by a line break (the last one with a blank line is counted).
 */
export function lineJoinedTokens(
  tokenizer: Tokenizer,
  lines: readonly string[],
  known?: KnownLineCounts,
): { joined: number; trailed: number } | undefined {
  if (tokenizer.additiveAfterLineBreak !== true || lines.length === 0) return undefined;
  for (let i = 1; i < lines.length; i++) if (!/^[\p{L}\p{N}]/u.test(lines[i]!)) return undefined;
  let head = 0;
  for (let i = 0; i < lines.length - 1; i++) head += lineCount(tokenizer, known, lines, i, '\n');
  const at = lines.length - 1;
  const last = lineCount(tokenizer, known, lines, at, '');
  return {
    joined: head + last,
    trailed: head + suffixedCount(tokenizer, lines[at]!, last, '\n\n'),
  };
}

/** The text a packed community writes: its report, its members, or both. */
export function communityText(
  c: { report: string; members: string },
  mode: DaRagQueryOptions['communityText'],
): string {
  if (mode === 'members' || c.report === '') return c.members;
  if (mode === 'report') return c.report;
  return `${c.report}\n\n${c.members}`;
}
