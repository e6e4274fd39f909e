/**
 * The shared vitest suite of provenance to the citation: a method built on documents with segments
 * (pages, sections, rows) returns items whose `source.locations` name the places their text comes
 * from, and keeps them through save → load.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildContext, Method } from '../contracts/method.js';
import type { Document, Retrieval, RetrievedItem } from '../contracts/types.js';
import { formatLocation } from '../loader.js';
import { locationKey } from '../provenance.js';
import { LOCATED_QUESTIONS, locatedDocuments } from './fixtures.js';

/** Options of {@link runLocationSpec}. */
export interface LocationSpecOptions<Options> {
  /** A new context for each build or load. */
  makeContext: () => BuildContext | Promise<BuildContext>;
  /** Build options (small chunks keep it fast). */
  buildOptions?: Partial<Options>;
  /** Options of every retrieval (besides the question). @default {} */
  retrieveOptions?: Record<string, unknown>;
  /** Per-test timeout in ms. @default 60000 */
  timeout?: number;
}

/** The text of each located place of `docs`, by location key (a path alone: the whole file). */
function placesOf(docs: readonly Document[]): Map<string, string> {
  const places = new Map<string, string>();
  for (const doc of docs) {
    for (const s of doc.segments ?? []) {
      places.set(locationKey(s.location), doc.text.slice(s.start, s.end));
      places.set(locationKey({ path: s.location.path }), doc.text);
    }
  }
  return places;
}

/** What a test compares of retrieved items: ids, kinds and provenance. */
const sources = (r: Retrieval) => r.items.map((i) => ({ id: i.id, kind: i.kind, source: i.source }));

/**
 * The provenance contract, checked on `locatedDocuments()` (report.pdf pages, guide.md sections,
 * people.csv rows, and one document without segments) with the questions of `LOCATED_QUESTIONS`:
 * - every item that mentions a question's answer (and names its chunks) cites the one place the
 *   answer is given, e.g. `report.pdf p. 3`;
 * - every location an item gives is a place of the corpus; an item made from chunks of documents
 *   with segments has locations, one made only from the document without segments has none;
 * - a chunk item with one location holds text of that place;
 * - save → load gives the same items with the same provenance;
 * - with `update`: an index built on part of the corpus, saved, loaded and updated with the rest
 *   (and so with a full update) passes the checks above.
 */
export function runLocationSpec<Index, Options>(
  label: string,
  // biome-ignore lint/suspicious/noExplicitAny: any method's retrieve options
  method: Method<Index, Options, any>,
  options: LocationSpecOptions<Options>,
): void {
  const timeout = options.timeout ?? 60_000;
  const corpus = locatedDocuments();
  const places = placesOf(corpus);
  const segmented = new Set(corpus.filter((d) => d.segments?.length).map((d) => d.id));

  /** Every item that mentions a question's answer (and names its chunks) cites the answer's place. */
  const expectCitations = (retrievals: readonly Retrieval[]) => {
    LOCATED_QUESTIONS.forEach((q, n) => {
      const mentions = retrievals[n]!.items.filter(
        (item) => item.text.includes(q.answer) && item.source.chunkIds.length > 0,
      );
      expect(mentions.length, `no item of "${q.question}" mentions ${q.answer}`).toBeGreaterThan(0);
      const want = locationKey(q.location);
      for (const item of mentions) {
        expect(
          (item.source.locations ?? []).map(locationKey),
          `${item.kind} ${item.id} mentions ${q.answer} but does not cite ${formatLocation(q.location)}`,
        ).toContain(want);
      }
    });
  };

  /** Locations wherever known, only places of the corpus, and a chunk's text in its place. */
  const check = (item: RetrievedItem) => {
    const at = `${item.kind} ${item.id}`;
    const locations = item.source.locations;
    if (locations !== undefined) expect(locations.length, `${at}: empty locations`).toBeGreaterThan(0);
    for (const l of locations ?? []) {
      expect(places.has(locationKey(l)), `${at}: ${formatLocation(l)} is no place of the corpus`).toBe(true);
    }
    const fromSegmented = item.source.docIds.some((d) => segmented.has(d));
    if (item.source.chunkIds.length > 0 && fromSegmented) {
      expect(
        locations?.length,
        `${at}: comes from ${item.source.docIds.join(', ')} but gives no location`,
      ).toBeGreaterThan(0);
    }
    if (item.source.docIds.length > 0 && !fromSegmented) {
      expect(locations, `${at}: comes from a document without segments`).toBeUndefined();
    }
    if (item.kind === 'chunk' && locations?.length === 1) {
      // The end of its last line (a title line may come first).
      const tail = item.text.trim().split('\n').at(-1)!.slice(-30);
      expect(
        places.get(locationKey(locations[0]!)),
        `${at}: text is not in ${formatLocation(locations[0]!)}`,
      ).toContain(tail);
    }
  };

  describe(`${label}: provenance to the citation`, () => {
    let root: string;
    let index: Index;
    let results: Retrieval[];

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'grag-location-spec-'));
      index = await method.build(corpus, await options.makeContext(), options.buildOptions ?? {});
      results = [];
      for (const q of LOCATED_QUESTIONS)
        results.push(await method.retrieve(index, q.question, options.retrieveOptions));
    }, timeout);

    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('cites the page, section or row that gives the answer', () => expectCitations(results), timeout);

    it(
      'gives locations wherever they are known, and only places of the corpus',
      () => {
        for (const r of results) r.items.forEach(check);
      },
      timeout,
    );

    it(
      'keeps the locations through save and load',
      async () => {
        const dir = join(root, 'index');
        await method.save(index, dir);
        const loaded = await method.load(dir, await options.makeContext());
        for (const [n, q] of LOCATED_QUESTIONS.entries()) {
          expect(sources(await method.retrieve(loaded, q.question, options.retrieveOptions))).toEqual(
            sources(results[n]!),
          );
        }
      },
      timeout,
    );

    for (const full of [false, true]) {
      it.skipIf(!method.update)(
        `keeps and gives locations through ${full ? 'a full update' : 'an update'} of a loaded index`,
        async () => {
          const first = corpus.filter((d) => d.id === 'report.pdf' || d.id === 'notes');
          const added = corpus.filter((d) => !first.includes(d));
          const dir = join(root, full ? 'updated-full' : 'updated');
          const built = await method.build(first, await options.makeContext(), options.buildOptions ?? {});
          await method.save(built, dir);
          const loaded = await method.load(dir, await options.makeContext());
          const ctx = await options.makeContext();
          const { index: updated } = await method.update!(loaded, { add: added }, ctx, { full });
          const after: Retrieval[] = [];
          for (const q of LOCATED_QUESTIONS)
            after.push(await method.retrieve(updated, q.question, options.retrieveOptions));
          expectCitations(after);
          for (const r of after) r.items.forEach(check);
        },
        timeout,
      );
    }
  });
}
