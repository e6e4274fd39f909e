/**
 * G0 → G1 of NodeRAG (§2.2): text chunks, entity linking over the semantic units of the corpus, and
 * the decomposition graph of semantic units (S), entities (N) and relationships (R).
 */
import type { BuildContext, Chunk, Document, SemanticUnitRecord } from '@grag/core';
import { cleanEntityName, type LinkableItem, linkEntities, normalizeEntityName } from '@grag/core/graph';
import { requireDocuments, titledChunksBySettings } from '@grag/core/kit';
import { HeteroGraph } from '@grag/heterograph';
import type { NodeRagOptions } from './options.js';
import type { NodeRagLinkingStats } from './types.js';

/** Add `by` to the count of `key`. */
export function bump(record: Record<string, number>, key: string, by = 1): void {
  record[key] = (record[key] ?? 0) + by;
}

/** Text chunks with the text each T node carries (title line + chunk text). */
export function textUnits(
  docs: readonly Document[],
  ctx: Pick<BuildContext, 'tokenizer'>,
  o: Pick<NodeRagOptions, 'chunking' | 'chunkSize' | 'overlap' | 'includeTitle'>,
): { chunks: Chunk[]; texts: string[] } {
  requireDocuments('noderag', docs);
  return titledChunksBySettings(docs, o, ctx.tokenizer, (doc) => doc.title?.trim());
}

/**
 * Entity linking over the semantic units of a whole corpus (`linkEntities`, one item per unit, the
 * document titles as canonical entities): every unit of a titled document gets its title entity,
 * units that write another title get that entity, aliases fold into their canonical name. Returns
 * the units of each chunk, in order, with their entity names and relationship ends replaced by
 * canonical names, and what linking did.
 */
export function linkUnits(input: {
  docs: readonly Document[];
  chunks: readonly Chunk[];
  /** The units decomposed from each chunk (same order as `chunks`). */
  units: readonly (readonly SemanticUnitRecord[])[];
}): { units: SemanticUnitRecord[][]; linking: NodeRagLinkingStats } {
  const titles = new Map<string, string | undefined>(input.docs.map((d) => [d.id, d.title?.trim()]));
  const items: LinkableItem[] = [];
  input.units.forEach((units, c) => {
    const chunk = input.chunks[c]!;
    for (const unit of units) {
      items.push({
        chunkId: chunk.id,
        docId: chunk.docId,
        text: unit.text,
        extraction: {
          entities: unit.entities.map((name) => ({ name, type: '', description: '' })),
          relations: [],
        },
      });
    }
  });
  const linking = linkEntities(items, { titles });
  let i = 0;
  const units = input.units.map((list) =>
    list.map((unit) => ({
      text: unit.text,
      entities: linking.items[i++]!.extraction.entities.map((e) => e.name),
      relationships: unit.relationships.map((r) => ({
        source: linking.resolve(r.source),
        relation: r.relation,
        target: linking.resolve(r.target),
      })),
    })),
  );
  return {
    units,
    linking: {
      names: linking.stats.names,
      entities: linking.stats.entities,
      titleEntities: linking.stats.titleEntities,
      textMentions: linking.stats.textMentions,
      folded: Object.values(linking.stats.folded).reduce((a, b) => a + b, 0),
    },
  };
}

/** The decomposition graph G1 and what went into it. */
export interface LaidUnits {
  graph: HeteroGraph;
  /** The S keys of each chunk, in order of first mention. */
  unitsOfChunk: string[][];
  /** Semantic units given (before identical ones merge). */
  extractedUnits: number;
  /** Inputs left out, by reason: `blank-unit`, `nameless-entity`, `self-relation`. */
  skipped: Record<string, number>;
}

/**
 * The decomposition graph G1 (NodeRAG §2.2) of the semantic units of each chunk: one S node per
 * distinct unit text (`S:<n>` in order of first appearance), one N node per normalized entity name
 * (`N:<name>`), one R node per source–relation–target (`R:<source>|<relation>|<target>`), with edges
 * S–N and S–R (`d`) and R–N (`r`). Every node carries the chunks and documents it came from, and its
 * weight counts how often it was laid.
 */
export function layUnits(input: {
  chunks: readonly Chunk[];
  /** The units of each chunk (same order as `chunks`). */
  units: readonly (readonly SemanticUnitRecord[])[];
}): LaidUnits {
  const graph = new HeteroGraph();
  const skipped: Record<string, number> = {};
  const unitsOfChunk: string[][] = input.chunks.map(() => []);
  const unitKeyByText = new Map<string, string>();
  let extractedUnits = 0;
  const entityKey = (name: string): string | undefined => {
    const id = normalizeEntityName(name);
    if (id === '') {
      bump(skipped, 'nameless-entity');
      return undefined;
    }
    return `N:${id}`;
  };
  input.units.forEach((units, c) => {
    const chunk = input.chunks[c]!;
    const provenance = { chunks: [chunk.id], docs: [chunk.docId] };
    for (const unit of units) {
      extractedUnits++;
      const text = unit.text.trim();
      if (text === '') {
        bump(skipped, 'blank-unit');
        continue;
      }
      let sKey = unitKeyByText.get(text);
      if (sKey === undefined) {
        sKey = `S:${unitKeyByText.size}`;
        unitKeyByText.set(text, sKey);
      }
      const unitKey = sKey;
      graph.addNode(unitKey, 'S', { text, ...provenance });
      if (!unitsOfChunk[c]!.includes(unitKey)) unitsOfChunk[c]!.push(unitKey);
      const mentioned = new Set<string>();
      const mention = (name: string): string | undefined => {
        const key = entityKey(name);
        if (key === undefined) return undefined;
        if (!mentioned.has(key)) {
          mentioned.add(key);
          graph.addNode(key, 'N', { text: cleanEntityName(name), ...provenance });
          graph.connect(unitKey, key, 'd');
        }
        return key;
      };
      for (const name of unit.entities) mention(name);
      for (const rel of unit.relationships) {
        const source = mention(rel.source);
        const target = mention(rel.target);
        const relation = rel.relation.trim().replace(/\s+/g, ' ');
        if (source === undefined || target === undefined) continue;
        if (source === target) {
          bump(skipped, 'self-relation');
          continue;
        }
        const rKey = `R:${source.slice(2)}|${relation.toLowerCase()}|${target.slice(2)}`;
        const rText = `${graph.node(source).text} ${relation} ${graph.node(target).text}`.trim();
        const isNew = !graph.hasNode(rKey);
        graph.addNode(rKey, 'R', { text: rText, ...provenance });
        if (isNew) {
          graph.connect(rKey, source, 'r');
          graph.connect(rKey, target, 'r');
        }
        if (graph.graph.edge(unitKey, rKey) === undefined) graph.connect(unitKey, rKey, 'd');
      }
    }
  });
  return { graph, unitsOfChunk, extractedUnits, skipped };
}
