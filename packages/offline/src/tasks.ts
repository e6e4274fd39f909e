/**
 * `createOfflineTasks`: every grag task (`TaskSuite`) implemented with wink-nlp heuristics and
 * extractive methods. No network, no model download, deterministic.
 */
import {
  type AnswerWithCitations,
  type CommunityAssessment,
  type ContextItem,
  cosineSimilarity,
  type Embedder,
  type ExtractedEntity,
  type ExtractedRelation,
  embedAll,
  type GraphExtraction,
  type GraphExtractionOptions,
  getTokenizer,
  InvalidArgumentError,
  type QueryEntities,
  type QueryGraph,
  type SemanticUnitDecomposition,
  type SemanticUnitRecord,
  type SummarizeOptions,
  type TaskSuite,
  type TitleDescription,
  type Tokenizer,
  throwIfAborted,
  type UnitRelationship,
} from '@grag/core';
import { withVocabularyMatches } from '@grag/core/internal';
import { type EntityAnalysis, findEntities } from './entities.js';
import { type Analysis, analyze, contentLemmas, isContent, spanText } from './nlp.js';
import { buildQueryGraph, isVerbLike } from './query.js';
import { centrality, inverseDocumentFrequency, tfidfVectors } from './rank.js';
import { createReader, NO_ANSWER } from './reader/read.js';
import { sentenceRelations } from './relations.js';
import { titleCase } from './words.js';

/** Options of {@link createOfflineTasks}. */
export interface OfflineTasksOptions {
  /**
   * Embedder used to score relevance in `assessCommunity` and `answer`. Without one, relevance is
   * lexical (IDF-weighted lemma overlap) only.
   */
  embedder?: Embedder;
  /** Counts tokens for `summarize`'s budget. @default getTokenizer() from `@grag/core` (cl100k_base) */
  tokenizer?: Pick<Tokenizer, 'count' | 'truncate'>;
  /** Resolve he/she/him to the most recent person. @default true */
  resolvePronouns: boolean;
  /**
   * When `extractGraph` gets no `subject`, take the text's first line as its subject when it looks
   * like a title (what methods prepend: "Title\ntext"; at most 12 words, no sentence punctuation
   * at its end). @default true
   */
  titleLineSubject: boolean;
  /** Most noun-phrase (`concept`) entities per extracted text; 0 for none. @default 3 */
  maxNounPhrases: number;
  /** Longest gap, in words, between two entities whose verb phrase describes their relation. @default 10 */
  maxRelationGap: number;
  /** Sentences kept in an entity's description. @default 3 */
  maxDescriptionSentences: number;
  /** Characters kept in an entity or relation description. @default 600 */
  maxDescriptionChars: number;
  /** Sentences shorter than this many words are merged with a neighbour into one semantic unit. @default 6 */
  minUnitWords: number;
  /** Most words in a title. @default 8 */
  titleWords: number;
  /** Most keywords in a title. @default 4 */
  titleKeywords: number;
  /** Most words in a chunk description. @default 60 */
  descriptionWords: number;
  /** Sentences in a community report. @default 3 */
  reportSentences: number;
  /** Most sentences in an answer (multi-hop questions need the bridging sentences too). @default 3 */
  answerSentences: number;
  /** A further answer sentence must score at least this fraction of the best one. @default 0.6 */
  answerRelativeScore: number;
  /**
   * `'phrase'`: the answer is a short phrase extracted from the context (a name, place, date,
   * number, noun phrase, one of the compared options, or yes/no), chosen by question type.
   * `'sentences'`: the answer is up to `answerSentences` whole context sentences.
   * @default 'phrase'
   */
  answerMode: 'phrase' | 'sentences';
}

/** Defaults of {@link OfflineTasksOptions}. */
export const OFFLINE_TASKS_DEFAULTS = {
  resolvePronouns: true,
  titleLineSubject: true,
  maxNounPhrases: 3,
  maxRelationGap: 10,
  maxDescriptionSentences: 3,
  maxDescriptionChars: 600,
  minUnitWords: 6,
  titleWords: 8,
  titleKeywords: 4,
  descriptionWords: 60,
  reportSentences: 3,
  answerSentences: 3,
  answerRelativeScore: 0.6,
  answerMode: 'phrase',
} as const satisfies Omit<OfflineTasksOptions, 'embedder' | 'tokenizer'>;

export { NO_ANSWER };

/** Entity readings of texts kept per task suite for reuse. */
const READINGS_KEPT = 512;

/** Summary length when `summarize` is called without `maxTokens`. @default 200 (SummarizeOptions) */
const DEFAULT_SUMMARY_TOKENS = 200;

const NUMERIC_TYPES = new Set(['date', 'time', 'money', 'percent', 'contact', 'url']);
const GENERIC_KEYWORDS = new Set(
  'time year years way people thing things part number kind type lot day days place case fact example end use form name'.split(
    ' ',
  ),
);

function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The first line of a text when it looks like a title (what methods prepend: "Title\ntext"): 1 to
 * 12 words, starting with a capital or a digit, no sentence punctuation at its end, and more text
 * after it.
 */
function titleLine(text: string): string | undefined {
  const match = /^\s*#*\s*([^\n]*)\n\s*\S/u.exec(text);
  const line = match?.[1]?.trim();
  if (!line || !/^[\p{Lu}\p{Lt}\p{N}"“']/u.test(line) || /[.!?:;,]$/u.test(line)) return undefined;
  const words = wordCount(line);
  return words >= 1 && words <= 12 ? line : undefined;
}

/**
 * Sentences joined into one text, each line-sentence (a heading, a line of a list) closed with a
 * full stop, so the text still reads as the sentences it was made of: "The organ The organist of
 * … is Ada Lindgren." would otherwise read as one sentence.
 */
function joinSentences(texts: readonly string[]): string {
  return texts.map((t) => (/[.!?…:;]["'”’)\]]*$/u.test(t) ? t : `${t}.`)).join(' ');
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function checkOption(name: string, value: number, min: number): void {
  if (!Number.isFinite(value) || value < min) {
    throw new InvalidArgumentError(
      name,
      `createOfflineTasks: option ${name} must be a number >= ${min}, got ${value}.`,
    );
  }
}

/**
 * Heuristic implementations of every grag task on wink-nlp (`wink-eng-lite-web-model`), for
 * running with no network and no model: entity and relation extraction from proper-noun spans,
 * wink's NER and verb phrases; extractive summaries, titles, reports and answers ranked by
 * TextRank and IDF-weighted overlap (plus embedding cosine when `options.embedder` is given).
 * `entityTypes` in `extractGraph` filters the types only when the caller passes it.
 * Every result has `issues: []`: the heuristics never parse model output.
 */
export function createOfflineTasks(options: Partial<OfflineTasksOptions> = {}): TaskSuite {
  const settings = { ...OFFLINE_TASKS_DEFAULTS, ...options };
  for (const [name, min] of [
    ['maxNounPhrases', 0],
    ['maxRelationGap', 1],
    ['maxDescriptionSentences', 1],
    ['maxDescriptionChars', 20],
    ['minUnitWords', 0],
    ['titleWords', 1],
    ['titleKeywords', 1],
    ['descriptionWords', 1],
    ['reportSentences', 1],
    ['answerSentences', 1],
    ['answerRelativeScore', 0],
  ] as const) {
    checkOption(name, settings[name], min);
  }
  if (settings.answerMode !== 'phrase' && settings.answerMode !== 'sentences') {
    throw new InvalidArgumentError(
      'answerMode',
      `createOfflineTasks: option answerMode must be 'phrase' or 'sentences', got ${String(settings.answerMode)}.`,
    );
  }
  const embedder = options.embedder;
  let tokenizer = options.tokenizer;
  const getCounter = (): Pick<Tokenizer, 'count' | 'truncate'> => {
    tokenizer ??= getTokenizer();
    return tokenizer;
  };

  // What is read from a text depends on the text (and these settings) only: the last few hundred
  // readings are kept, since the same passages reach `answer` question after question.
  const readings = new Map<string, EntityAnalysis>();
  const entitiesOf = async (text: string, full: boolean, subject?: string): Promise<EntityAnalysis> => {
    const key = `${full ? 1 : 0}\u0000${subject ?? ''}\u0000${text}`;
    const hit = readings.get(key);
    if (hit) {
      readings.delete(key);
      readings.set(key, hit);
      return hit;
    }
    const found = {
      resolvePronouns: full && settings.resolvePronouns,
      maxNounPhrases: full ? settings.maxNounPhrases : 0,
    };
    const main = full ? (subject ?? (settings.titleLineSubject ? titleLine(text) : undefined)) : undefined;
    const ea = findEntities(await analyze(text), main === undefined ? found : { ...found, subject: main });
    readings.set(key, ea);
    if (readings.size > READINGS_KEPT) readings.delete(readings.keys().next().value!);
    return ea;
  };

  /** Sentence text with resolved he/she/him replaced by the person's name (for standalone units). */
  const decontextualize = (ea: EntityAnalysis, sentenceIndex: number): string => {
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
  };

  const sentencesOf = async (
    texts: readonly string[],
  ): Promise<{ analysis: Analysis; sentence: number; item: number }[]> => {
    const out: { analysis: Analysis; sentence: number; item: number }[] = [];
    for (let item = 0; item < texts.length; item++) {
      const analysis = await analyze(texts[item]!);
      for (const s of analysis.sentences) out.push({ analysis, sentence: s.index, item });
    }
    return out;
  };

  /** Sentence indexes by TextRank centrality, most central first. */
  const rankSentences = (lemmaLists: readonly string[][]): number[] => {
    const scores = centrality(tfidfVectors(lemmaLists));
    return scores
      .map((score, i) => ({ score, i }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((x) => x.i);
  };

  const embedCosines = async (
    query: string,
    texts: string[],
    signal?: AbortSignal,
  ): Promise<number[] | null> => {
    if (!embedder || texts.length === 0) return null;
    const vectors = await embedAll(embedder, [query, ...texts], { abortSignal: signal });
    const q = vectors[0]!;
    return vectors.slice(1).map((v) => cosineSimilarity(q, v));
  };
  const reader = createReader({
    entitiesOf: (text, full) => entitiesOf(text, full),
    embedder,
    answerMode: settings.answerMode,
    answerSentences: settings.answerSentences,
    answerRelativeScore: settings.answerRelativeScore,
  });

  return {
    id: 'offline:wink',

    async extractGraph(text: string, extraction: GraphExtractionOptions = {}): Promise<GraphExtraction> {
      throwIfAborted(extraction.abortSignal);
      const ea = await entitiesOf(text, true, extraction.subject);
      const allowed = extraction.entityTypes
        ? new Set(extraction.entityTypes.map((t) => t.toLowerCase()))
        : null;
      const kept = ea.entities.filter((e) => !allowed || allowed.has(e.type));
      const keptKeys = new Set(kept.map((e) => e.key));
      const sentences = ea.analysis.sentences;
      const entities: ExtractedEntity[] = kept.map((e) => ({
        name: e.name,
        type: e.type,
        description: clip(
          e.sentences
            .slice(0, settings.maxDescriptionSentences)
            .map((i) => sentences[i]!.text)
            .join(' '),
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
          const description = r.phrase
            ? `${source.name} ${r.phrase} ${target.name}`
            : clip(sentence.text, 300);
          if (!pair.descriptions.includes(description)) pair.descriptions.push(description);
          for (const verb of r.verbs) if (!pair.keywords.includes(verb)) pair.keywords.push(verb);
        }
      }
      const relations: ExtractedRelation[] = [...pairs.values()].map((p) => {
        const relation: ExtractedRelation = {
          source: p.source,
          target: p.target,
          description: clip(p.descriptions.join('; '), settings.maxDescriptionChars),
          weight: p.weight,
        };
        if (p.keywords.length) relation.keywords = p.keywords;
        return relation;
      });
      return { entities, relations, issues: [] };
    },

    async decomposeSemanticUnits(text, options = {}): Promise<SemanticUnitDecomposition> {
      throwIfAborted(options.abortSignal);
      const ea = await entitiesOf(text, true);
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
    },

    async summarize(texts: string[], options: SummarizeOptions = {}): Promise<string> {
      throwIfAborted(options.abortSignal);
      const maxTokens = options.maxTokens ?? DEFAULT_SUMMARY_TOKENS;
      if (!Number.isFinite(maxTokens) || maxTokens < 1) {
        throw new InvalidArgumentError(
          'maxTokens',
          `summarize: maxTokens must be a positive number, got ${maxTokens}.`,
        );
      }
      const counter = getCounter();
      const seen = new Set<string>();
      const sentences: { text: string; lemmas: string[] }[] = [];
      for (const s of await sentencesOf(texts)) {
        const sentence = s.analysis.sentences[s.sentence]!;
        const norm = sentence.text.toLowerCase().replace(/\s+/g, ' ');
        if (seen.has(norm)) continue;
        seen.add(norm);
        sentences.push({
          text: sentence.text,
          lemmas: contentLemmas(s.analysis, sentence.start, sentence.end),
        });
      }
      if (sentences.length === 0) return '';
      // Joined with spaces only: a full stop after each heading line would change which sentences
      // fit the budget (measured: E2GraphRAG's summary tree lost 1.4 points of R@5 on 2Wiki).
      const all = sentences.map((s) => s.text).join(' ');
      if (counter.count(all) <= maxTokens) return all;
      const chosen: number[] = [];
      for (const i of rankSentences(sentences.map((s) => s.lemmas))) {
        const trial = [...chosen, i].sort((a, b) => a - b);
        if (counter.count(trial.map((k) => sentences[k]!.text).join(' ')) <= maxTokens)
          chosen.splice(0, chosen.length, ...trial);
      }
      if (chosen.length === 0) {
        const best = rankSentences(sentences.map((s) => s.lemmas))[0]!;
        return counter.truncate(sentences[best]!.text, maxTokens).trim();
      }
      return chosen.map((k) => sentences[k]!.text).join(' ');
    },

    async titleAndDescription(text, options = {}): Promise<TitleDescription> {
      throwIfAborted(options.abortSignal);
      const ea = await entitiesOf(text, false);
      const { tokens, sentences } = ea.analysis;
      // Keywords: named entities (a mention counts 1.5) and noun lemmas outside them.
      const weights = new Map<string, { label: string; weight: number; first: number }>();
      const inEntity = new Uint8Array(tokens.length);
      for (const e of ea.entities) {
        if (NUMERIC_TYPES.has(e.type)) continue;
        for (const m of e.mentions) for (let i = m.start; i <= m.end; i++) inEntity[i] = 1;
        weights.set(e.key, {
          label: e.name,
          weight: 1.5 * e.mentions.length,
          first: e.mentions[0]?.start ?? 0,
        });
      }
      for (const t of tokens) {
        if (
          inEntity[t.index] ||
          t.pos !== 'NOUN' ||
          !isContent(t) ||
          t.lemma.length < 3 ||
          GENERIC_KEYWORDS.has(t.lemma)
        )
          continue;
        if (!/^\p{L}[\p{L}-]*$/u.test(t.lemma)) continue;
        const entry = weights.get(t.lemma) ?? { label: titleCase(t.lemma), weight: 0, first: t.index };
        entry.weight += 1;
        weights.set(t.lemma, entry);
      }
      const keywords = [...weights.values()].sort((a, b) => b.weight - a.weight || a.first - b.first);
      const titleParts: string[] = [];
      let titleWordCount = 0;
      for (const k of keywords) {
        if (titleParts.length >= settings.titleKeywords) break;
        const n = wordCount(k.label);
        if (titleWordCount + n > settings.titleWords) continue;
        titleParts.push(k.label);
        titleWordCount += n;
      }
      // Description: the most central sentences, in text order, within the word budget.
      const order = rankSentences(sentences.map((s) => contentLemmas(ea.analysis, s.start, s.end)));
      const chosen: number[] = [];
      let words = 0;
      for (const i of order) {
        const n = wordCount(sentences[i]!.text);
        if (words + n > settings.descriptionWords) continue;
        chosen.push(i);
        words += n;
      }
      let description = joinSentences(chosen.sort((a, b) => a - b).map((i) => sentences[i]!.text));
      if (!description && order.length) {
        const first = sentences[order[0]!]!.text.split(/\s+/);
        description = `${first.slice(0, settings.descriptionWords).join(' ')}…`;
      }
      return { title: titleParts.join(', '), description, issues: [] };
    },

    async extractQueryEntities(query, options = {}): Promise<QueryEntities> {
      throwIfAborted(options.abortSignal);
      const ea = await entitiesOf(query, false);
      const out: string[] = [];
      const seen = new Set<string>();
      const push = (value: string): void => {
        const key = value.toLowerCase();
        if (!key || seen.has(key)) return;
        seen.add(key);
        out.push(value);
      };
      const inEntity = new Uint8Array(ea.analysis.tokens.length);
      for (const e of ea.entities) {
        push(e.name);
        for (const m of e.mentions) for (let i = m.start; i <= m.end; i++) inEntity[i] = 1;
      }
      const queryTokens = ea.analysis.tokens;
      for (const t of queryTokens) {
        if (inEntity[t.index] || t.pos !== 'NOUN' || !isContent(t) || GENERIC_KEYWORDS.has(t.lemma)) continue;
        if (isVerbLike(queryTokens, t.index)) continue;
        if (!/^\p{L}[\p{L}-]*$/u.test(t.lemma) || t.lemma.length < 3) continue;
        push(t.lemma);
      }
      return { entities: withVocabularyMatches(query, out, options.vocabulary), issues: [] };
    },

    async extractQueryGraph(query, options = {}): Promise<QueryGraph> {
      throwIfAborted(options.abortSignal);
      return buildQueryGraph(await entitiesOf(query, false));
    },

    async assessCommunity(query, community, options = {}): Promise<CommunityAssessment> {
      throwIfAborted(options.abortSignal);
      const [qa, ca] = await Promise.all([analyze(query), analyze(community)]);
      const queryLemmas = new Set(contentLemmas(qa, 0, qa.tokens.length - 1));
      const sentenceLemmas = ca.sentences.map((s) => contentLemmas(ca, s.start, s.end));
      const communityLemmas = new Set(sentenceLemmas.flat());
      let score: number;
      const cosines = await embedCosines(
        query,
        [community, ...ca.sentences.map((s) => s.text)],
        options.abortSignal,
      );
      if (cosines) {
        score = 10 * Math.sqrt(Math.max(0, cosines[0] ?? 0));
      } else {
        let hits = 0;
        for (const l of queryLemmas) if (communityLemmas.has(l)) hits++;
        score = queryLemmas.size ? (10 * hits) / queryLemmas.size : 0;
      }
      score = Math.round(Math.min(10, score) * 10) / 10;
      // Report: the sentences most relevant to the query (central ones when none is).
      const idf = inverseDocumentFrequency(sentenceLemmas);
      const relevance = sentenceLemmas.map((lemmas, i) => {
        let overlap = 0;
        for (const l of new Set(lemmas)) if (queryLemmas.has(l)) overlap += idf.get(l) ?? 0;
        return overlap + (cosines ? Math.max(0, cosines[i + 1] ?? 0) : 0);
      });
      let picked = relevance
        .map((r, i) => ({ r, i }))
        .filter((x) => x.r > 0)
        .sort((a, b) => b.r - a.r || a.i - b.i)
        .slice(0, settings.reportSentences)
        .map((x) => x.i);
      if (picked.length === 0) picked = rankSentences(sentenceLemmas).slice(0, settings.reportSentences);
      const report = picked
        .sort((a, b) => a - b)
        .map((i) => ca.sentences[i]!.text)
        .join(' ');
      return { score, report, issues: [] };
    },

    answer: (query, context: ContextItem[], options = {}): Promise<AnswerWithCitations> =>
      reader(query, context, options),
  };
}
