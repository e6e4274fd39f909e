/**
 * The graph the offline tasks extract from a text: its entities with their sentences as
 * descriptions and the relations between them (`extractGraph`), and its semantic units, short
 * standalone passages with their entities and verb-phrase relationships (`decomposeSemanticUnits`).
 */
import type {
  ExtractedEntity,
  ExtractedRelation,
  GraphExtraction,
  SemanticUnitDecomposition,
  SemanticUnitRecord,
  UnitRelationship,
} from '@grag/core';
import type { EntityAnalysis } from './entities.js';
import { spanText } from './nlp.js';
import { sentenceRelations } from './relations.js';
import type { OfflineTasksOptions } from './tasks-options.js';
import { joinSentences, wordCount } from './words.js';

/** `text` cut to at most `maxChars` characters, at a space when one is near the end, with "…". */
function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The entities of a reading (of the types in `entityTypes`, when given) and the relations between them. */
export function extractGraphOf(
  ea: EntityAnalysis,
  entityTypes: readonly string[] | undefined,
  settings: Pick<OfflineTasksOptions, 'maxDescriptionSentences' | 'maxDescriptionChars' | 'maxRelationGap'>,
): GraphExtraction {
  const allowed = entityTypes ? new Set(entityTypes.map((t) => t.toLowerCase())) : null;
  const kept = ea.entities.filter((e) => !allowed || allowed.has(e.type));
  const keptKeys = new Set(kept.map((e) => e.key));
  const sentences = ea.analysis.sentences;
  const entities: ExtractedEntity[] = kept.map((e) => ({
    name: e.name,
    type: e.type,
    description: clip(
      joinSentences(e.sentences.slice(0, settings.maxDescriptionSentences).map((i) => sentences[i]!.text)),
      settings.maxDescriptionChars,
    ),
  }));

  const pairs = new Map<
    string,
    { source: string; target: string; weight: number; descriptions: string[]; keywords: string[] }
  >();
  for (const sentence of sentences) {
    for (const r of sentenceRelations(ea, sentence.index, settings.maxRelationGap)) {
      if (!keptKeys.has(r.source) || !keptKeys.has(r.target)) continue;
      const source = ea.byKey.get(r.source)!;
      const target = ea.byKey.get(r.target)!;
      const pairKey = [r.source, r.target].sort().join('\u0000');
      let pair = pairs.get(pairKey);
      if (!pair) {
        pair = { source: source.name, target: target.name, weight: 0, descriptions: [], keywords: [] };
        pairs.set(pairKey, pair);
      }
      pair.weight++;
      const description = r.phrase ? `${source.name} ${r.phrase} ${target.name}` : clip(sentence.text, 300);
      if (!pair.descriptions.includes(description)) pair.descriptions.push(description);
      for (const verb of r.verbs) if (!pair.keywords.includes(verb)) pair.keywords.push(verb);
    }
  }
  const relations: ExtractedRelation[] = [...pairs.values()].map((p) => {
    const relation: ExtractedRelation = {
      source: p.source,
      target: p.target,
      description: clip(joinSentences(p.descriptions), settings.maxDescriptionChars),
      weight: p.weight,
    };
    if (p.keywords.length) relation.keywords = p.keywords;
    return relation;
  });
  return { entities, relations, issues: [] };
}

/** Sentence text with resolved he/she/him replaced by the person's name (for standalone units). */
function decontextualize(ea: EntityAnalysis, sentenceIndex: number): string {
  const sentence = ea.analysis.sentences[sentenceIndex]!;
  const pronouns = (ea.bySentence[sentenceIndex] ?? []).filter((m) => m.source === 'pronoun');
  if (pronouns.length === 0) return sentence.text;
  const tokens = ea.analysis.tokens.map((t) => ({ ...t }));
  for (const m of pronouns) {
    const name = ea.byKey.get(m.key)?.name;
    if (!name || !tokens[m.start]) continue;
    tokens[m.start]!.value = name;
    // "the film" → "Still Waters": the description's other words go.
    for (let k = m.start + 1; k <= m.end; k++)
      if (tokens[k]) tokens[k] = { ...tokens[k]!, value: '', space: '' };
  }
  return spanText(tokens, sentence.start, sentence.end);
}

/** The semantic units of a reading: its sentences in groups of at least `minUnitWords` words. */
export function semanticUnitsOf(
  ea: EntityAnalysis,
  settings: Pick<OfflineTasksOptions, 'minUnitWords' | 'maxRelationGap'>,
): SemanticUnitDecomposition {
  const groups: number[][] = [];
  let current: number[] = [];
  let words = 0;
  for (const sentence of ea.analysis.sentences) {
    current.push(sentence.index);
    words += wordCount(sentence.text);
    if (words >= settings.minUnitWords) {
      groups.push(current);
      current = [];
      words = 0;
    }
  }
  if (current.length) {
    const last = groups[groups.length - 1];
    if (last) last.push(...current);
    else groups.push(current);
  }
  const units: SemanticUnitRecord[] = groups.map((group) => {
    const names: string[] = [];
    const relationships: UnitRelationship[] = [];
    for (const index of group) {
      const mentions = ea.bySentence[index] ?? [];
      for (const m of mentions) {
        const name = ea.byKey.get(m.key)!.name;
        if (!names.includes(name)) names.push(name);
      }
      // Pairs of entities linked by a verb phrase.
      for (const r of sentenceRelations(ea, index, settings.maxRelationGap)) {
        const relation = r.phrase;
        if (!relation) continue;
        const unit = {
          source: ea.byKey.get(r.source)!.name,
          relation,
          target: ea.byKey.get(r.target)!.name,
        };
        if (
          !relationships.some(
            (x) => x.source === unit.source && x.target === unit.target && x.relation === unit.relation,
          )
        )
          relationships.push(unit);
      }
    }
    return {
      text: group.map((i) => decontextualize(ea, i)).join(' '),
      entities: names,
      relationships,
    };
  });
  return { units, issues: [] };
}
