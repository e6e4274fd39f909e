/** Sizes of uploads as people read them (the job line's progress). */

/** `bytes` for people: `812 B`, `14.2 KB`, `3.1 MB`. */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
