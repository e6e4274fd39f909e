/**
 * An in-process {@link IndexStore}: versions live in a `Map` of this process, nothing touches the
 * disk (but scratch files). For tests of code that saves and loads indexes, for short-lived
 * indexes, and as a second implementation of the store contract beside the directory.
 */
import { IndexFormatError } from '../contracts/errors.js';
import type { IndexStore, StoredIndex, VectorPrecision } from '../contracts/store.js';
import { completeManifest, manifestText, parseManifest } from '../persistence.js';
import { indexFileError } from '../validate.js';
import { vectorPrecisionOption } from './precision.js';
import { artifactLocator, checkArtifactName, Scratch, withArtifactWriter } from './scratch.js';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Named in its location (`memory:<name>`) and in messages. @default a number unique in the process */
  name?: string;
  /**
   * How vector rows are written (see `IndexStore.vectorPrecision`). @default the precision of the
   * version a write replaces, `'float32'` for a new index
   */
  vectorPrecision?: VectorPrecision;
}

/** One stored version: the manifest's text and the artifacts' bytes, never changed once stored. */
interface Version {
  readonly manifest: string;
  readonly artifacts: ReadonlyMap<string, Uint8Array>;
}

let counter = 0;

/**
 * A store that keeps an index in memory. A write builds the new version aside and swaps it in
 * when its callback returns (a callback that throws leaves the old version served and nothing of
 * the new one); a snapshot from `open()` keeps reading its version even after newer ones are
 * stored. Bytes are copied in and out, so changing an array after writing it, or one read from a
 * snapshot, changes nothing stored. The manifest is kept as text and checked on `open()` exactly
 * as a directory's `manifest.json` is.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await denseRag.save(index, store);
 * const again = await denseRag.load(store, ctx);
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): IndexStore {
  const location = `memory:${options.name ?? ++counter}`;
  const owner = `memoryStore(${location})`;
  const precision = vectorPrecisionOption(owner, options.vectorPrecision);
  let current: Version | undefined;
  return {
    kind: 'memory',
    location,
    ...precision,
    async target() {
      return current === undefined ? 'absent' : 'index';
    },
    async writeVersion(manifest, write) {
      const artifacts = new Map<string, Uint8Array>();
      await withArtifactWriter(owner, (name, data) => void artifacts.set(name, Uint8Array.from(data)), write);
      current = { manifest: manifestText(completeManifest(manifest)), artifacts };
    },
    async open(): Promise<StoredIndex> {
      const version = current;
      if (version === undefined) {
        throw new IndexFormatError(
          location,
          undefined,
          `${location} holds no index yet. Save one to this store first (method.save(index, store)).`,
        );
      }
      const manifest = parseManifest(version.manifest, location);
      const scratch = new Scratch(owner);
      const locate = (name: string) => artifactLocator(location, name);
      return {
        manifest,
        names: [...version.artifacts.keys()].sort(),
        locate,
        async read(name) {
          const data = version.artifacts.get(checkArtifactName(name, owner));
          if (data === undefined) {
            throw indexFileError(locate(name), 'is missing');
          }
          return Uint8Array.from(data);
        },
        scratch: () => scratch.get(),
        release: () => scratch.remove(),
      };
    },
  };
}
