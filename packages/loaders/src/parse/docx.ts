import { parseHTML } from 'linkedom';
import mammoth from 'mammoth';
import { LoadFailure, oneLine } from '../failure.js';
import type { ParseResult, ParseTask } from '../task.js';
import { collapseSpace, fileTitle, SegmentedText } from '../text.js';
import { addSections } from './blocks.js';
import { checkZip } from './zip.js';

/** Word's Title and Subtitle paragraphs are not headings; the Title names the document. */
const STYLE_MAP = [
  "p[style-name='Title'] => p.doc-title:fresh",
  "p[style-name='Subtitle'] => p.doc-subtitle:fresh",
];

/**
 * DOCX → one document through mammoth (Word's paragraph styles → HTML headings), one segment per
 * section with the heading path (Heading 1, Heading 2, …) as `location.section`; tables become one
 * line per row. The ZIP container is checked against `limits.maxExpandedBytes` first (declared
 * sizes, then a streamed inflate of the XML parts mammoth reads). Images are not read.
 */
export async function parseDocx(task: ParseTask): Promise<ParseResult> {
  const bytes = task.bytes ?? new Uint8Array();
  const { sizes } = checkZip(bytes, task.limits.maxExpandedBytes, (name) => /\.(xml|rels)$/i.test(name));
  if (![...sizes.keys()].some((name) => name.startsWith('word/')))
    throw new LoadFailure('not a Word document (a ZIP archive without word/document.xml)');
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        // Images carry no text: skip reading them (and their base64 in the HTML).
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      },
    );
    html = result.value;
  } catch (error) {
    const message = oneLine((error as Error).message ?? String(error));
    if (/main document part/i.test(message))
      throw new LoadFailure('not a Word document (no main document part)');
    throw new LoadFailure(`damaged DOCX (${message})`);
  }
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const titleParagraph = collapseSpace(document.querySelector('p.doc-title')?.textContent ?? '');
  const out = new SegmentedText();
  const { h1 } = addSections(document.body, task.path, out);
  const doc = out.toDocument(task.path, titleParagraph || h1 || fileTitle(task.path));
  if (!doc) throw new LoadFailure('no text (the Word document is empty or holds only images)');
  return { documents: [doc], skipped: [] };
}
