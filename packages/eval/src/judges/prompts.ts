/**
 * Every prompt the model-judged metrics send, in one place. The wording is grag's own; the criteria
 * follow the papers named on each prompt. Each prompt asks for one JSON object; the parsers in
 * `judges.ts` read it leniently (prose around it, code fences, missing fields).
 */

/** The four head-to-head criteria of LightRAG, used by DA-RAG §6.1 and appendix B.2. */
export const PAIRWISE_CRITERIA = ['comprehensiveness', 'diversity', 'empowerment', 'overall'] as const;
/** One head-to-head criterion. */
export type PairwiseCriterion = (typeof PAIRWISE_CRITERIA)[number];

/** What each criterion asks the judge to weigh (DA-RAG appendix B.2, in grag's words). */
export const PAIRWISE_CRITERION_TEXT: Record<PairwiseCriterion, string> = {
  comprehensiveness: 'Which answer covers more of what the question asks about, in more relevant detail?',
  diversity: 'Which answer brings a wider range of angles, facts and insights to the question?',
  empowerment:
    'Which answer does more to help the reader understand the topic and reach well-founded judgments of their own?',
  overall: 'Taking the three criteria above together, which answer is better as a whole?',
};

/** System prompt of the head-to-head judge. */
export const PAIRWISE_SYSTEM =
  'You are an impartial reviewer comparing two answers to the same question. Judge only the content of the ' +
  'answers against each criterion; the order in which they are shown and their length say nothing about ' +
  'their quality. Reply with one JSON object and nothing else.';

/** User prompt of the head-to-head judge for one question and two answers. */
export function pairwisePrompt(question: string, answer1: string, answer2: string): string {
  const criteria = PAIRWISE_CRITERIA.map((c) => `- ${c}: ${PAIRWISE_CRITERION_TEXT[c]}`).join('\n');
  const shape = PAIRWISE_CRITERIA.map(
    (c) => `  "${c}": {"winner": "Answer 1" | "Answer 2" | "tie", "reason": "..."}`,
  ).join(',\n');
  return [
    `Question:\n${question}`,
    `Answer 1:\n${answer1}`,
    `Answer 2:\n${answer2}`,
    `For each criterion, name the better answer:\n${criteria}`,
    `Reply with JSON of this shape:\n{\n${shape}\n}`,
  ].join('\n\n');
}

/** System prompt of the correctness judge (LLM-as-judge accuracy, NodeRAG appendix B.1). */
export const CORRECTNESS_SYSTEM =
  'You grade answers to questions against a reference answer. An answer is correct when it states the ' +
  'reference answer or an equivalent of it (another name, unit or wording for the same thing), even with ' +
  'extra explanation; it is incorrect when it gives a different answer, hedges between several, or does not ' +
  'answer. Reply with one JSON object and nothing else.';

/** User prompt of the correctness judge. `gold` lists the reference answer and its accepted aliases. */
export function correctnessPrompt(question: string, gold: readonly string[], answer: string): string {
  const reference =
    gold.length > 1 ? `${gold[0]} (also accepted: ${gold.slice(1).join('; ')})` : (gold[0] ?? '');
  return [
    `Question:\n${question}`,
    `Reference answer:\n${reference}`,
    `Answer to grade:\n${answer}`,
    'Reply with JSON: {"correct": true | false, "reason": "..."}',
  ].join('\n\n');
}

/** System prompt of the Empowerment Score judge (SG-RAG appendix K). */
export const EMPOWERMENT_SYSTEM =
  'You are a senior reviewer scoring answers to one question, each on its own merits. Use the reference ' +
  'answer to tell sound reasoning from unsound, and score every answer on two scales: "logic" from 0 to 2 ' +
  '(0: no or broken reasoning; 1: partly clear or incomplete; 2: clear, complete, well ordered) and "insight" ' +
  'from 0 to 1 (1 when the answer adds useful explanation, context or guidance beyond a bare statement). ' +
  'Reply with one JSON object and nothing else.';

/** User prompt of the Empowerment Score judge for several labelled answers. */
export function empowermentPrompt(
  question: string,
  gold: readonly string[],
  answers: readonly { label: string; text: string }[],
): string {
  const list = answers.map((a) => `[${a.label}]\n${a.text}`).join('\n\n');
  const shape = answers.map((a) => `  "${a.label}": {"logic": 0-2, "insight": 0-1}`).join(',\n');
  return [
    `Question:\n${question}`,
    `Reference answer:\n${gold.join('; ')}`,
    `Answers:\n${list}`,
    `Reply with JSON of this shape:\n{\n${shape}\n}`,
  ].join('\n\n');
}
