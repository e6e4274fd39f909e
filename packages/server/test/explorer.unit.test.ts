import { readdir, readFile } from 'node:fs/promises';
import type { SourceLocation } from '@grag/core';
import { formatLocation } from '@grag/core/kit';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../explorer/src/layout.js';
import { nodeLabel, PLAIN, TypePalette } from '../explorer/src/palette.js';
import { quotedRanges } from '../explorer/src/passage.js';
import { placeLabel, placesLabel } from '../explorer/src/places.js';
import { findExternalLoad } from '../scripts/build-explorer.mjs';
import { parseSse } from '../src/sse.js';

describe('explorer node types', () => {
  it('reads the type from the prefix before the first colon, NodeRAG letters included', () => {
    const palette = new TypePalette();
    const label = (id: string) => palette.typeOf(id).label;
    expect(label('entity:research vessel')).toBe('entity');
    expect(label('chunk:02-kessler-shipyard.md#0')).toBe('chunk');
    expect(label('community:3')).toBe('community');
    expect(label('summary:0-4')).toBe('summary');
    expect(['N:x', 'R:a|b|c', 'S:1', 'A:x', 'H:2', 'O:2', 'T:d#0'].map(label)).toEqual([
      'entity',
      'relationship',
      'semantic unit',
      'attribute',
      'high-level element',
      'high-level overview',
      'text',
    ]);
    expect(label('semantic_unit:4')).toBe('semantic unit');
    expect(palette.typeOf('N:x').color).toBe(palette.typeOf('entity:y').color);
  });

  it('gives ids without a prefix the plain type and unknown prefixes distinct spare colours', () => {
    const palette = new TypePalette();
    expect(palette.typeOf('Kessler Shipyard')).toEqual(PLAIN);
    expect(palette.typeOf('10:30 ferry').key).toBe('node');
    const a = palette.typeOf('claim:1');
    const b = palette.typeOf('topic:1');
    expect([a.label, b.label]).toEqual(['claim', 'topic']);
    expect(a.color).not.toBe(b.color);
    expect(palette.typeOf('claim:2').color).toBe(a.color);
  });

  it('labels a node without its prefix, spaced, with its text for a numeric id, shortened', () => {
    expect(nodeLabel('entity:research vessel')).toBe('research vessel');
    expect(nodeLabel('R:shipyard|launched|aurora tern')).toBe('shipyard · launched · aurora tern');
    expect(nodeLabel('S:12', 'The yard  first built\nherring boats.')).toBe(
      'The yard first built herring boats.',
    );
    expect(nodeLabel('entity:12', undefined)).toBe('12');
    expect(nodeLabel('chunk:abcdefghij', undefined, 6)).toBe('abcde…');
  });
});

describe('explorer subgraph layout', () => {
  const subgraph = {
    nodes: ['entity:a', 'entity:b', 'chunk:c', 'lonely', 'entity:a'],
    edges: [
      ['entity:a', 'entity:b'],
      ['entity:b', 'entity:a'],
      ['entity:a', 'entity:a'],
      ['entity:a', 'chunk:c'],
      ['entity:b', 'missing'],
    ] as [string, string][],
  };

  it('keeps distinct nodes and distinct edges between known nodes, labelled by their endpoints', () => {
    const graph = buildGraph(subgraph, ['entity:b']);
    expect(graph.order).toBe(4);
    expect(graph.size).toBe(2);
    expect(graph.getEdgeAttribute(graph.edge('entity:a', 'chunk:c')!, 'label')).toBe('a — c');
    expect(graph.getNodeAttribute('entity:b', 'entry')).toBe(true);
    expect(graph.getNodeAttribute('entity:a', 'entry')).toBe(false);
    // Size 5 + 2·sqrt(degree), half again for an entry point: a has degree 2, b degree 1, lonely 0.
    expect(graph.getNodeAttribute('entity:a', 'size')).toBeCloseTo(5 + 2 * Math.SQRT2);
    expect(graph.getNodeAttribute('entity:b', 'size')).toBeCloseTo(7 * 1.5);
    expect(graph.getNodeAttribute('lonely', 'size')).toBe(5);
  });

  it('uses edge labels the subgraph gives', () => {
    const graph = buildGraph({ ...subgraph, edgeLabels: [null, null, null, 'mentions', null] });
    expect(graph.getEdgeAttribute(graph.edge('entity:a', 'chunk:c')!, 'label')).toBe('mentions');
    expect(graph.getEdgeAttribute(graph.edge('entity:a', 'entity:b')!, 'label')).toBe('a — b');
  });

  it('lays the same subgraph out the same way every time, at finite distinct positions', () => {
    const positions = () => {
      const graph = buildGraph(subgraph);
      return graph.mapNodes((id, a) => [id, a.x, a.y] as const);
    };
    const first = positions();
    expect(positions()).toEqual(first);
    for (const [, x, y] of first) expect(Number.isFinite(x) && Number.isFinite(y)).toBe(true);
    expect(new Set(first.map(([, x, y]) => `${x.toFixed(3)},${y.toFixed(3)}`)).size).toBe(first.length);
  });
});

describe('explorer passage marking', () => {
  const doc =
    '# Kessler Shipyard\n\nThe yard was founded in 1881 in Port Halvard. In 1996 it launched the Aurora Tern.';
  const slice = (ranges: [number, number][]) => ranges.map(([a, b]) => doc.slice(a, b));

  it('finds an item quoted whole', () => {
    expect(slice(quotedRanges(doc, 'In 1996 it launched the Aurora Tern.'))).toEqual([
      'In 1996 it launched the Aurora Tern.',
    ]);
  });

  it('finds an item quoted under a header line that the document does not have', () => {
    expect(slice(quotedRanges(doc, `02-kessler-shipyard.md\n${doc}`))).toEqual([doc]);
  });

  it('finds the sentences of an item rebuilt from several places, in document order', () => {
    const item =
      'The yard was founded in 1881 in Port Halvard. It is large. In 1996 it launched the Aurora Tern.';
    expect(slice(quotedRanges(doc, item))).toEqual([
      'The yard was founded in 1881 in Port Halvard.',
      'In 1996 it launched the Aurora Tern.',
    ]);
  });

  it('marks nothing for text that is not in the document', () => {
    expect(quotedRanges(doc, 'The Veskan Strait is eighteen kilometres wide.')).toEqual([]);
    expect(quotedRanges(doc, '   ')).toEqual([]);
  });
});

describe('explorer event-stream parsing', () => {
  it('returns complete events and keeps an incomplete one for the next chunk', () => {
    const first = parseSse('event: retrieval\ndata: {"a":1}\n\nevent: delta\ndata: {"te');
    expect(first.events).toEqual([{ event: 'retrieval', data: '{"a":1}' }]);
    const second = parseSse(`${first.rest}xt":"Ilse"}\n\n: keep-alive\n\nevent: done\ndata: {}\n\n`);
    expect(second.events).toEqual([
      { event: 'delta', data: '{"text":"Ilse"}' },
      { event: 'done', data: '{}' },
    ]);
    expect(second.rest).toBe('');
  });

  it('reads CRLF line ends, a CRLF split across chunks, and data over several lines', () => {
    const first = parseSse('event: delta\r\ndata: line one\r\ndata: line two\r');
    expect(first.events).toEqual([]);
    const second = parseSse(`${first.rest}\n\r\ndata: untitled\n\n`);
    expect(second.events).toEqual([
      { event: 'delta', data: 'line one\nline two' },
      { event: 'message', data: 'untitled' },
    ]);
  });
});

describe('explorer build check for remote loads', () => {
  it('finds script, style, import and fetch loads from other origins', () => {
    expect(findExternalLoad('<script src="https://cdn.example/sigma.js"></script>')).toContain(
      'src="https://',
    );
    expect(findExternalLoad('<link rel="stylesheet" href="//fonts.example/a.css">')).toContain('href="//');
    expect(findExternalLoad('@import url("http://x.example/a.css");')).toBeDefined();
    expect(findExternalLoad('.a{background:url(https://x.example/a.png)}')).toBeDefined();
    expect(findExternalLoad('import("https://esm.example/x.js")')).toBeDefined();
    expect(findExternalLoad('fetch(`https://api.example/`)')).toBeDefined();
  });

  it('accepts local assets and URLs that are only text', () => {
    expect(findExternalLoad('<script type="module" src="assets/explorer.js?v=1"></script>')).toBeUndefined();
    expect(findExternalLoad('<svg xmlns="http://www.w3.org/2000/svg"></svg>')).toBeUndefined();
    expect(findExternalLoad('// see https://www.sigmajs.org for the docs')).toBeUndefined();
  });
});

describe('explorer place labels', () => {
  const places: SourceLocation[] = [
    { path: 'report.pdf', page: 3 },
    { path: 'guide.html', section: ['Install', 'Linux'] },
    { path: 'people.csv', row: 12 },
    { path: 'notes.json', record: 4 },
    { path: 'notes.txt' },
  ];

  it("labels a place as core's formatLocation does", () => {
    for (const place of places) expect(placeLabel(place)).toBe(formatLocation(place));
    expect(placeLabel(places[1]!)).toBe('guide.html § Install › Linux');
  });

  it("labels an item's places, the first three and how many more, or nothing", () => {
    expect(placesLabel(places.slice(0, 2))).toBe('report.pdf p. 3; guide.html § Install › Linux');
    expect(placesLabel(places)).toBe(
      'report.pdf p. 3; guide.html § Install › Linux; people.csv row 12 (+2 more)',
    );
    expect(placesLabel(undefined)).toBe('');
    expect(placesLabel([])).toBe('');
  });
});

describe('explorer API calls', () => {
  it('go through the typed client of @grag/server/client: no fetch or URL of a route in the page sources', async () => {
    const dir = new URL('../explorer/src/', import.meta.url);
    const sources = (await readdir(dir)).filter((f) => f.endsWith('.ts'));
    expect(sources).toContain('api.ts');
    for (const file of sources) {
      const text = await readFile(new URL(file, dir), 'utf8');
      expect(text, file).not.toMatch(/\bfetch\s*\(|XMLHttpRequest|EventSource|['"`]\/v1\//);
    }
    const api = await readFile(new URL('api.ts', dir), 'utf8');
    expect(api).toContain("from '../../src/client.js'");
  });
});
