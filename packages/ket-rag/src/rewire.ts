/**
 * Text units of the skeleton (KET-RAG §5.1): entities and relationships extracted from chunks link
 * to those chunks' sub-chunks; with title units, a title entity's own document comes first.
 */

/** The sub-chunk ids of each chunk id, in sub-chunk order. */
export function subChunksByChunk(
  subChunks: readonly { id: string; chunkId: string }[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of subChunks) {
    const list = out.get(s.chunkId);
    if (list) list.push(s.id);
    else out.set(s.chunkId, [s.id]);
  }
  return out;
}

/** Every sub-chunk of the given chunks, chunk by chunk (a chunk without sub-chunks adds none). */
export function rewire(
  chunkIds: readonly string[],
  subIdsOf: ReadonlyMap<string, readonly string[]>,
): string[] {
  return chunkIds.flatMap((id) => subIdsOf.get(id) ?? []);
}

/**
 * The home units of each title entity: every sub-chunk of every chunk of the documents it titles,
 * core or not (documents in `titleEntities` order, chunks in `chunks` order).
 */
export function homeUnits(input: {
  chunks: readonly { id: string; docId: string }[];
  /** Document id → id of its title entity. */
  titleEntities: Iterable<readonly [string, string]>;
  subIdsOf: ReadonlyMap<string, readonly string[]>;
}): Map<string, string[]> {
  const chunksOfDoc = new Map<string, string[]>();
  for (const c of input.chunks) {
    const list = chunksOfDoc.get(c.docId);
    if (list) list.push(c.id);
    else chunksOfDoc.set(c.docId, [c.id]);
  }
  const out = new Map<string, string[]>();
  for (const [docId, entityId] of input.titleEntities) {
    const units = rewire(chunksOfDoc.get(docId) ?? [], input.subIdsOf);
    out.set(entityId, [...(out.get(entityId) ?? []), ...units]);
  }
  return out;
}

/** An entity's text units: its home units (if any) first, then the others not among them. */
export function entityUnits(home: readonly string[] | undefined, rest: readonly string[]): string[] {
  if (!home) return [...rest];
  const inHome = new Set(home);
  return [...home, ...rest.filter((u) => !inHome.has(u))];
}

/**
 * The title entities each text unit links to: unit id → positions (in `entities`) of the entities
 * in `titleIds` that list the unit, in entity order.
 */
export function unitTitleEntities(
  entities: readonly { id: string; textUnitIds: readonly string[] }[],
  titleIds: ReadonlySet<string>,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  entities.forEach((e, position) => {
    if (!titleIds.has(e.id)) return;
    for (const unit of e.textUnitIds) {
      const list = out.get(unit);
      if (list) list.push(position);
      else out.set(unit, [position]);
    }
  });
  return out;
}
