import type { SkippedInput } from '@grag/core';
import { getResolvedPDFJS } from 'unpdf';
import { LoadFailure, oneLine } from '../failure.js';
import type { ParseResult, ParseTask } from '../task.js';
import { collapseSpace, fileTitle, SegmentedText, tidyLines } from '../text.js';

/** What pdf.js's text content items look like (the parts read here). */
interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/** The text of one PDF page: pdf.js's text runs, a line break where pdf.js marks the end of a line. */
export function pageText(items: readonly TextItem[]): string {
  let text = '';
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return tidyLines(text);
}

/**
 * PDF → one document, one segment per page with `location.page` (from 1), through pdf.js (the
 * serverless build bundled by unpdf; no canvas, no fonts loaded, no eval). Pages without text are
 * reported in `skipped`; a PDF with no text at all is refused ("no text layer; OCR is not supported"),
 * as are encrypted and damaged files and files of more than `limits.maxPages` pages.
 */
export async function parsePdf(task: ParseTask): Promise<ParseResult> {
  const pdfjs = await getResolvedPDFJS();
  const bytes = task.bytes ?? new Uint8Array();
  let doc: Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>;
  try {
    doc = await pdfjs.getDocument({
      data: bytes,
      isEvalSupported: false,
      useSystemFonts: false,
      disableFontFace: true,
      disableAutoFetch: true,
      verbosity: 0,
    }).promise;
  } catch (error) {
    throw pdfFailure(error);
  }
  try {
    if (doc.numPages > task.limits.maxPages)
      throw new LoadFailure(
        `${doc.numPages} pages, more than limits.maxPages (${task.limits.maxPages}); raise the limit or split the file`,
      );
    const out = new SegmentedText();
    const skipped: SkippedInput[] = [];
    let failed = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      let text: string;
      try {
        const page = await doc.getPage(n);
        text = pageText((await page.getTextContent()).items as TextItem[]);
        page.cleanup();
      } catch (error) {
        failed++;
        skipped.push({ path: `${task.path} p. ${n}`, reason: `damaged page (${oneLine(String(error))})` });
        continue;
      }
      if (text === '') {
        skipped.push({
          path: `${task.path} p. ${n}`,
          reason: 'no text on this page (a scan, an image or a blank page; OCR is not supported)',
        });
        continue;
      }
      out.add(text, { path: task.path, page: n });
    }
    if (out.empty) {
      if (failed > 0) throw new LoadFailure(`damaged PDF (${skipped[0]!.reason})`);
      throw new LoadFailure('no text layer; OCR is not supported (a scanned or image-only PDF?)');
    }
    const title = await metadataTitle(doc);
    const document = out.toDocument(task.path, title ?? fileTitle(task.path), { pages: doc.numPages })!;
    return { documents: [document], skipped };
  } catch (error) {
    throw error instanceof LoadFailure ? error : pdfFailure(error);
  } finally {
    await doc.destroy();
  }
}

async function metadataTitle(doc: {
  getMetadata(): Promise<{ info: unknown }>;
}): Promise<string | undefined> {
  try {
    const { info } = await doc.getMetadata();
    const title = (info as { Title?: unknown } | undefined)?.Title;
    return typeof title === 'string' && collapseSpace(title) !== '' ? collapseSpace(title) : undefined;
  } catch {
    return undefined; // A damaged info dictionary costs the title, not the text.
  }
}

function pdfFailure(error: unknown): LoadFailure {
  const name = (error as { name?: string } | undefined)?.name;
  const message = oneLine((error as { message?: string } | undefined)?.message ?? String(error));
  if (name === 'PasswordException')
    return new LoadFailure('encrypted PDF (it needs a password); save an unencrypted copy first');
  if (name === 'InvalidPDFException') return new LoadFailure(`damaged PDF (${message.toLowerCase()})`);
  return new LoadFailure(`damaged PDF (${message})`);
}
