import type { Document } from '@grag/core';

/** A small fictional corpus: the shipyard, the island, the institute and the people who link them. */
export const CORPUS: Document[] = [
  {
    id: 'kessler',
    title: 'Kessler Shipyard',
    text: 'The Kessler Shipyard was founded in 1881 by Anton Kessler in the port of Varnholm. Anton Kessler built steam ferries for the Veskan Strait. His daughter Mira Kessler ran the shipyard after 1910.',
  },
  {
    id: 'orsa',
    title: 'Orsa',
    text: 'Orsa is an island across the Veskan Strait from Varnholm. The island is home to the Orsa Marine Institute. Ferries from the Kessler Shipyard connect Orsa with Varnholm.',
  },
  {
    id: 'institute',
    title: 'Orsa Marine Institute',
    text: 'The Orsa Marine Institute studies the currents of the Veskan Strait. It was founded in 1923 by Mira Kessler and the biologist Tomas Brandt. Tomas Brandt directed the institute until 1950.',
  },
  {
    id: 'brandt',
    title: 'Tomas Brandt',
    text: 'Tomas Brandt was a biologist born in Varnholm in 1889. Tomas Brandt mapped the eel migrations of the Veskan Strait. He wrote the book Tides of Orsa in 1931.',
  },
  {
    id: 'varnholm',
    title: 'Varnholm',
    text: 'Varnholm is a port city on the Veskan Strait. Varnholm grew around the Kessler Shipyard and its ferry trade. The city hosts a yearly regatta in August.',
  },
  {
    id: 'tides',
    title: 'Tides of Orsa',
    text: 'Tides of Orsa is a 1931 book by Tomas Brandt about the island of Orsa. The book describes the tides, the eels and the ferries of the Veskan Strait.',
  },
  {
    id: 'regatta',
    title: 'Varnholm Regatta',
    text: 'The Varnholm Regatta is a sailing race held every August since 1902. Boats race from Varnholm to Orsa and back across the Veskan Strait.',
  },
  {
    id: 'mira',
    title: 'Mira Kessler',
    text: 'Mira Kessler was a shipbuilder and the daughter of Anton Kessler. Mira Kessler led the Kessler Shipyard and co-founded the Orsa Marine Institute in 1923.',
  },
];
