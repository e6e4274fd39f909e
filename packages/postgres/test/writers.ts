/** A check shared by the server tests: concurrent writers of one index. */
import type { IndexStore } from '@grag/core';
import { expect } from 'vitest';

const encode = (text: string) => new TextEncoder().encode(text);

/**
 * Start writers of one index on separate stores (separate pools: as separate processes would),
 * each writing several artifacts slowly so their transactions overlap; every writer must complete
 * and the index must end on exactly one writer's version, whole.
 */
export async function concurrentWritersCheck(makeStore: () => IndexStore, writers = 3): Promise<void> {
  const stores = Array.from({ length: writers }, makeStore);
  const order: number[] = [];
  await Promise.all(
    stores.map((store, w) =>
      store.writeVersion(
        { method: 'race', formatVersion: 1, params: { writer: w }, providers: {} },
        async (out) => {
          for (let part = 0; part < 5; part++) {
            await out.write(`part-${part}.txt`, encode(`writer ${w} part ${part}`));
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          order.push(w);
        },
      ),
    ),
  );
  expect(order.sort()).toEqual(Array.from({ length: writers }, (_, w) => w));
  const snapshot = await stores[0]!.open();
  try {
    const winner = snapshot.manifest.params.writer as number;
    expect(snapshot.names).toEqual(['part-0.txt', 'part-1.txt', 'part-2.txt', 'part-3.txt', 'part-4.txt']);
    for (const name of snapshot.names) {
      expect(new TextDecoder().decode(await snapshot.read(name))).toBe(
        `writer ${winner} ${name.replace('-', ' ').replace('.txt', '')}`,
      );
    }
  } finally {
    await snapshot.release();
  }
}
