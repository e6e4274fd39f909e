/**
 * Test files made on the spot: PDFs with pdf-lib, Word files with docx, and the damaged, encrypted
 * and oversized variants the adversarial tests need. Nothing here is read from disk.
 */
import { deflateSync } from 'node:zlib';
import {
  Document as DocxDocument,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from 'docx';
import { zipSync } from 'fflate';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

/** The standard PDF fonts the generated files use (no font file is embedded). */
export type PdfFont = 'Helvetica' | 'Times-Roman' | 'Courier';

const FONTS: Record<PdfFont, StandardFonts> = {
  Helvetica: StandardFonts.Helvetica,
  'Times-Roman': StandardFonts.TimesRoman,
  Courier: StandardFonts.Courier,
};

export interface MakePdfOptions {
  title?: string;
  objectStreams?: boolean;
  font?: PdfFont;
  /** Font size in points. @default 11 */
  size?: number;
  /** Two columns: the first half of a page's lines on the left, the rest on the right. @default 1 */
  columns?: 1 | 2;
  /** Each word drawn on its own at its position, as many PDF producers do, instead of whole lines. */
  wordByWord?: boolean;
}

/** A PDF with one page per entry, each line of the entry drawn as one line of text. */
export async function makePdf(
  pages: readonly (readonly string[])[],
  options: MakePdfOptions = {},
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(FONTS[options.font ?? 'Helvetica']);
  const size = options.size ?? 11;
  if (options.title) doc.setTitle(options.title);
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    const perColumn = options.columns === 2 ? Math.ceil(lines.length / 2) : lines.length;
    lines.forEach((line, i) => {
      const x = i < perColumn ? 56 : 316;
      const y = 730 - (i % perColumn) * size * 1.6;
      if (!options.wordByWord) {
        page.drawText(line, { x, y, size, font });
        return;
      }
      let at = x;
      for (const word of line.split(' ')) {
        page.drawText(word, { x: at, y, size, font });
        at += font.widthOfTextAtSize(`${word} `, size);
      }
    });
  }
  return doc.save({ useObjectStreams: options.objectStreams ?? true });
}

/** A PDF whose pages hold only a drawn rectangle: no text layer. */
export async function makeImageOnlyPdf(pages = 2): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) {
    doc
      .addPage([612, 792])
      .drawRectangle({ x: 100, y: 400, width: 300, height: 200, color: rgb(0.2, 0.4, 0.8) });
  }
  return doc.save();
}

/**
 * A PDF whose trailer names a standard security handler with a user password that is not empty:
 * readers ask for the password.
 */
export async function makeEncryptedPdf(): Promise<Uint8Array> {
  const plain = Buffer.from(await makePdf([['Sealed text.']], { objectStreams: false })).toString('latin1');
  const encrypt = `/Encrypt << /Filter /Standard /V 1 /R 2 /O <${'00'.repeat(32)}> /U <${'11'.repeat(32)}> /P -4 >> /ID [<${'ab'.repeat(16)}> <${'ab'.repeat(16)}>]`;
  const sealed = plain.replace(/trailer\s*<</, `trailer\n<< ${encrypt}`);
  if (sealed === plain) throw new Error('makeEncryptedPdf: no trailer found');
  return new Uint8Array(Buffer.from(sealed, 'latin1'));
}

/** A PDF header followed by bytes that are no PDF structure. */
export function makeDamagedPdf(): Uint8Array {
  const junk = Buffer.alloc(4000);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919) % 251;
  return new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), junk]));
}

/**
 * A one-page PDF whose content stream is `inflatedBytes` of spaces, deflated (a few hundred KiB for
 * a gigabyte), then a line of text: a decompression bomb for a PDF reader.
 */
export function makePdfBomb(inflatedBytes: number): Uint8Array {
  const block = Buffer.alloc(1 << 24, 0x20);
  const parts: Buffer[] = [];
  for (let n = 0; n < inflatedBytes; n += block.length) parts.push(block);
  parts.push(Buffer.from('BT /F1 12 Tf 50 700 Td (bomb) Tj ET'));
  return rawPdf(deflateSync(Buffer.concat(parts), { level: 9 }));
}

/** A minimal one-page PDF (Helvetica) around a FlateDecode content stream. */
function rawPdf(content: Buffer): Uint8Array {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  const add = (...parts: (string | Buffer)[]) => {
    offsets.push(length);
    for (const p of parts) {
      const b = typeof p === 'string' ? Buffer.from(p, 'latin1') : p;
      chunks.push(b);
      length += b.length;
    }
  };
  add('1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n');
  add('2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n');
  add(
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj\n',
  );
  add(
    `4 0 obj << /Length ${content.length} /Filter /FlateDecode >> stream\n`,
    content,
    '\nendstream endobj\n',
  );
  add('5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n');
  let xref = `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) xref += `${String(o).padStart(10, '0')} 00000 n \n`;
  xref += `trailer << /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  chunks.push(Buffer.from(xref, 'latin1'));
  return new Uint8Array(Buffer.concat(chunks));
}

/** One block of a Word document: a heading, a paragraph, or a table (first row = header). */
export type DocxBlock =
  | { title: string }
  | { heading: 1 | 2 | 3; text: string }
  | { paragraph: string }
  | { table: string[][] };

const LEVELS = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;

export async function makeDocx(blocks: readonly DocxBlock[]): Promise<Uint8Array> {
  const children = blocks.map((b) => {
    if ('title' in b) return new Paragraph({ text: b.title, heading: HeadingLevel.TITLE });
    if ('heading' in b) return new Paragraph({ text: b.text, heading: LEVELS[b.heading] });
    if ('paragraph' in b) return new Paragraph({ children: [new TextRun(b.paragraph)] });
    return new Table({
      rows: b.table.map(
        (row) =>
          new TableRow({ children: row.map((cell) => new TableCell({ children: [new Paragraph(cell)] })) }),
      ),
    });
  });
  return new Uint8Array(await Packer.toBuffer(new DocxDocument({ sections: [{ children }] })));
}

/** ZIP bombs made so far, by size: compressing 256 MiB takes fflate seconds, the result is the same. */
const zipBombs = new Map<number, Uint8Array>();

/** A ZIP whose one Word part declares (honestly) that it inflates to `bytes` of zeros (a copy of its own). */
export function makeZipBomb(bytes: number): Uint8Array {
  let zip = zipBombs.get(bytes);
  if (zip === undefined) {
    zip = zipSync({
      '[Content_Types].xml': new TextEncoder().encode('<Types/>'),
      'word/document.xml': [new Uint8Array(bytes), { level: 9 }],
    });
    zipBombs.set(bytes, zip);
  }
  return zip.slice();
}

/**
 * A ZIP whose central directory and local header understate how far `word/document.xml` inflates:
 * it declares 1 KiB and holds `bytes` of zeros.
 */
export function makeLyingZip(bytes: number): Uint8Array {
  const zip = makeZipBomb(bytes);
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const name = 'word/document.xml';
  // Local file headers (PK\x03\x04): uncompressed size at +22; central entries (PK\x01\x02) at +24.
  for (let i = 0; i + 46 < zip.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x04034b50 && nameAt(zip, i + 30, view.getUint16(i + 26, true)) === name)
      view.setUint32(i + 22, 1024, true);
    if (sig === 0x02014b50 && nameAt(zip, i + 46, view.getUint16(i + 28, true)) === name)
      view.setUint32(i + 24, 1024, true);
  }
  return zip;
}

function nameAt(bytes: Uint8Array, at: number, length: number): string {
  return new TextDecoder().decode(bytes.subarray(at, at + length));
}
