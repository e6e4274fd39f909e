/** What the reader's steps pass each other: context sentences, the question read, an answer. */
import type { EntityAnalysis } from '../entities.js';
import type { Token } from '../nlp.js';
import type { QuestionReading } from './question.js';

/** A context sentence as the answer task sees it. */
export interface AnswerSentence {
  ea: EntityAnalysis;
  /** Sentence index in `ea.analysis.sentences`. */
  index: number;
  /** Index of the context item. */
  item: number;
  text: string;
  lemmas: string[];
  /** Entity keys it mentions, with their types. */
  types: Map<string, string>;
  /** How well it matches the question on its own (0: not at all). */
  score: number;
  /** Who "my" and "our" are in its item, a note in the first person (see `narratorOf`). */
  narrator?: string;
}

/** The question, read. */
export interface AnswerQuestion {
  text: string;
  tokens: readonly Token[];
  /** Content lemmas. */
  lemmas: ReadonlySet<string>;
  /** Entity keys of the question (names, dates). */
  keys: readonly string[];
  /** The names the question mentions, as written. */
  names: readonly string[];
  reading: QuestionReading;
  /** Entities the question was led to through a relation ("the director of X" → Y): their items count most. */
  focus?: readonly string[];
  /**
   * Entities the question asks about only through a relation the context did not resolve ("X's
   * father" with no father found): a date or place in their own items is theirs, not the answer.
   */
  aside?: readonly string[];
  /**
   * Whether the context sentence `i` may hold the answer (states what is asked; see the reader).
   * `bridge` is the item a bridge leads to it from (it shares a name with a sentence of that item
   * that matches the question), or -1.
   */
  accept?: (i: number, bridge: number) => boolean;
  /** Concepts of the question's relation words (not its names): what the answer sentence must state. */
  predicate?: ReadonlySet<string>;
}

/** What {@link extractPhrase} found. */
export interface PhraseAnswer {
  answer: string;
  /** Context items the phrase comes from, the sentence holding it first. */
  items: number[];
  /** false: no span of the type the question asks for was found (a fallback phrase). */
  confident: boolean;
  /** The sentence (index in the sentences given) that states the answer, when one does. */
  sentence?: number;
}
