import type { Document } from '@grag/core';

/** A small invented corpus whose documents mention each other's entities (so the layers have triangles). */
export const CORPUS: Document[] = [
  {
    id: 'kessler',
    title: 'Kessler Shipyard',
    text:
      'The Kessler Shipyard was founded in Port Halvard by Anton Kessler and Jakob Kessler. ' +
      'Anton Kessler designed the research vessel Meridian for the Orsa Marine Institute. ' +
      'The Kessler Shipyard also built the ferry Nordlys for the Veskan Line.',
  },
  {
    id: 'meridian',
    title: 'Meridian',
    text:
      'The Meridian is a research vessel built by the Kessler Shipyard in Port Halvard. ' +
      'The Orsa Marine Institute operates the Meridian in the Veskan Strait. ' +
      'Ingrid Solberg commands the Meridian for the Orsa Marine Institute.',
  },
  {
    id: 'institute',
    title: 'Orsa Marine Institute',
    text:
      'The Orsa Marine Institute is directed by Ingrid Solberg on the island of Orsa. ' +
      'Ingrid Solberg received the Brandt Medal for her work on the Veskan Strait. ' +
      'The Orsa Marine Institute owns the Meridian and a station in Port Halvard.',
  },
  {
    id: 'solberg',
    title: 'Ingrid Solberg',
    text:
      'Ingrid Solberg is a marine biologist born in Port Halvard. ' +
      'Ingrid Solberg studied the Veskan Strait aboard the Meridian. ' +
      'Ingrid Solberg won the Brandt Medal in 2022 and directs the Orsa Marine Institute.',
  },
  {
    id: 'nordlys',
    title: 'Nordlys',
    text:
      'The Nordlys is a ferry of the Veskan Line built by the Kessler Shipyard. ' +
      'The Nordlys crosses the Veskan Strait from Port Halvard to Orsa. ' +
      'Jakob Kessler launched the Nordlys for the Veskan Line in Port Halvard.',
  },
  {
    id: 'brandt',
    title: 'Brandt Medal',
    text:
      'The Brandt Medal is awarded by the Halvard Academy to marine biologists. ' +
      'The Halvard Academy gave the Brandt Medal to Ingrid Solberg in 2022. ' +
      'The Halvard Academy sits in Port Halvard near the Kessler Shipyard.',
  },
  {
    id: 'bakery',
    title: 'Lindqvist Bakery',
    text:
      'The Lindqvist Bakery in Tromvik bakes rye bread for the Tromvik Market. ' +
      'Sara Lindqvist runs the Lindqvist Bakery with Erik Lindqvist in Tromvik.',
  },
];
