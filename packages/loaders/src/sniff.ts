/** What a file's first bytes say it is, for the formats a loader could be handed by mistake. */
export type ContentKind =
  | 'pdf'
  | 'zip'
  | 'ole'
  | 'gzip'
  | 'bzip2'
  | 'xz'
  | 'zstd'
  | '7z'
  | 'rar'
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'webp'
  | 'tiff'
  | 'rtf'
  | 'elf'
  | 'wasm'
  | 'sqlite';

const LABELS: Record<ContentKind, string> = {
  pdf: 'a PDF',
  zip: 'a ZIP archive',
  ole: 'an OLE2 compound file (a legacy .doc/.xls/.ppt, or an encrypted Office document)',
  gzip: 'gzip-compressed data',
  bzip2: 'bzip2-compressed data',
  xz: 'xz-compressed data',
  zstd: 'zstd-compressed data',
  '7z': 'a 7-Zip archive',
  rar: 'a RAR archive',
  png: 'a PNG image',
  jpeg: 'a JPEG image',
  gif: 'a GIF image',
  webp: 'a WebP image',
  tiff: 'a TIFF image',
  rtf: 'an RTF document',
  elf: 'an executable (ELF)',
  wasm: 'a WebAssembly module',
  sqlite: 'an SQLite database',
};

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const MAGIC: [ContentKind, number[], number?][] = [
  ['zip', [0x50, 0x4b, 0x03, 0x04]],
  ['zip', [0x50, 0x4b, 0x05, 0x06]],
  ['zip', [0x50, 0x4b, 0x07, 0x08]],
  ['ole', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
  ['gzip', [0x1f, 0x8b]],
  ['bzip2', ascii('BZh')],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['rar', ascii('Rar!')],
  ['png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['jpeg', [0xff, 0xd8, 0xff]],
  ['gif', ascii('GIF8')],
  ['webp', ascii('WEBP'), 8],
  ['tiff', [0x49, 0x49, 0x2a, 0x00]],
  ['tiff', [0x4d, 0x4d, 0x00, 0x2a]],
  ['rtf', ascii('{\\rtf')],
  ['elf', [0x7f, 0x45, 0x4c, 0x46]],
  ['wasm', [0x00, 0x61, 0x73, 0x6d]],
  ['sqlite', ascii('SQLite format 3\0')],
];

const PDF_HEADER = ascii('%PDF-');

/**
 * The kind of content `bytes` start with, if it is one of the kinds above. PDF readers accept
 * `%PDF-` anywhere in the first kilobyte (some files carry a prefix).
 */
export function sniff(bytes: Uint8Array): ContentKind | undefined {
  for (const [kind, magic, offset = 0] of MAGIC) {
    if (bytes.length >= offset + magic.length && magic.every((b, i) => bytes[offset + i] === b)) return kind;
  }
  if (indexOf(bytes.subarray(0, 1024), PDF_HEADER) >= 0) return 'pdf';
  return undefined;
}

export function describe(kind: ContentKind): string {
  return LABELS[kind];
}

function indexOf(haystack: Uint8Array, needle: readonly number[]): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
