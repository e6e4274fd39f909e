/**
 * Every answer from one whole version: 32 clients query an index without pause while documents are
 * uploaded to it and deleted from it, with retrieval on the server's thread, on worker threads and
 * in two replica processes (serve's `processes`).
 * No request fails, every response names a version that existed, and every item it cites comes
 * from a document of that version.
 */
import { describe, expect, it } from 'vitest';
import { call, docIdsOf, HARBOUR, servedFolder, write } from './writes-fixture.js';

const served = servedFolder();
/** The same folder served with its retrievals on two worker threads. */
const pooled = servedFolder({
  workers: { count: 2, setup: new URL('./fixtures/worker-setup.ts', import.meta.url) },
});

/** Invented documents that all share the words of the question, so each is retrieved once indexed. */
const ADDED = ['a', 'b', 'c', 'd', 'e'].map((x) => ({
  id: `veldt-${x}`,
  text: `Veldt harbour ledger ${x}: the schooner ${x.toUpperCase()}-Wren unloaded salt at the harbour quay.`,
}));
const QUESTION = 'Veldt harbour ledger schooner salt quay';

/** The writes, in order: uploads and deletions, one and several documents at a time. */
const WRITES: ({ add: typeof ADDED } | { remove: string })[] = [
  { add: [ADDED[0]!] },
  { add: [ADDED[1]!, ADDED[2]!] },
  { remove: 'h-crane' },
  { remove: 'veldt-a' },
  { add: [ADDED[3]!] },
  { remove: 'veldt-b' },
  { add: [ADDED[4]!, { ...ADDED[0]!, text: `${ADDED[0]!.text} Rewritten.` }] },
  { remove: 'h-pilot' },
];

interface Seen {
  status: number;
  version?: string;
  docIds: string[];
  error?: string;
}

/** The same folder served by two replica processes (the writes forwarded to the primary). */
const processes = servedFolder({
  processes: { count: 2, setup: new URL('./fixtures/worker-setup.ts', import.meta.url) },
});

describe('queries during writes', () => {
  it.each([
    ['on the server thread', served],
    ['on two retrieval workers', pooled],
    ['in two replica processes', processes],
  ])(
    '32 concurrent clients, retrieval %s: no error, and each answer comes entirely from one version that existed',
    async (_, served) => {
      const path = '/v1/indexes/harbour/query';
      const initial = (await (await call(served.server.url, 'GET', '/v1/indexes/harbour')).json())
        .version as string;
      // The documents of every version, by version id.
      const versions = new Map<string, Set<string>>([[initial, new Set(HARBOUR.map((d) => d.id))]]);
      const seen: Seen[] = [];
      let writing = true;

      const ask = async () => {
        try {
          const res = await call(served.server.url, 'POST', path, { question: QUESTION, topK: 8 });
          const body = await res.json();
          seen.push(
            res.status === 200
              ? { status: 200, version: body.version, docIds: docIdsOf(body) }
              : { status: res.status, docIds: [], error: JSON.stringify(body) },
          );
        } catch (error) {
          seen.push({ status: 0, docIds: [], error: String(error) });
        }
      };
      // Each client asks once before the writes start and once after they end, so both the first
      // and the last version are seen whatever the scheduling.
      await Promise.all(Array.from({ length: 32 }, ask));
      const clients = Array.from({ length: 32 }, async () => {
        while (writing) await ask();
        await ask();
      });

      let docs = new Set(versions.get(initial));
      for (const change of WRITES) {
        const job = await ('add' in change
          ? write(served.server.url, 'POST', '/v1/indexes/harbour/documents', {
              documents: change.add,
            })
          : write(served.server.url, 'DELETE', `/v1/indexes/harbour/documents/${change.remove}`)
        ).catch((error: Error) => {
          // The server's log says why a write was refused (a 500 carries no details by design).
          throw new Error(`${error.message}\nserver log:\n${served.log.join('\n')}`);
        });
        expect(job.status, `${JSON.stringify(job.error)}\n${served.log.join('\n')}`).toBe('done');
        docs = new Set(docs);
        if ('add' in change) for (const d of change.add) docs.add(d.id);
        else docs.delete(change.remove);
        versions.set(job.version as string, docs);
      }
      writing = false;
      await Promise.all(clients);

      expect(versions.size).toBe(WRITES.length + 1);
      const errors = seen.filter((s) => s.status !== 200);
      expect(errors, served.log.join('\n')).toEqual([]);
      for (const answer of seen) {
        const held = versions.get(answer.version as string);
        expect(held, `unknown version ${answer.version}`).toBeDefined();
        expect(answer.docIds.length).toBeGreaterThan(0);
        for (const id of answer.docIds)
          expect(held!.has(id), `${id} is not in version ${answer.version}`).toBe(true);
      }
      const distinct = new Set(seen.map((s) => s.version));
      expect(distinct.has(initial)).toBe(true);
      expect(distinct.has([...versions.keys()].at(-1))).toBe(true);
      expect(seen.length).toBeGreaterThan(64);
    },
    // The replicas take both cores while the 32 clients and the writes share the primary's.
    240_000,
  );
});
