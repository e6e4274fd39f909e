import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvLoader, markdownLoader } from '../src/index.js';
import { expectWellFormed, utf8 } from './helpers.js';

const word = fc.stringMatching(/^[A-Za-z][a-z]{1,8}$/);
const sentence = fc.array(word, { minLength: 2, maxLength: 8 }).map((w) => `${w.join(' ')}.`);

describe('segments (properties)', () => {
  it('Markdown: every paragraph is in the one segment whose section is the heading path above it', async () => {
    const block = fc.oneof(
      fc.record({ heading: fc.integer({ min: 1, max: 4 }), text: word }),
      fc.record({ paragraph: sentence }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(block, { minLength: 1, maxLength: 12 }), async (blocks) => {
        const stack: { depth: number; text: string }[] = [];
        const expected: { text: string; section: string[] | undefined }[] = [];
        const lines: string[] = [];
        blocks.forEach((b, i) => {
          if ('heading' in b) {
            const text = `${b.text} ${i}`;
            while (stack.length > 0 && stack.at(-1)!.depth >= b.heading) stack.pop();
            stack.push({ depth: b.heading, text });
            lines.push(`${'#'.repeat(b.heading)} ${text}`, '');
          } else {
            const text = `${b.paragraph} (${i})`;
            expected.push({ text, section: stack.length > 0 ? stack.map((h) => h.text) : undefined });
            lines.push(text, '');
          }
        });
        const doc = (await markdownLoader.load({ path: 'p.md', bytes: utf8(lines.join('\n')) }))
          .documents[0]!;
        expectWellFormed(doc, 'p.md');
        for (const { text, section } of expected) {
          const holders = doc.segments!.filter((s) => doc.text.slice(s.start, s.end).includes(text));
          expect(holders.map((s) => s.location.section)).toEqual([section]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('CSV: every record comes back with its text and the spreadsheet row it was written in', async () => {
    const cell = fc.oneof(sentence, fc.constant('with "quotes", and a comma'), fc.constant('two\nlines'));
    await fc.assert(
      fc.asyncProperty(fc.array(cell, { minLength: 1, maxLength: 20 }), async (texts) => {
        const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
        const csv = ['id,text', ...texts.map((t, i) => `r${i},${quote(t)}`)].join('\n');
        const { documents, skipped } = await csvLoader.load({ path: 't.csv', bytes: utf8(csv) });
        expect(skipped).toEqual([]);
        expect(documents.map((d) => [d.id, d.text, d.segments![0]!.location.row])).toEqual(
          texts.map((t, i) => [`r${i}`, t, i + 2]),
        );
      }),
      { numRuns: 60 },
    );
  });
});
