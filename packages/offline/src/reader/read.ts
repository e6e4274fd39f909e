/**
 * The offline reader: `answer(question, context)` of the offline task suite. It reads the question
 * (what it asks for, the relation, the named constraints, a comparison or a yes/no), scores every
 * context sentence by what it shares with the question by meaning (concepts, not words), follows
 * relation chains through the context ("the founder of X" → Y, then the question about Y), and
 * extracts the answer phrase with the sentence that says it; "unknown" ({@link NO_ANSWER}) when
 * nothing in the context supports one.
 */
import {
  type AnswerWithCitations,
  type ContextItem,
  cosineSimilarity,
  type Embedder,
  embedAll,
  throwIfAborted,
} from '@grag/core';
import type { EntityAnalysis } from '../entities.js';
import { analyze, spanText } from '../nlp.js';
import { questionTarget } from '../query.js';
import { inverseDocumentFrequency } from '../rank.js';
import { sameName } from './about.js';
import { findRelationPhrase, pairedNames, substitute } from './chain.js';
import {
  describedName,
  findDescription,
  normalizeWording,
  reorderQuestion,
  replaceSpan,
} from './decompose.js';
import { findEventPlace } from './events.js';
import { extractPhrase } from './extract.js';
import { identityName, identityOf } from './identity.js';
import { contentConcepts, predicateConcepts } from './meaning.js';
import { headerOf, narratorOf } from './narrator.js';
import { readQuestion } from './question.js';
import { resolveChain } from './resolve.js';
import { containsPhrase, createSupport, type ScoredSentence } from './support.js';
import type { AnswerSentence } from './types.js';

/** What `answer` says when nothing in the context supports an answer. */
export const NO_ANSWER = 'The context does not contain an answer to the question.';

/** Most relation phrases resolved in one question ("the sister of the founder of the X"). */
const MAX_HOPS = 3;

/** What the reader needs from the task suite. */
export interface ReaderDeps {
  /** The text's entities: `full` for a context item (pronouns, noun phrases), not for a question. */
  entitiesOf(text: string, full: boolean): Promise<EntityAnalysis>;
  embedder?: Embedder | undefined;
  answerMode: 'phrase' | 'sentences';
  answerSentences: number;
  answerRelativeScore: number;
}

/** The reader: answer `query` from `context`, citing the items the answer comes from. */
export function createReader(
  deps: ReaderDeps,
): (
  query: string,
  context: ContextItem[],
  options?: { abortSignal?: AbortSignal },
) => Promise<AnswerWithCitations> {
  const { entitiesOf, embedder } = deps;
  return async (query, context, options = {}) => {
    throwIfAborted(options.abortSignal);
    const candidates: ScoredSentence[] = [];
    for (let item = 0; item < context.length; item++) {
      throwIfAborted(options.abortSignal);
      const text = context[item]!.text;
      const ea = await entitiesOf(text, true);
      const narrator = /\b(my|our)\b/i.test(text)
        ? narratorOf(text, await entitiesOf(headerOf(text), false))
        : null;
      for (const s of ea.analysis.sentences) {
        const keys = new Set<string>();
        const types = new Map<string, string>();
        for (const m of ea.bySentence[s.index] ?? []) {
          keys.add(m.key);
          types.set(m.key, ea.byKey.get(m.key)?.type ?? 'other');
        }
        const numbers = ea.analysis.tokens
          .slice(s.start, s.end + 1)
          .filter((t) => t.type === 'number')
          .map((t) => t.normal);
        candidates.push({
          text: s.text,
          lemmas: contentConcepts(ea.analysis, s.start, s.end, true),
          keys,
          types,
          numbers,
          item,
          ea,
          index: s.index,
          ...(narrator ? { narrator } : {}),
        });
      }
    }
    // The names each item mentions anywhere: a note or passage about X speaks of X in every sentence
    // ("The club was founded in 1961 by …" in the history of the Gig Club).
    const itemKeys = new Map<number, Set<string>>();
    for (const c of candidates) {
      const keys = itemKeys.get(c.item) ?? new Set<string>();
      itemKeys.set(c.item, keys);
      for (const k of c.keys) keys.add(k);
    }
    // …or as a phrase inside a longer name ("Gig Club" in "the Merrow Falls Gig Club").
    const itemLower = context.map((c) => c.text.toLowerCase());
    const idf = inverseDocumentFrequency(candidates.map((c) => c.lemmas));
    const maxIdf = Math.log(1 + candidates.length);
    // The context's embeddings are computed once, for every reading of the question.
    let textVectors: Float32Array[] | null | undefined;
    const cosinesFor = async (q: string): Promise<number[] | null> => {
      if (!embedder || candidates.length === 0) return null;
      textVectors ??= await embedAll(
        embedder,
        candidates.map((c) => c.text),
        { abortSignal: options.abortSignal },
      );
      const [qv] = await embedAll(embedder, [q], { abortSignal: options.abortSignal });
      return textVectors.map((v) => cosineSimilarity(qv!, v));
    };

    /** The question read, and how well each context sentence matches it. */
    const read = async (q: string) => {
      const qea = await entitiesOf(q, false);
      const qTokens = qea.analysis.tokens;
      const queryLemmas = new Set(contentConcepts(qea.analysis, 0, qTokens.length - 1));
      const queryKeys = qea.entities.filter((e) => e.type !== 'concept').map((e) => e.key);
      const target = questionTarget(qTokens);
      const queryNumbers = new Set(qTokens.filter((t) => t.type === 'number').map((t) => t.normal));
      const predicate = predicateConcepts(qea, target.start, target.end);
      // The relation words (not the names) say what is asked: they weigh a quarter more.
      const weightOf = (l: string): number => (predicate.has(l) ? 1.25 : 1);
      let queryWeight = 0;
      for (const l of queryLemmas) queryWeight += weightOf(l) * (idf.get(l) ?? maxIdf);
      const cosines = queryLemmas.size ? await cosinesFor(q) : null;
      const scores = candidates.map((c, i) => {
        let overlap = 0;
        for (const l of new Set(c.lemmas)) if (queryLemmas.has(l)) overlap += weightOf(l) * (idf.get(l) ?? 0);
        const lexical = queryWeight > 0 ? overlap / queryWeight : 0;
        if (lexical === 0 && !(cosines && (cosines[i] ?? 0) > 0.2)) return 0;
        const lower = c.text.toLowerCase();
        // A query entity counts when the sentence names it, or names its first or last word
        // ("Varga" for "Elena Varga").
        const inItem = itemKeys.get(c.item)!;
        let entityHits = 0;
        for (const k of queryKeys) {
          const parts = k.split(' ');
          if (c.keys.has(k) || containsPhrase(lower, k)) entityHits += 1;
          else if (parts.length > 1 && (c.keys.has(parts[0]!) || c.keys.has(parts[parts.length - 1]!)))
            entityHits += 1;
          // Named elsewhere in the same item, or taken up by its head noun ("the club").
          else if (
            inItem.has(k) ||
            containsPhrase(itemLower[c.item]!, k) ||
            (parts.length > 1 && containsPhrase(lower, `the ${parts[parts.length - 1]}`))
          )
            entityHits += 0.6;
        }
        const entityScore = queryKeys.length ? entityHits / queryKeys.length : 0;
        let typeScore = 0;
        if (target.expectedType === 'number') {
          typeScore = c.numbers.some((n) => !queryNumbers.has(n)) ? 1 : 0;
        } else if (target.expectedType) {
          for (const [key, type] of c.types) {
            if (type === target.expectedType && !queryKeys.includes(key)) typeScore = 1;
          }
        }
        return (
          lexical + 0.5 * entityScore + 0.3 * typeScore + (cosines ? 0.5 * Math.max(0, cosines[i] ?? 0) : 0)
        );
      });
      return { qea, qTokens, queryLemmas, queryKeys, scores, predicate };
    };
    const asAnswerSentences = (scores: readonly number[]): AnswerSentence[] =>
      candidates.map((c, i) => ({
        ea: c.ea,
        index: c.index,
        item: c.item,
        text: c.text,
        lemmas: c.lemmas,
        types: c.types,
        ...(c.narrator ? { narrator: c.narrator } : {}),
        // Items come best first: a mild prior for earlier ones.
        score: scores[i]! / (1 + 0.02 * c.item),
      }));

    if (deps.answerMode === 'phrase') {
      if (candidates.length === 0) return { answer: NO_ANSWER, citations: [], issues: [] };
      // Relation chains first: "Where was the founder of X born?" → the context's founder of X, Y
      // → "Where was Y born?". The bridge's items are cited after the answer's.
      const focus: string[] = [];
      const unresolved: string[] = [];
      // "Who is X's husband?" left unresolved: a relative must be tied to X itself, not reached
      // through a third name the two items share.
      let direct = false;
      /** One question answered from the context as it stands (no further decomposition). */
      const single = async (q: string) => {
        const { qea, qTokens, queryLemmas, queryKeys, scores, predicate } = await read(q);
        if (queryLemmas.size === 0) return null;
        const reading = readQuestion(qTokens);
        const accept = acceptor(qea.analysis, reading, { bridges: !direct });
        const names = qea.entities.filter((e) => e.type !== 'concept').map((e) => e.name);
        return extractPhrase(
          {
            text: q,
            tokens: qTokens,
            lemmas: queryLemmas,
            keys: queryKeys,
            names,
            reading,
            focus,
            aside: unresolved,
            predicate,
            ...(accept ? { accept } : {}),
          },
          asAnswerSentences(scores),
        );
      };
      /**
       * "Was A born in B?", "Is A married to B?": the wh-question about the relation ("Where was A
       * born?") answered from the context, and "yes" when its answer is B. null when the question is
       * no such yes/no question or the context gives no confident answer.
       */
      const polarByRelation = async (q: string) => {
        const qea = await entitiesOf(q, false);
        const tokens = qea.analysis.tokens;
        const reading = readQuestion(tokens);
        if (reading.kind !== 'polar' || reading.same || pairedNames(tokens)) return null;
        const mentions = (qea.bySentence.flat() ?? []).filter((m) => {
          const type = qea.byKey.get(m.key)?.type;
          return m.source !== 'pronoun' && type !== 'concept' && type !== undefined;
        });
        if (mentions.length < 2) return null;
        let lead = 0;
        while (lead < tokens.length && tokens[lead]!.pos === 'AUX') lead++;
        // "Is Merrow Falls the town where Hester Pellow was born?": the name first, a description
        // after it; the description asked as a question of its own, its answer against the name.
        const named = mentions.find((m) => m.start === lead);
        const described = named && describedName(tokens, named.end);
        if (named && described) {
          const sub = await single(described);
          if (!sub?.answer || !sub.confident) return null;
          const same = sameName(sub.answer, spanText(tokens, named.start, named.end));
          return { answer: same ? 'yes' : 'no', items: sub.items, confident: true };
        }
        const object = mentions.reduce((a, b) => (b.start > a.start ? b : a));
        const type = qea.byKey.get(object.key)!.type;
        const wh =
          type === 'person'
            ? 'Who'
            : type === 'geo'
              ? 'Where'
              : type === 'date'
                ? 'When'
                : type === 'number'
                  ? 'How many'
                  : 'What';
        const kept = tokens.filter(
          (t, k) => k >= lead && (k < object.start || k > object.end) && t.type !== 'punctuation',
        );
        const sub = await single(`${wh} ${kept.map((t) => t.value).join(' ')}?`);
        if (!sub?.answer || !sub.confident) return null;
        const same = sameName(sub.answer, spanText(tokens, object.start, object.end));
        return { answer: same ? 'yes' : 'no', items: sub.items, confident: true };
      };
      const support = createSupport(candidates, query);
      // Every wh-answer passes the support test, also after a resolved relation chain (the
      // question then names the bridge entity, which the answer's sentence must name).
      const acceptor = support.acceptor;
      const describedAs = support.describedAs;
      const normalized = normalizeWording(query);
      const firstTokens = (await analyze(normalized)).tokens;
      let q = reorderQuestion(firstTokens) ?? normalized;
      const bridgeItems: number[] = [];
      const plain = asAnswerSentences(candidates.map(() => 0));
      for (let hop = 0; hop < MAX_HOPS; hop++) {
        const qTokens = (await analyze(q)).tokens;
        const phrase = findRelationPhrase(qTokens);
        // "the director of X", "X's mother": resolved from the items about X.
        const bridge = phrase && resolveChain(phrase.relations, phrase.subject, plain, [], phrase.noun);
        if (phrase && bridge) {
          const item = plain[bridge.sentence]!.item;
          if (!bridgeItems.includes(item)) bridgeItems.push(item);
          const next = substitute(qTokens, phrase, bridge.name);
          focus.push(bridge.name);
          if (next.whole) {
            return {
              answer: bridge.name,
              citations: [...bridgeItems].reverse().map((i) => context[i]!.id),
              issues: [],
            };
          }
          q = next.text;
          continue;
        }
        // "the shipyard that built X", "the man leading Y": answered as a question of its own (also
        // when it is the subject of an unresolved relation: "the sister of whoever leads Y").
        // "What river flows through the birthplace of X?": the place found first. (Asked alone,
        // "What is the birthplace of X?" is a question of its own.)
        const place = findEventPlace(qTokens);
        const description =
          findDescription(qTokens) ??
          (place && !(place.start <= 2 && place.end >= qTokens.length - 2) ? place : null);
        if (!description) {
          if (phrase) {
            unresolved.push(phrase.subject);
            direct =
              phrase.relations.every((r) => r.kind === 'kin') &&
              substitute(qTokens, phrase, phrase.subject).whole;
          }
          break;
        }
        // A relation inside the description is resolved first ("the institute where Pip's mother
        // works": Pip's mother, then the institute where she works).
        let subQuestion = description.question;
        for (let inner = 0; inner < 2; inner++) {
          const subTokens = (await analyze(subQuestion)).tokens;
          const innerPhrase = findRelationPhrase(subTokens);
          const innerBridge =
            innerPhrase &&
            resolveChain(innerPhrase.relations, innerPhrase.subject, plain, [], innerPhrase.noun);
          if (!innerPhrase || !innerBridge) break;
          const next = substitute(subTokens, innerPhrase, innerBridge.name);
          if (next.whole) break;
          const item = plain[innerBridge.sentence]!.item;
          if (!bridgeItems.includes(item)) bridgeItems.push(item);
          subQuestion = next.text;
        }
        const sub = await single(subQuestion);
        if (!sub?.answer || !sub.confident) break;
        // The entity found must be what the description calls it: "the research vessel Aurora
        // Tern", "the Lindqvist Institute", somewhere in the context.
        if (description.head && !describedAs(sub.answer, description.head)) break;
        for (const i of sub.items) if (!bridgeItems.includes(i)) bridgeItems.push(i);
        // "Who is the woman who started X?": the description is all that is asked.
        const whole =
          description.start === 2 &&
          /^(who|what)$/.test(qTokens[0]!.normal) &&
          qTokens[1]!.lemma === 'be' &&
          description.end >= qTokens.length - 2;
        if (whole) {
          return {
            answer: sub.answer,
            citations: [...bridgeItems].reverse().map((i) => context[i]!.id),
            issues: [],
          };
        }
        focus.push(sub.answer);
        q = replaceSpan(qTokens, description.start, description.end, sub.answer);
      }
      // "Who was X?", "What does X do?": what the context calls X, or unknown.
      const identity = identityName((await analyze(q)).tokens);
      if (identity) {
        const found = identityOf(identity, plain);
        if (!found) return { answer: NO_ANSWER, citations: [], issues: [] };
        return { answer: found.answer, citations: [context[plain[found.sentence]!.item]!.id], issues: [] };
      }
      const phrase = (await polarByRelation(q)) ?? (await single(q));
      if (!phrase?.answer) return { answer: NO_ANSWER, citations: [], issues: [] };
      const items = [...phrase.items];
      for (const i of [...bridgeItems].reverse()) if (!items.includes(i)) items.push(i);
      return {
        answer: phrase.answer,
        citations: items.map((i) => context[i]!.id),
        issues: [],
      };
    }
    const { queryLemmas, scores } = await read(query);
    if (candidates.length === 0 || queryLemmas.size === 0)
      return { answer: NO_ANSWER, citations: [], issues: [] };
    const ranked = scores
      .map((score, i) => ({ score, i }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i);
    const best = ranked[0];
    if (!best) return { answer: NO_ANSWER, citations: [], issues: [] };
    // The same sentence often reaches the context several times (a passage, an entity description,
    // a relation); an answer states it once.
    const picked: ScoredSentence[] = [];
    const seen: string[] = [];
    for (const x of ranked) {
      if (picked.length >= deps.answerSentences || x.score < deps.answerRelativeScore * best.score) break;
      const c = candidates[x.i]!;
      const norm = c.text.toLowerCase().replace(/\s+/g, ' ').trim();
      if (seen.some((t) => t.includes(norm) || norm.includes(t))) continue;
      seen.push(norm);
      picked.push(c);
    }
    const citations: string[] = [];
    for (const c of picked) {
      const id = context[c.item]!.id;
      if (!citations.includes(id)) citations.push(id);
    }
    return { answer: picked.map((c) => c.text).join(' '), citations, issues: [] };
  };
}
