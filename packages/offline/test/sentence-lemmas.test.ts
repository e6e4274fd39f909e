import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { analyze, contentLemmas } from '../src/nlp.js';
import { sentenceLemmas } from '../src/sentence-lemmas.js';

/** What `assessCommunity` read of a text before `sentenceLemmas`: `analyze`'s sentences and their content lemmas. */
async function reference(text: string): Promise<{ text: string; lemmas: string[] }[]> {
  const analysis = await analyze(text);
  return analysis.sentences.map((s) => ({ text: s.text, lemmas: contentLemmas(analysis, s.start, s.end) }));
}

/** Lines of the kind DA-RAG joins into a community text: titles, passages, entity and relation lines. */
const LINES = [
  'Lotta Kvarnby',
  "The cello part in The Harbour Suite (2012) was Lotta Kvarnby's.",
  "Critic Signe Halloran wrote that the finest playing of the evening was Lotta Kvarnby's... she hoped to hear her again in spring.",
  'Kvarnby: A Swedish cellist, born 3 May 1961 in Malmö; she joined the Gothenburg Symphony in 1985.',
  'Kvarnby — Gothenburg Symphony: Kvarnby played there from 1985 to 2003.',
  'The U.S. team won the 1994 FIFA World Cup bid, and the St. Louis club (est. 1902) was founded by Dr. A. B. Smith Jr.',
  '1994 — U.S: Interest in rowing in the U.S. rose steadily through the 1960s and again in the 1970s.',
  'Is it "the best"? Yes! Mr. Holm thinks so; others don’t… (see p. 12).',
  'List of works',
  '- Suite No. 2 in D minor, Op. 14',
  'E. coli and e.g. pH 7.4 at 37 °C cost $5.50, i.e. 20% more — per the report.',
  'Ohio River Bridge\tcrosses at mile 3.6; its main span is 1,250 ft (381 m) long.',
  'She was born in Paris.He moved to Lyon in 1990.They married.',
  'ÅSA ÖBERG won gold at the 2004 Olympics in Athens, Greece.',
  'Which studio did Aino Ketola found, and where did she want to found the next one?',
];

const SEPARATORS = ['\n', '\n\n', ' ', '\r\n', '\n \n', '\n\n\n', '. ', ' \n'];

describe('sentenceLemmas', () => {
  test("gives analyze's sentences and content lemmas for texts of every kind", async () => {
    const texts = [
      '',
      '   ',
      '\n\n',
      ...LINES,
      LINES.join('\n'),
      LINES.join('\n\n'),
      `  ${LINES[1]}\n`,
      `\n\n${LINES[3]}\n\n${LINES[4]}\n\n`,
    ];
    for (const text of texts)
      expect(await sentenceLemmas(text), JSON.stringify(text)).toEqual(await reference(text));
  });

  test('equals the analysis on lines joined in any order with any line breaks (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...LINES), fc.constantFrom(...SEPARATORS)), {
          minLength: 1,
          maxLength: 6,
        }),
        async (parts) => {
          const text = parts.map(([line, sep]) => line + sep).join('');
          expect(await sentenceLemmas(text)).toEqual(await reference(text));
        },
      ),
      { numRuns: 150 },
    );
  });
});
