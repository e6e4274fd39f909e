/**
 * Why a file could not be read, in a few words without the file name (`damaged PDF (…)`); the
 * loader turns it into an `InputError` that names the file. Parsers run in a worker thread and
 * import no runtime value from `@grag/core`, so they throw this plain class instead.
 */
export class LoadFailure extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LoadFailure';
  }
}

/** `12.5 MiB`, `512 KiB`, `900 B`: a byte count as people read it. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${round(bytes / 1024 ** 3)} GiB`;
  if (bytes >= 1024 ** 2) return `${round(bytes / 1024 ** 2)} MiB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KiB`;
  return `${bytes} B`;
}

function round(n: number): string {
  return n >= 10 || Number.isInteger(n) ? String(Math.round(n)) : n.toFixed(1);
}

/** The first line of an error message, without a trailing period, shortened to `max` characters. */
export function oneLine(message: string, max = 200): string {
  const line = (message.split(/\r?\n/, 1)[0] ?? '').trim().replace(/\.$/, '');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
