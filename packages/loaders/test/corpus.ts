/**
 * A small mixed-format corpus for end-to-end tests of loaders, indexing and citations: one
 * multi-page PDF, one HTML page with navigation and a footer, one Word file with headings and a
 * table, one CSV, one JSON file and one Markdown file, set in the invented world of the demo corpus
 * (Port Halvard, the Kessler Shipyard, Merrow Falls). Four facts are each stated once, as one plain
 * sentence, in one place: page 3 of the PDF, under a second-level heading of the Word file, in row
 * 7 of the CSV, and in the main text of the HTML page. Other packages' tests import this module by
 * relative path.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceLocation } from '@grag/core';
import { makeDocx, makePdf } from './make.js';

export interface MixedCorpusFact {
  /** The file format the fact is in. */
  format: 'pdf' | 'docx' | 'csv' | 'html';
  question: string;
  /** The short answer, as the sentence words it. */
  answer: string;
  /** The one sentence that states the fact. */
  sentence: string;
  /** Where a citation of the answer must point (`path` relative to the corpus folder). */
  location: SourceLocation;
}

export interface MixedCorpusFacts {
  /** The files written, relative to the corpus folder, in the order written. */
  files: string[];
  /** The four facts: PDF page 3, Word second-level heading, CSV row 7, HTML main text. */
  facts: MixedCorpusFact[];
}

const PDF = 'harbour-report.pdf';
const DOCX = 'shipyard-review.docx';
const CSV = 'ferries.csv';
const HTML = 'concert-hall.html';
const JSON_FILE = 'harbour-events.json';
const MARKDOWN = 'strait-notes.md';

export const MIXED_CORPUS_FACTS: readonly MixedCorpusFact[] = [
  {
    format: 'pdf',
    question: 'Who is the harbour pilot of Port Halvard?',
    answer: 'Nils Ostrander',
    sentence: 'The harbour pilot of Port Halvard is Nils Ostrander.',
    location: { path: PDF, page: 3 },
  },
  {
    format: 'docx',
    question: 'Who is the head of the welding school at the Kessler Shipyard?',
    answer: 'Agnes Dahl',
    sentence: 'The head of the welding school at the Kessler Shipyard is Agnes Dahl.',
    location: { path: DOCX, section: ['Kessler Shipyard', 'Welding school'] },
  },
  {
    format: 'csv',
    question: 'Who is the captain of the ferry Grey Heron?',
    answer: 'Lena Sorensen',
    sentence: 'The captain of the ferry Grey Heron is Lena Sorensen.',
    location: { path: CSV, row: 7 },
  },
  {
    format: 'html',
    question: 'Who is the organist of the Merrow Falls concert hall?',
    answer: 'Ada Lindgren',
    sentence: 'The organist of the Merrow Falls concert hall is Ada Lindgren.',
    location: { path: HTML, section: ['The Merrow Falls Concert Hall', 'The organ'] },
  },
];

const fact = (format: MixedCorpusFact['format']) =>
  MIXED_CORPUS_FACTS.find((f) => f.format === format)!.sentence;

/** Writes the six files into `dir` (created if missing) and returns the facts and where they are. */
export async function writeMixedCorpus(dir: string): Promise<MixedCorpusFacts> {
  await mkdir(dir, { recursive: true });
  const files: [string, Uint8Array | string][] = [
    [PDF, await harbourReport()],
    [DOCX, await shipyardReview()],
    [CSV, ferries()],
    [HTML, concertHall()],
    [JSON_FILE, harbourEvents()],
    [MARKDOWN, straitNotes()],
  ];
  for (const [name, content] of files) await writeFile(join(dir, name), content);
  return { files: files.map(([name]) => name), facts: MIXED_CORPUS_FACTS.map((f) => ({ ...f })) };
}

function harbourReport(): Promise<Uint8Array> {
  return makePdf(
    [
      [
        'Port Halvard Harbour Report',
        'The harbour of Port Halvard handled four hundred ship calls last year.',
        'Most calls were ferries of the Veskan Strait and fishing boats from Dunmore.',
      ],
      [
        'Harbour staff',
        'The harbour master of Port Halvard is Greta Holm.',
        'She has kept the harbour log since the storm of 2014.',
        'The harbour office stands beside the ferry terminal.',
      ],
      [
        'Pilotage',
        fact('pdf'),
        'Every ship longer than eighty metres takes a pilot at the eastern breakwater.',
        'The pilot boat is moored below the lowest terrace of the old town.',
      ],
      [
        'Works',
        'The eastern breakwater was repaired after the spring tides of last year.',
        'The dredging near the ferry routes was stopped in March.',
      ],
    ],
    { title: 'Port Halvard Harbour Report' },
  );
}

function shipyardReview(): Promise<Uint8Array> {
  return makeDocx([
    { title: 'Kessler Shipyard Annual Review' },
    { heading: 1, text: 'Kessler Shipyard' },
    { paragraph: 'The Kessler Shipyard builds ferries and research vessels in Port Halvard.' },
    { heading: 2, text: 'Ferries' },
    { paragraph: 'The yard delivered two hybrid ferries for the crossing to Orsa this year.' },
    { heading: 2, text: 'Welding school' },
    { paragraph: fact('docx') },
    { paragraph: 'The school trains forty welders a year with Port Halvard Technical College.' },
    { heading: 1, text: 'Orders' },
    {
      table: [
        ['Vessel', 'Customer', 'Delivery'],
        ['Sable Gull II', 'Veskan Ferry Lines', '2027'],
        ['Tern Explorer', 'Lindqvist Institute of Marine Science', '2028'],
      ],
    },
  ]);
}

/** Header row 1, then eight vessels in rows 2-9: the Grey Heron is in row 7. */
function ferries(): string {
  const rows = [
    ['id', 'vessel', 'home_port', 'text'],
    ['v1', 'Sable Gull', 'Port Halvard', 'The captain of the ferry Sable Gull is Jonas Brekke.'],
    ['v2', 'Aurora Tern', 'Skarn', 'The research vessel Aurora Tern is moored at the pier of Skarn.'],
    ['v3', 'Orsa Star', 'Orsa', 'The captain of the ferry Orsa Star is Mikkel Aas.'],
    ['v4', 'Dunmore Lass', 'Dunmore', 'The ferry Dunmore Lass connects Skarn with Dunmore.'],
    ['v5', 'Halvard Pride', 'Port Halvard', 'The tug Halvard Pride tows ships to the eastern breakwater.'],
    ['v6', 'Grey Heron', 'Port Halvard', fact('csv')],
    ['v7', 'Merrow Belle', 'Port Halvard', 'The excursion boat Merrow Belle sails on Sundays in summer.'],
    ['v8', 'Veskan Light', 'Orsa', 'The buoy tender Veskan Light services the lights of the strait.'],
  ];
  return `${rows.map((r) => r.map(csvField).join(',')).join('\n')}\n`;
}

function csvField(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function concertHall(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>The Merrow Falls Concert Hall | Visit Merrow Falls</title></head>
<body>
<header><a class="logo" href="/">Visit Merrow Falls</a></header>
<nav class="site-nav"><ul>
  <li><a href="/">Home</a></li>
  <li><a href="/ferries">Ferry timetable</a></li>
  <li><a href="/lodging">Where to stay in Merrow Falls</a></li>
  <li><a href="/contact">Contact the tourist office</a></li>
</ul></nav>
<main>
<article>
<h1>The Merrow Falls Concert Hall</h1>
<p>The Merrow Falls concert hall occupies the old Merrow Paper Mill on the River Ode. The mill closed in 1979, and the town turned its great drying room into a hall of five hundred seats.</p>
<p>The hall is known for its warm sound, which musicians credit to the timber roof of the former mill. Concerts are held from September to June, and the summer is kept for the music school.</p>
<h2>The organ</h2>
<p>${fact('html')} She plays a recital on the first Sunday of every month.</p>
<p>The organ has thirty-two stops and was restored by a workshop from Tallin Bay. Its pipes stand behind the stage, where the paper machines once ran.</p>
<h2>Premieres</h2>
<p>The composer Tobias Wren gave the first performance of his Harbour Suite in the hall. The suite was later played in Port Halvard for the city's anniversary.</p>
</article>
</main>
<aside class="sidebar"><h3>Nearby</h3><p>The waterfall viewpoint is a short walk from the hall.</p></aside>
<footer><p>Copyright Merrow Falls Tourist Board. Privacy policy and cookie settings.</p></footer>
</body>
</html>
`;
}

function harbourEvents(): string {
  return `${JSON.stringify(
    [
      {
        id: 'event-regatta',
        title: 'Halvard Regatta',
        text: 'The Halvard Regatta starts at the eastern breakwater on the second Saturday of August.',
      },
      {
        id: 'event-lantern',
        title: 'Lantern Night',
        text: 'On Lantern Night the three terraces of the old town are lit with paper lanterns.',
      },
      {
        id: 'event-fish-market',
        title: 'Fish market day',
        text: 'The fish market of Port Halvard opens before dawn on Tuesdays and Fridays.',
      },
    ],
    null,
    2,
  )}\n`;
}

function straitNotes(): string {
  return `# Veskan Strait notes

Notes for the crossing between Port Halvard and Orsa.

## Crossing times

The Sable Gull takes fifty minutes from Port Halvard to Orsa.

\`\`\`text
depart Port Halvard 07:10  arrive Orsa 08:00
depart Orsa         08:30  arrive Port Halvard 09:20
\`\`\`

## Eelgrass

The eelgrass meadows of the strait shelter young fish and the silver eel.
`;
}
