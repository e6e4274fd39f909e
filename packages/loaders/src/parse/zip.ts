import { Unzip, UnzipInflate, unzipSync } from 'fflate';
import { formatBytes, LoadFailure } from '../failure.js';

/** The entries of a ZIP archive as its central directory declares them. */
export interface ZipListing {
  /** Entry name → declared uncompressed size. */
  sizes: Map<string, number>;
  totalBytes: number;
}

/**
 * Guards against ZIP bombs before a ZIP-based format (DOCX) is parsed: the declared uncompressed
 * sizes of the central directory must add up to at most `maxExpandedBytes`, and the entries that
 * `inflate` selects are then inflated as a stream — without keeping the output — to check that
 * none expands past what it declares and that the total stays within the limit.
 */
export function checkZip(
  bytes: Uint8Array,
  maxExpandedBytes: number,
  inflate: (name: string) => boolean,
): ZipListing {
  const sizes = new Map<string, number>();
  let totalBytes = 0;
  try {
    unzipSync(bytes, {
      filter(file) {
        sizes.set(file.name, file.originalSize);
        totalBytes += file.originalSize;
        return false; // list only: nothing is inflated here
      },
    });
  } catch (error) {
    throw new LoadFailure(`damaged ZIP container (${(error as Error).message})`);
  }
  if (totalBytes > maxExpandedBytes)
    throw new LoadFailure(
      `expands to ${formatBytes(totalBytes)}, more than limits.maxExpandedBytes (${formatBytes(maxExpandedBytes)}); a ZIP bomb?`,
    );
  let expanded = 0;
  let failure: LoadFailure | undefined;
  const unzip = new Unzip((file) => {
    if (failure || !inflate(file.name)) return;
    const declared = sizes.get(file.name) ?? 0;
    let size = 0;
    file.ondata = (error, data) => {
      if (failure) return;
      if (error) {
        failure = new LoadFailure(`damaged ZIP entry ${file.name} (${error.message})`);
        return;
      }
      size += data.length;
      expanded += data.length;
      if (size > declared || expanded > maxExpandedBytes) {
        failure = new LoadFailure(
          size > declared
            ? `the ZIP entry ${file.name} expands past its declared size (${formatBytes(declared)}); a ZIP bomb?`
            : `expands to more than limits.maxExpandedBytes (${formatBytes(maxExpandedBytes)}); a ZIP bomb?`,
        );
        file.terminate();
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  const step = 1 << 16;
  try {
    for (let at = 0; at < bytes.length && !failure; at += step)
      unzip.push(bytes.subarray(at, at + step), at + step >= bytes.length);
  } catch (error) {
    failure ??= new LoadFailure(`damaged ZIP container (${(error as Error).message})`);
  }
  if (failure) throw failure;
  return { sizes, totalBytes };
}
