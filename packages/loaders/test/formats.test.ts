import { describe, expect, it } from 'vitest';
import {
  csvLoader,
  docxLoader,
  htmlLoader,
  jsonLoader,
  jsonlLoader,
  loadFile,
  markdownLoader,
  pdfLoader,
} from '../src/index.js';
import { expectWellFormed, locationsOf, segmentText, utf8 } from './helpers.js';
import { makeDocx, makePdf } from './make.js';

describe('markdownLoader', () => {
  const source = `---
title: Strait handbook
---
Preface before any heading.

# Veskan Strait

The strait separates the *peninsula* from [Orsa](https://example.org/orsa).

## Ferries

The **Sable Gull** crosses to Orsa.

\`\`\`sh
ferry --from "Port Halvard" --to Orsa
\`\`\`

- Skarn to Dunmore
- Port Halvard to Orsa

| ferry | minutes |
|---|---|
| Sable Gull | 50 |

### Fares

Children travel free.

## Eelgrass

Meadows shelter the silver eel.
`;

  it('gives one segment per section with the heading path, markup dropped and code kept', async () => {
    const { documents, skipped } = await markdownLoader.load({
      path: 'notes/strait.md',
      bytes: utf8(source),
    });
    expect(skipped).toEqual([]);
    expect(documents).toHaveLength(1);
    const doc = documents[0]!;
    expect(doc.id).toBe('notes/strait.md');
    expect(doc.title).toBe('Veskan Strait');
    expectWellFormed(doc, 'notes/strait.md');
    expect(doc.segments!.map((s) => s.location.section)).toEqual([
      undefined,
      ['Veskan Strait'],
      ['Veskan Strait', 'Ferries'],
      ['Veskan Strait', 'Ferries', 'Fares'],
      ['Veskan Strait', 'Eelgrass'],
    ]);
    expect(segmentText(doc, { path: 'notes/strait.md' })).toBe('Preface before any heading.');
    expect(segmentText(doc, { path: 'notes/strait.md', section: ['Veskan Strait'] })).toBe(
      'Veskan Strait\n\nThe strait separates the peninsula from Orsa.',
    );
    const ferries = segmentText(doc, { path: 'notes/strait.md', section: ['Veskan Strait', 'Ferries'] })!;
    expect(ferries).toContain('The Sable Gull crosses to Orsa.');
    expect(ferries).toContain('ferry --from "Port Halvard" --to Orsa');
    expect(ferries).toContain('Skarn to Dunmore\nPort Halvard to Orsa');
    expect(ferries).toContain('ferry | minutes\nSable Gull | 50');
    expect(doc.text).not.toMatch(/[*#`|]{2}|\]\(|title:/);
  });

  it('takes the title from front matter, then the file name, when there is no level-1 heading', async () => {
    const noH1 = await markdownLoader.load({
      path: 'a/b.md',
      bytes: utf8('---\ntitle: "From matter"\n---\n## Two\n\ntext\n'),
    });
    expect(noH1.documents[0]!.title).toBe('From matter');
    const plain = await markdownLoader.load({ path: 'a/plain-notes.markdown', bytes: utf8('Just text.\n') });
    expect(plain.documents[0]!.title).toBe('plain-notes');
  });

  it('reads a long file in pieces with the same sections, code fences and reference links across cuts', async () => {
    const filler = 'The ferry leaves Port Halvard at noon and reaches Orsa before one. '.repeat(40);
    const parts = ['# Long guide', '', 'See the [timetable][tt] first.', ''];
    for (let i = 0; i < 60; i++) {
      parts.push(`## Part ${i}`, '', filler, '');
      if (i === 30) parts.push('```sh', '# not a heading, a comment in code', 'echo ok', '```', '');
    }
    parts.push('## Last', '', 'Back to the [timetable][tt].', '', '[tt]: https://example.org/timetable');
    const source = parts.join('\n');
    expect(source.length).toBeGreaterThan(100_000);
    const doc = (await markdownLoader.load({ path: 'long.md', bytes: utf8(source) })).documents[0]!;
    expectWellFormed(doc, 'long.md');
    expect(doc.segments!.map((s) => s.location.section!.join(' › '))).toEqual([
      'Long guide',
      ...Array.from({ length: 60 }, (_, i) => `Long guide › Part ${i}`),
      'Long guide › Last',
    ]);
    expect(segmentText(doc, { path: 'long.md', section: ['Long guide', 'Part 30'] })).toContain(
      '# not a heading, a comment in code\necho ok',
    );
    expect(segmentText(doc, { path: 'long.md', section: ['Long guide', 'Last'] })).toBe(
      'Last\n\nBack to the timetable.',
    );
    expect(doc.text).not.toContain('[tt]');
  });

  it('drops the import and export lines of MDX and keeps the text of its components', async () => {
    const mdx =
      "import Chart from './chart.js'\nexport const meta = 1\n\n# Tides\n\n<Note kind=\"tip\">\nSpring tides flood the lowest terrace.\n</Note>\n\n```js\nimport x from 'y'\n```\n";
    const doc = (await markdownLoader.load({ path: 'tides.mdx', bytes: utf8(mdx) })).documents[0]!;
    expect(doc.text).not.toContain('Chart');
    expect(doc.text).not.toContain('meta');
    expect(doc.text).toContain('Spring tides flood the lowest terrace.');
    expect(doc.text).toContain("import x from 'y'");
  });
});

describe('htmlLoader', () => {
  const page = `<!doctype html><html><head><title>Kessler Shipyard – Port Halvard</title></head><body>
<header><div class="brand">Port Halvard Online</div></header>
<nav><a href="/">Home</a> <a href="/timetable">Ferry timetable</a> <a href="/login">Sign in to your account</a></nav>
<main><article>
<h1>Kessler Shipyard</h1>
<p>The Kessler Shipyard was founded in 1881 by the brothers Anton and Jakob Kessler. It first built wooden herring boats and switched to steel hulls in 1904, when the yard was rebuilt.</p>
<h2>Vessels</h2>
<p>The yard launched the research vessel Aurora Tern in 1996 for the Lindqvist Institute of Marine Science. It also built the hybrid ferry Sable Gull.</p>
<h3>Ferries</h3>
<p>The Sable Gull has crossed the Veskan Strait to the island of Orsa since 2021, carrying two hundred passengers.</p>
<table><tr><th>Ferry</th><th>Since</th></tr><tr><td>Sable Gull</td><td>2021</td></tr></table>
<h2>People</h2>
<p>The current director of the shipyard is Marta Kessler, the great-granddaughter of Anton Kessler.<br>She opened a welding school.</p>
</article></main>
<footer>Copyright Port Halvard Online. All rights reserved. Cookie preferences.</footer>
<script>console.log('tracking')</script>
</body></html>`;

  it('keeps the main text under its heading path and drops navigation, header, footer and scripts', async () => {
    const { documents } = await htmlLoader.load({ path: 'site/kessler.html', bytes: utf8(page) });
    const doc = documents[0]!;
    expectWellFormed(doc, 'site/kessler.html');
    expect(doc.id).toBe('site/kessler.html');
    expect(doc.title).toBe('Kessler Shipyard');
    for (const gone of [
      'Ferry timetable',
      'Sign in',
      'Port Halvard Online',
      'Copyright',
      'Cookie',
      'tracking',
    ])
      expect(doc.text).not.toContain(gone);
    expect(locationsOf(doc, 'founded in 1881')).toEqual([
      { path: 'site/kessler.html', section: ['Kessler Shipyard'] },
    ]);
    expect(locationsOf(doc, 'since 2021')).toEqual([
      { path: 'site/kessler.html', section: ['Kessler Shipyard', 'Vessels', 'Ferries'] },
    ]);
    expect(locationsOf(doc, 'Sable Gull | 2021')).toEqual([
      { path: 'site/kessler.html', section: ['Kessler Shipyard', 'Vessels', 'Ferries'] },
    ]);
    expect(segmentText(doc, { path: 'site/kessler.html', section: ['Kessler Shipyard', 'People'] })).toBe(
      'People\n\nThe current director of the shipyard is Marta Kessler, the great-granddaughter of Anton Kessler.\nShe opened a welding school.',
    );
  });
});

describe('pdfLoader', () => {
  it('gives one segment per page, and the text of page 3 is on page 3', async () => {
    const pages = [
      ['Port Halvard lies on the northern coast.'],
      ['The Kessler Shipyard builds ferries.', 'It was founded in 1881.'],
      ['The harbour pilot is Nils Ostrander.', 'He boards ships at the breakwater.'],
      ['Merrow Falls lies on the River Ode.'],
    ];
    const bytes = await makePdf(pages, { title: 'Harbour notes' });
    const { documents, skipped } = await pdfLoader.load({ path: 'docs/notes.pdf', bytes });
    expect(skipped).toEqual([]);
    const doc = documents[0]!;
    expectWellFormed(doc, 'docs/notes.pdf');
    expect(doc.id).toBe('docs/notes.pdf');
    expect(doc.title).toBe('Harbour notes');
    expect(doc.segments!.map((s) => s.location.page)).toEqual([1, 2, 3, 4]);
    pages.forEach((lines, i) => {
      expect(segmentText(doc, { path: 'docs/notes.pdf', page: i + 1 })).toBe(lines.join('\n'));
    });
    expect(locationsOf(doc, 'Nils Ostrander')).toEqual([{ path: 'docs/notes.pdf', page: 3 }]);
  });

  it('lists a page without text in skipped and reads the others; the title falls back to the file name', async () => {
    const bytes = await makePdf([['First page text.'], [], ['Third page text.']]);
    const { documents, skipped } = await pdfLoader.load({ path: 'gap.pdf', bytes });
    expect(documents[0]!.title).toBe('gap');
    expect(documents[0]!.segments!.map((s) => s.location.page)).toEqual([1, 3]);
    expect(skipped).toEqual([
      {
        path: 'gap.pdf p. 2',
        reason: 'no text on this page (a scan, an image or a blank page; OCR is not supported)',
      },
    ]);
  });
});

describe('docxLoader', () => {
  it('segments by heading path (Heading 1 › Heading 2) and keeps tables as text rows', async () => {
    const bytes = await makeDocx([
      { title: 'Harbour Review' },
      { heading: 1, text: 'Port Halvard' },
      { paragraph: 'The city is governed by a council of eleven members.' },
      { heading: 2, text: 'Lighthouses' },
      { paragraph: 'The keeper of the Halvard light is Tomas Weir.' },
      {
        table: [
          ['Light', 'Keeper'],
          ['Halvard light', 'Tomas Weir'],
          ['Skarn light', 'Greta Holm'],
        ],
      },
      { heading: 1, text: 'Orsa' },
      { paragraph: 'The island lies across the strait.' },
    ]);
    const { documents } = await docxLoader.load({ path: 'review.docx', bytes });
    const doc = documents[0]!;
    expectWellFormed(doc, 'review.docx');
    expect(doc.id).toBe('review.docx');
    expect(doc.title).toBe('Harbour Review');
    expect(doc.segments!.map((s) => s.location.section)).toEqual([
      undefined,
      ['Port Halvard'],
      ['Port Halvard', 'Lighthouses'],
      ['Orsa'],
    ]);
    expect(segmentText(doc, { path: 'review.docx', section: ['Port Halvard', 'Lighthouses'] })).toBe(
      'Lighthouses\n\nThe keeper of the Halvard light is Tomas Weir.\n\nLight | Keeper\nHalvard light | Tomas Weir\nSkarn light | Greta Holm',
    );
  });
});

describe('csvLoader', () => {
  const csv = [
    'id,title,text,harbour',
    'f1,Sable Gull,The Sable Gull crosses to Orsa.,Port Halvard',
    'f2,Orsa Star,"The Orsa Star, a small ferry, waits at Orsa.",Orsa',
    'f3,Dunmore Lass,The Dunmore Lass sails from Skarn.',
    '',
    'f4,Grey Heron,"The Grey Heron was built',
    'in 1987.",Port Halvard',
    'f5,Halvard Pride,The tug Halvard Pride tows ships.,Port Halvard',
    'f1,Copy,A second f1.,Port Halvard',
  ].join('\r\n');

  it('gives one document per record located at its spreadsheet row, and reports ragged rows', async () => {
    const { documents, skipped } = await csvLoader.load({ path: 'data/ferries.csv', bytes: utf8(csv) });
    expect(documents.map((d) => [d.id, d.title, d.segments![0]!.location.row])).toEqual([
      ['f1', 'Sable Gull', 2],
      ['f2', 'Orsa Star', 3],
      ['f4', 'Grey Heron', 6],
      ['f5', 'Halvard Pride', 7],
    ]);
    for (const doc of documents) expectWellFormed(doc, 'data/ferries.csv');
    expect(documents[1]!.text).toBe('The Orsa Star, a small ferry, waits at Orsa.');
    expect(documents[1]!.meta).toEqual({ harbour: 'Orsa' });
    expect(documents[2]!.text).toBe('The Grey Heron was built\nin 1987.');
    expect(skipped).toEqual([
      { path: 'data/ferries.csv row 4', reason: '3 fields where the header has 4' },
      { path: 'data/ferries.csv row 8', reason: 'duplicate id "f1"' },
    ]);
  });

  it('writes column: value lines when there is no text column, and ids from the path and row', async () => {
    const { documents } = await csvLoader.load({
      path: 'people.tsv',
      bytes: utf8('name\trole\nIlse Marren\tdirector\nRuben Falk\t\n'),
    });
    expect(documents.map((d) => [d.id, d.text, d.segments![0]!.location])).toEqual([
      ['people.tsv#row2', 'name: Ilse Marren\nrole: director', { path: 'people.tsv', row: 2 }],
      ['people.tsv#row3', 'name: Ruben Falk', { path: 'people.tsv', row: 3 }],
    ]);
  });

  it('reads the id, title and text columns that fields name', async () => {
    const { documents } = await loadFile(
      { path: 'x.csv', bytes: utf8('key,heading,body\nk1,Head,Body text.\n') },
      { fields: { id: 'key', title: 'heading', text: 'body' } },
    );
    expect(documents).toEqual([
      {
        id: 'k1',
        title: 'Head',
        text: 'Body text.',
        segments: [{ start: 0, end: 10, location: { path: 'x.csv', row: 2 } }],
      },
    ]);
  });
});

describe('jsonLoader', () => {
  it('reads an array of records with record numbers, key: value text when there is no text field', async () => {
    const json = JSON.stringify([
      { id: 'e1', title: 'Regatta', text: 'The regatta starts at the breakwater.' },
      { name: 'Lantern Night', month: 'October', places: ['old town', 'harbour'] },
      'A plain string record.',
      42,
      { id: 'e1', text: 'Duplicate.' },
    ]);
    const { documents, skipped } = await jsonLoader.load({ path: 'events.json', bytes: utf8(json) });
    expect(documents.map((d) => [d.id, d.title, d.text, d.segments![0]!.location])).toEqual([
      ['e1', 'Regatta', 'The regatta starts at the breakwater.', { path: 'events.json', record: 1 }],
      [
        'events.json#record2',
        undefined,
        'name: Lantern Night\nmonth: October\nplaces: old town, harbour',
        { path: 'events.json', record: 2 },
      ],
      ['events.json#record3', undefined, 'A plain string record.', { path: 'events.json', record: 3 }],
    ]);
    expect(skipped).toEqual([
      { path: 'events.json record 4', reason: 'not an object or a string' },
      { path: 'events.json record 5', reason: 'duplicate id "e1"' },
    ]);
  });

  it('reads one object as one record', async () => {
    const { documents } = await jsonLoader.load({ path: 'one.json', bytes: utf8('{"text": "Only one."}') });
    expect(documents).toEqual([
      {
        id: 'one.json#record1',
        text: 'Only one.',
        segments: [{ start: 0, end: 9, location: { path: 'one.json', record: 1 } }],
      },
    ]);
  });
});

describe('jsonlLoader', () => {
  it("keeps grag's .jsonl reading: id or file:line, invalid lines and records without text skipped", async () => {
    const lines = [
      '{"id":"a","title":"A","text":"First."}',
      'not json',
      '',
      '{"title":"no text"}',
      '{"text":"   "}',
      '{"id":7,"text":"Numbered id."}',
      '{"text":"No id."}',
      '{"id":"a","text":"Again a."}',
    ].join('\n');
    const { documents, skipped } = await jsonlLoader.load({ path: 'dir/items.jsonl', bytes: utf8(lines) });
    expect(documents.map((d) => [d.id, d.title, d.text, d.segments![0]!.location])).toEqual([
      ['a', 'A', 'First.', { path: 'dir/items.jsonl', record: 1 }],
      ['7', undefined, 'Numbered id.', { path: 'dir/items.jsonl', record: 6 }],
      ['items.jsonl:7', undefined, 'No id.', { path: 'dir/items.jsonl', record: 7 }],
    ]);
    expect(skipped).toEqual([
      { path: 'dir/items.jsonl:2', reason: 'not valid JSON' },
      { path: 'dir/items.jsonl:4', reason: 'no "text" string field' },
      { path: 'dir/items.jsonl:5', reason: 'empty "text"' },
      { path: 'dir/items.jsonl:8', reason: 'duplicate id "a"' },
    ]);
  });
});
