import type { Document } from '@grag/core';
import { entityExtractorFromFunction } from '@grag/core/graph';

/** The names the test extractor knows (an invented harbour world). */
export const NAMES = [
  'Nordlys',
  'Lindqvist Institute',
  'Edda Varn',
  'Ilse Marren',
  'Merrow Falls',
  'Port Halvard',
  'Sable Gull',
  'Veskan Strait',
  'Kessler Shipyard',
];

/** A dictionary extractor: every known name written in a sentence, in order of mention. */
export const dictionary = entityExtractorFromFunction(
  (sentence) =>
    NAMES.map((n) => [sentence.indexOf(n), n] as const)
      .filter(([at]) => at >= 0)
      .sort((a, b) => a[0] - b[0])
      .map(([, n]) => n),
  { id: 'test-dictionary' },
);

/**
 * Six passages. The vessel's passage names the institute (which has a passage of its own: a title
 * bridge) and its captain (who has none; the passage on her birth only mentions her: a mention
 * bridge). Neither second hop shares a content word with the question about the vessel.
 */
export const DOCS: Document[] = [
  {
    id: 'nordlys',
    title: 'Nordlys',
    text: 'Nordlys is a research vessel launched in 1990 for the Lindqvist Institute. Her captain, Edda Varn, sailed her north.',
  },
  {
    id: 'institute',
    title: 'Lindqvist Institute',
    text: 'The Lindqvist Institute is directed by Ilse Marren and studies the Veskan Strait.',
  },
  {
    id: 'varn',
    title: 'Harbour families',
    text: 'Edda Varn was born in Merrow Falls to a family of pilots.',
  },
  {
    id: 'ferry',
    title: 'Sable Gull',
    text: 'The Sable Gull is a ferry that crosses the Veskan Strait from Port Halvard every morning.',
  },
  {
    id: 'yard',
    title: 'Kessler Shipyard',
    text: 'The Kessler Shipyard in Port Halvard builds ferries and fishing boats.',
  },
  {
    id: 'falls',
    title: 'Merrow Falls',
    text: 'Merrow Falls is a town of pilots and net makers on the coast.',
  },
];

/** Asks about the vessel only: the institute's and the captain's passages are the second hops. */
export const QUESTION = 'Which research vessel was launched in 1990, and where was her captain born?';
