import { beforeAll, describe, expect, test } from 'vitest';
import { createOfflineTasks, NO_ANSWER } from '../src/index.js';
import {
  formatUserNotesScore,
  normalizeAnswer,
  scoreUserNotes,
  UNANSWERABLE_USER_NOTE_QUESTIONS,
  USER_NOTE_QUESTIONS,
  USER_NOTES,
  type UserNotesScore,
} from './fixtures/user-notes.js';

// Invented notes about an invented coastal town, and questions worded twice, written without looking
// at the reader: an independent yardstick for the offline answer reader.

describe('the user-notes fixture', () => {
  const noteIds = new Set(USER_NOTES.map((n) => n.id));

  test('has enough notes, questions and unanswerable questions, with unique ids', () => {
    expect(USER_NOTES.length).toBeGreaterThanOrEqual(10);
    expect(USER_NOTE_QUESTIONS.length).toBeGreaterThanOrEqual(40);
    expect(UNANSWERABLE_USER_NOTE_QUESTIONS.length).toBeGreaterThanOrEqual(4);
    expect(noteIds.size).toBe(USER_NOTES.length);
    const ids = [...USER_NOTE_QUESTIONS, ...UNANSWERABLE_USER_NOTE_QUESTIONS].map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('words every question in two different ways', () => {
    for (const q of [...USER_NOTE_QUESTIONS, ...UNANSWERABLE_USER_NOTE_QUESTIONS]) {
      expect(normalizeAnswer(q.wordings[0]), q.id).not.toBe(normalizeAnswer(q.wordings[1]));
    }
  });

  test('names existing notes as sources, and one of them states an acceptable answer', () => {
    for (const q of USER_NOTE_QUESTIONS) {
      expect(q.sources.length, q.id).toBeGreaterThan(0);
      for (const id of q.sources) expect(noteIds.has(id), `${q.id}: ${id}`).toBe(true);
      expect(q.answers.length, q.id).toBeGreaterThan(0);
      if (q.kind === 'yes-no') {
        expect(q.answers, q.id).toSatisfy(
          (a: string[]) => a.length === 1 && (a[0] === 'yes' || a[0] === 'no'),
        );
        continue;
      }
      const texts = q.sources.map((id) => ` ${normalizeAnswer(USER_NOTES.find((n) => n.id === id)!.text)} `);
      const stated = q.answers.some((a) => texts.some((t) => t.includes(` ${normalizeAnswer(a)} `)));
      expect(stated, `${q.id}: no source states ${q.answers.join(' / ')}`).toBe(true);
    }
  });
});

/**
 * What the reader must reach on this suite is 80% of the questions in both wordings, "unknown" for
 * every unanswerable question, and a source cited for every right answer (issue 30). The floors are
 * what it measured last (2026-12-02: 58/69 in both wordings, 6/6 unanswerable questions abstained,
 * at most 1 right answer citing no source; the suite was written at 21/69), so that the suite fails
 * on any step back; raise them as the reader improves.
 */
const FLOOR = { rate: 59 / 69, abstained: 6, uncited: 1 };
const TARGET = { rate: 0.8 };

describe('the offline reader on user notes', () => {
  const tasks = createOfflineTasks();
  let score: UserNotesScore;

  // The first answer loads wink-nlp; 2 × (questions + unanswerable) answers follow.
  beforeAll(async () => {
    score = await scoreUserNotes((question, items) => tasks.answer(question, items), { noAnswer: NO_ANSWER });
  }, 300_000);

  test(`answers at least the measured floor of the questions in both wordings (target ${100 * TARGET.rate}%)`, () => {
    expect(score.rate, `\n${formatUserNotesScore(score)}\n`).toBeGreaterThanOrEqual(FLOOR.rate);
  });

  test('says it does not know, citing nothing, when the notes do not hold the answer', () => {
    const wrong = score.unanswerable
      .filter((u) => !u.abstained)
      .flatMap((u) =>
        u.wordings
          .filter((w) => !w.abstained)
          .map(
            (w) =>
              `- ${u.question.id}: ${JSON.stringify(w.wording)} -> ${JSON.stringify(w.answer)} [${w.citations.join(', ')}]`,
          ),
      );
    const abstained = score.unanswerable.filter((u) => u.abstained).length;
    expect(
      abstained,
      `\nanswered instead of ${JSON.stringify(NO_ANSWER)}:\n${wrong.join('\n')}\n`,
    ).toBeGreaterThanOrEqual(FLOOR.abstained);
  });

  test('cites a note that states the answer whenever the answer is right', () => {
    const uncited = score.questions.flatMap((r) =>
      r.wordings
        .filter((w) => w.correct && !w.cited)
        .map(
          (w) =>
            `- ${r.question.id}: ${JSON.stringify(w.wording)} -> ${JSON.stringify(w.answer)} cites [${w.citations.join(', ')}], sources [${r.question.sources.join(', ')}]`,
        ),
    );
    expect(
      uncited.length,
      `\nright answers without a source cited:\n${uncited.join('\n')}\n`,
    ).toBeLessThanOrEqual(FLOOR.uncited);
  });
});
