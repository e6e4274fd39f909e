import type { Document } from '@grag/core';

/**
 * A two-hop question over an invented corpus: the film passage names its director by a short form
 * of his name, and only the director's own passage (titled with his full name) holds the answer;
 * the question shares no content word with that passage. Distractors are other films and people.
 */
export const BRIDGE_CORPUS: Document[] = [
  {
    id: 'harbour-lights',
    title: 'Harbour Lights',
    text:
      'Harbour Lights is a 1987 drama film directed by W. D. Halloran. ' +
      'The film follows Mary Cameron, a young painter who leaves her village for the city of Castleton.',
  },
  {
    id: 'halloran',
    title: 'William D. Halloran',
    text:
      'William D. Halloran is a screenwriter and filmmaker who was raised in Eastmoor. ' +
      'Halloran taught at the Castleton College of Art for twenty years.',
  },
  {
    id: 'north-road',
    title: 'The North Road',
    text:
      'The North Road is a 1991 drama film directed by Agnes Whitlock. ' +
      'The film was shot in the province of Westmark and follows a director of a travelling theatre.',
  },
  {
    id: 'whitlock',
    title: 'Agnes Whitlock',
    text:
      'Agnes Whitlock is a film director from the province of Westmark. ' +
      'Whitlock directed The North Road and several documentaries about the provincial theatre.',
  },
  {
    id: 'grey-tide',
    title: 'Grey Tide',
    text:
      'Grey Tide is a 1984 film about a fishing family in the province of Southmark. ' +
      'The director cast local fishermen from the province in most roles.',
  },
  {
    id: 'castleton',
    title: 'Castleton',
    text:
      'Castleton is a port city and the capital of the province of Southmark. ' +
      'The city hosts a film festival where Harbour Lights had its premiere.',
  },
];

/** Asks for the director's province: the answer, Eastmoor, is only in the director's own passage. */
export const BRIDGE_QUERY = 'In which province did the director of the film Harbour Lights grow up?';
