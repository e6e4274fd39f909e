/** A request that names what it wants instead of asking ("Name the …", "Tell me the …", "Give the …"). */
const REQUEST_FRAME =
  /^\s*(?:please\s*,?\s*)?(?:name|tell me|give(?: me)?|state|identify|say)\s+(?:please\s+)?(?=(?:the|a|an)\s)/i;

/**
 * Everyday wording folded to one form the question reader knows ("husband or wife" → spouse, a
 * polite frame dropped, "whose wife …" asked from the other side).
 */
import { relationOf } from './kinship.js';

/** Pairs people write for one kinship relation, and the relation ("his husband or wife" → spouse). */
const EITHER_KIN: readonly [RegExp, string][] = [
  [/\b(husband or wife|wife or husband|husband\/wife|wife\/husband)\b/gi, 'spouse'],
  [/\b(mother or father|father or mother|mom or dad|dad or mom|mum or dad|dad or mum)\b/gi, 'parent'],
  [/\b(brother or sister|sister or brother)\b/gi, 'sibling'],
  [/\b(son or daughter|daughter or son)\b/gi, 'child'],
];

/** The relative seen from the other side, as a noun ("whose wife" is her husband). */
const INVERSE_KIN: Readonly<Record<string, string>> = {
  wife: 'husband',
  husband: 'wife',
  spouse: 'spouse',
  son: 'parent',
  daughter: 'parent',
  child: 'parent',
  father: 'child',
  mother: 'child',
  parent: 'child',
  brother: 'sibling',
  sister: 'sibling',
  sibling: 'sibling',
};

/** A polite frame before an embedded wh-question ("Could you tell me who …", "I wonder where …"). */
const POLITE_FRAME =
  /^\s*(?:please\s*,?\s*)?(?:(?:can|could|would|will) you (?:please )?(?:tell|show|let) me(?: know)?|(?:do|does) (?:you|anyone|anybody) know|(?:please )?tell me|i(?:'d| would) like to know|i (?:want|need) to know|i wonder|i'm wondering|any idea)\s*,?\s+(?=(?:who|whom|whose|what|which|when|where|why|how)\b)/i;

/**
 * Everyday wording folded to one form the question reader knows: "husband or wife" → spouse,
 * "which one's" / "which of the two's" → whose, "which aunt does X have" → "who is X's aunt", a
 * polite frame ("Can you tell me how many …") dropped. The text's words and names are otherwise
 * kept.
 */
export function normalizeWording(question: string): string {
  let text = question
    // "Yes or no: are A and B …?", "Are A and B …, yes or no?": a yes/no question, tagged.
    .replace(/^\s*(yes or no|true or false)\s*[:,—–-]+\s*/i, '')
    .replace(/\s*[,:—–-]+\s*(yes or no|true or false)\s*\?\s*$/i, '?')
    // "Both A and B are Norwegian, right?", "…, isn't it?": the statement asked about.
    .replace(
      /\s*,?\s*(?:right|correct|true|(?:is|are|was|were|do|does|did|has|have|had)n['’]t (?:it|that so|they|he|she|there))\s*\?\s*$/i,
      '?',
    )
    // "Which one of A and B …": which of them.
    .replace(/\bwhich one of\b/gi, (w) => (w[0] === 'W' ? 'Which of' : 'which of'))
    // "the brother of one of the founders of X": of a founder of X (the relation read as one).
    .replace(/\bone of the ([a-z]+?)s of\b/gi, 'the $1 of')
    // "A vs. B", "A versus B": the options of a comparison.
    .replace(/\s+(vs\.?|versus)\s+/gi, ' or ')
    // "Can you tell me how many staff …", "Do you know where …", "I'd like to know when …": the
    // question asked inside a polite frame.
    .replace(POLITE_FRAME, '')
    // "Name the capital of X.", "Tell me the year Y opened": a request for a thing, asked as "What is …?".
    .replace(REQUEST_FRAME, 'What is ')
    .replace(/^(What is .*?)\s*[.!]?\s*$/s, (all, asked: string) =>
      /[?]$/.test(all.trim()) ? all : `${asked}?`,
    );
  text = text.charAt(0).toUpperCase() + text.slice(1);
  for (const [pattern, word] of EITHER_KIN) text = text.replace(pattern, word);
  // "Whose wife captains the Gig Club?" → "Who is the husband of the person who captains the Gig
  // Club?": the relative from the other side, of whoever the rest of the question describes.
  text = text.replace(/^whose ([a-z]+) (?!of\b)([a-z].*)$/iu, (all, noun: string, rest: string) => {
    const inverse = INVERSE_KIN[noun.toLowerCase()];
    return inverse ? `Who is the ${inverse} of the person who ${rest}` : all;
  });
  // "Which aunt does Pip have through her dad?" → "Who is Pip's aunt through her dad?"
  text = text.replace(
    /^(which|what) ([a-z-]+) (?:does|did|do) (\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*)*) have\b/iu,
    (all, _wh: string, noun: string, name: string) =>
      relationOf(noun)?.every((r) => r.kind === 'kin') ? `Who is ${name}'s ${noun}` : all,
  );
  return text.replace(/\bwhich (one|of (the two|them|these|those)(?: \w+)?)['’]s\b/gi, 'whose');
}
