/**
 * The repair retry of the prompt-based tasks: when an answer has records the parser could not
 * read, one more turn quotes them and asks for them again in the task's format; what it recovers
 * is merged into (or replaces) the first result. Also the two things every task call needs: the
 * messages a prompt is sent as, and the issue of an answer cut at the output-token limit.
 */
import type { ChatMessage, ChatResult, ChatTaskInfo } from '../contracts/models.js';
import type {
  GraphExtraction,
  ParseIssue,
  SemanticUnitDecomposition,
  SemanticUnitRecord,
} from '../contracts/tasks.js';
import { repairPrompt, type TaskPrompt } from './prompts.js';

/** The messages `generateText` sends for a prompt. */
export function promptMessages(prompt: TaskPrompt): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (prompt.system) messages.push({ role: 'system', content: prompt.system });
  messages.push({ role: 'user', content: prompt.user });
  return messages;
}

/** Report an answer cut at the output-token limit, unless its parser already reported a cut. */
export function lengthIssue(result: ChatResult, issues: ParseIssue[]): void {
  if (result.finishReason === 'length' && !issues.some((i) => i.kind === 'truncated')) {
    issues.push({
      kind: 'truncated',
      reason: 'the model stopped at its output-token limit; raise maxOutputTokens or shorten the input',
      raw: result.text,
    });
  }
}

/** Appended to the reason of an issue that the repair retry did not recover. */
export const NOT_RECOVERED_NOTE = ' (not recovered by the repair retry)';

function unrecovered(issue: ParseIssue): ParseIssue {
  return { ...issue, reason: `${issue.reason}${NOT_RECOVERED_NOTE}` };
}

/** `text` as a literal inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether every key appears in `raw` as a whole phrase (not inside a longer word), ignoring case
 * and runs of whitespace: how a repaired record is matched to the unreadable text it replaces.
 */
function mentionsAll(raw: string, keys: readonly string[]): boolean {
  if (keys.length === 0) return false;
  const text = raw.replace(/\s+/g, ' ');
  return keys.every((key) => {
    const k = key.replace(/\s+/g, ' ').trim();
    if (!k) return false;
    return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(k)}(?![\\p{L}\\p{N}])`, 'iu').test(text);
  });
}

/** How a task's repair answer is combined with its first answer. */
type RepairPlan<T extends { issues: ParseIssue[] }> =
  | {
      /**
       * Records of the repair answer are added to the result (without duplicates). `keys` gives,
       * for each repaired record, alternative sets of strings that identify it: an unreadable raw
       * text that mentions every string of one set is taken as recovered by that record.
       */
      strategy: 'merge';
      merge: (result: T, repaired: T) => T;
      keys: (repaired: T) => string[][][];
    }
  | {
      /**
       * The repair answer replaces the result when it has fewer repairable issues and at least as
       * many records (`size`): for a task with one record, or a graph whose edges refer to node ids.
       */
      strategy: 'replace';
      size: (result: T) => number;
    };

/** A repair retry to run after a task's answer was parsed. */
export interface RepairRequest<T extends { issues: ParseIssue[] }> {
  task: ChatTaskInfo;
  /** The conversation the answer replied to. */
  messages: ChatMessage[];
  /** The answer, sent back as the assistant turn. */
  answer: string;
  responseFormat: 'text' | 'json';
  signal: AbortSignal | undefined;
  result: T;
  parse: (text: string) => T;
  format: string;
  /** What one record is called in the plural, for the repair prompt. */
  what: string;
  plan: RepairPlan<T>;
}

/** An entity by its name; a relation by two of its endpoints and description (one may be what was missing). */
export function graphKeys(g: GraphExtraction): string[][][] {
  return [
    ...g.entities.map((e) => [[e.name]]),
    ...g.relations.map((r) => [
      [r.source, r.target],
      [r.source, r.description],
      [r.target, r.description],
    ]),
  ];
}

export function mergeUnits(result: SemanticUnitDecomposition, repaired: SemanticUnitDecomposition) {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const units: SemanticUnitRecord[] = result.units.map((u) => ({
    text: u.text,
    entities: [...u.entities],
    relationships: [...u.relationships],
  }));
  for (const unit of repaired.units) {
    const same = units.find((u) => norm(u.text) === norm(unit.text));
    if (!same) {
      units.push(unit);
      continue;
    }
    for (const e of unit.entities) if (!same.entities.includes(e)) same.entities.push(e);
    const key = (r: SemanticUnitRecord['relationships'][number]) =>
      JSON.stringify([norm(r.source), norm(r.relation), norm(r.target)]);
    const seen = new Set(same.relationships.map(key));
    for (const r of unit.relationships) {
      if (seen.has(key(r))) continue;
      seen.add(key(r));
      same.relationships.push(r);
    }
  }
  return { ...result, units };
}

/**
 * The repair retry (see `PromptTaskOptions.repair`): one call with the conversation, the answer
 * and {@link repairPrompt}; its records are merged into (or replace) the result. Issues whose
 * records were recovered are dropped; the others stay, with {@link NOT_RECOVERED_NOTE} added to
 * their reason. Issues of the repair answer about records it did add (missing fields, a cut) are
 * kept; its unreadable parts are already reported by the issues they were meant to repair.
 * `chat` sends a conversation in the request's response format, with its abort signal.
 */
export async function repairRetry<T extends { issues: ParseIssue[] }>(
  request: RepairRequest<T>,
  chat: (messages: ChatMessage[], task: ChatTaskInfo) => Promise<ChatResult>,
): Promise<T> {
  const { result, plan } = request;
  const problems = result.issues.filter((i) => i.repairable === true);
  if (problems.length === 0) return result;
  const whole = plan.strategy === 'replace' || problems.some((i) => i.kind === 'no-records');
  const prompt = repairPrompt({
    unreadable: problems.map((i) => i.raw),
    scope: whole ? 'whole' : 'parts',
    format: request.format,
    what: request.what,
  });
  const messages: ChatMessage[] = [
    ...request.messages,
    { role: 'assistant', content: request.answer },
    { role: 'user', content: prompt },
  ];
  const reply = await chat(messages, { ...request.task, kind: 'repair' });
  const repaired = request.parse(reply.text);
  lengthIssue(reply, repaired.issues);
  const fixes = repaired.issues.filter((i) => i.repairable === true);
  const kept = repaired.issues.filter((i) => i.repairable !== true && i.kind !== 'no-records');
  if (plan.strategy === 'replace') {
    if (fixes.length < problems.length && plan.size(repaired) >= plan.size(result))
      return { ...repaired, issues: [...kept, ...fixes.map(unrecovered)] };
    return { ...result, issues: result.issues.map((i) => (i.repairable === true ? unrecovered(i) : i)) };
  }
  const keys = plan.keys(repaired);
  const recovered = (issue: ParseIssue): boolean =>
    issue.kind === 'no-records'
      ? keys.length > 0
      : keys.some((alternatives) => alternatives.some((k) => mentionsAll(issue.raw, k)));
  const issues: ParseIssue[] = [];
  for (const issue of result.issues) {
    if (issue.repairable !== true) issues.push(issue);
    else if (!recovered(issue)) issues.push(unrecovered(issue));
  }
  return { ...plan.merge(result, repaired), issues: [...issues, ...kept] };
}
