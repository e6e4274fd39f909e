/**
 * What the explorer's end-to-end test needs besides the page: the CLI's demo corpus, offline demo
 * indexes, Chromium, direct calls of the API for independent expectations, and a PNG decoder to
 * read the pixels of the drawn graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import type { Document, Method, SourceLocation, TaskSuite } from '@grag/core';
import { type CitedSource, createBuildContext } from '@grag/core/kit';
import { e2GraphRag } from '@grag/e2graphrag';
import { bm25Rag } from '@grag/naive-rag';
import { createOfflineProviders } from '@grag/offline';

export { CHROMIUM, chromiumFor, chromiumState, launchChromium, requireChromium } from './chromium.js';

/** The demo corpus of `grag demo`. */
export const DEMO_DIR = fileURLToPath(new URL('../../cli/demo/', import.meta.url));
/** A demo question and its answer in the corpus (Lindqvist Institute → director Ilse Marren). */
export const QUESTION =
  'Who directs the institute that owns the research vessel built by the Kessler Shipyard?';
export const ANSWER = 'Ilse Marren';

/**
 * The demo corpus as `grag index` reads it: one document per file, id = file name, title = `# heading`,
 * and, as a Markdown loader gives it, one segment located in the file's section under that heading
 * (so citations show `03-lindqvist-institute.md § Lindqvist Institute`).
 */
export function demoDocuments(): Document[] {
  return readdirSync(DEMO_DIR)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => {
      const text = readFileSync(join(DEMO_DIR, f), 'utf8');
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? f;
      return {
        id: f,
        title,
        text,
        segments: [{ start: 0, end: text.length, location: { path: f, section: [title] } }],
      };
    });
}

/** One demo index as `createGragServer` takes it. */
export interface DemoIndex {
  method: Method<unknown>;
  index: unknown;
  /** The corpus, so `GET /v1/documents/:id` returns the files as they are on disk. */
  documents: Document[];
  /** The offline answer task (deterministic: the demo questions' answers are known). */
  answer: TaskSuite;
}

/** The demo indexes, built in memory with the offline providers: a graph method and a passage baseline. */
export async function demoIndexes(): Promise<DemoIndex[]> {
  const documents = demoDocuments();
  const { tasks, embedder, textAnalyzer } = createOfflineProviders();
  const ctx = createBuildContext({ tasks, embedder, textAnalyzer });
  const methods = [e2GraphRag, bm25Rag] as unknown as Method<unknown>[];
  const out: DemoIndex[] = [];
  for (const method of methods) {
    out.push({ method, index: await method.build(documents, ctx), documents, answer: tasks });
  }
  return out;
}

/** What `POST /v1/query` returns, as much of it as the test reads. */
export interface QueryJson {
  index: string;
  method: string;
  retrieval: {
    items: {
      id: string;
      kind: string;
      text: string;
      source: { docIds?: string[]; locations?: SourceLocation[] };
    }[];
    subgraph?: { nodes: string[]; edges: [string, string][] };
  };
  answer?: { text: string; citations: string[]; sources: CitedSource[] };
}

/** `POST /v1/query` as plain JSON, straight from Node: the expectation the page is checked against. */
export async function queryApi(base: string, method: string, answer: boolean): Promise<QueryJson> {
  const res = await fetch(new URL('/v1/query', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: QUESTION, method, answer }),
  });
  if (!res.ok) throw new Error(`POST /v1/query (${method}) answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as QueryJson;
}

/** Decoded pixels of an 8-bit RGB or RGBA PNG (what Chromium's screenshots are). */
export interface Pixels {
  width: number;
  height: number;
  /** Channels per pixel: 3 or 4. */
  channels: number;
  data: Uint8Array;
}

/** Decode a non-interlaced 8-bit RGB/RGBA PNG. */
export function decodePng(png: Uint8Array): Pixels {
  const view = Buffer.from(png);
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (at < view.length) {
    const length = view.readUInt32BE(at);
    const type = view.toString('latin1', at + 4, at + 8);
    const body = view.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, color, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0) {
        throw new Error(
          `decodePng: only 8-bit RGB/RGBA non-interlaced PNGs are read (depth ${depth}, colour ${color}).`,
        );
      }
      channels = color === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(body);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? data[y * stride + x - channels]! : 0;
      const up = y > 0 ? data[(y - 1) * stride + x]! : 0;
      const upLeft = y > 0 && x >= channels ? data[(y - 1) * stride + x - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      data[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** How many pixels are within `tolerance` (per channel) of the colour `#rrggbb`. */
export function countColor(pixels: Pixels, hex: string, tolerance = 10): number {
  const rgb = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  let count = 0;
  for (let i = 0; i < pixels.data.length; i += pixels.channels) {
    if (rgb.every((c, k) => Math.abs(pixels.data[i + k]! - c) <= tolerance)) count++;
  }
  return count;
}
