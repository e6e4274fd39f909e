import type { SourceLocation } from '@grag/core';
import { collapseSpace, type SegmentedText } from '../text.js';

/** The DOM subset the block walker reads (linkedom's nodes have it). */
interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

const ELEMENT = 1;
const TEXT = 3;
const SKIP = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'CANVAS',
  'IFRAME',
  'OBJECT',
  'BUTTON',
]);
const HEADING = /^H([1-6])$/;
/** Elements whose content is one block of running text. */
const TEXT_BLOCKS = new Set(['P', 'LI', 'DT', 'DD', 'FIGCAPTION', 'CAPTION', 'ADDRESS', 'SUMMARY', 'LEGEND']);
/** Elements that break inline text into blocks but are themselves containers. */
const CONTAINERS = new Set([
  'HTML',
  'BODY',
  'MAIN',
  'ARTICLE',
  'SECTION',
  'DIV',
  'BLOCKQUOTE',
  'UL',
  'OL',
  'DL',
  'FIGURE',
  'DETAILS',
  'FORM',
  'FIELDSET',
  'HEADER',
  'FOOTER',
  'NAV',
  'ASIDE',
  'CENTER',
  'HGROUP',
  'TBODY',
  'THEAD',
  'TFOOT',
]);

/**
 * Walks an HTML body (a readable article, or the HTML mammoth makes of a Word file) in document
 * order and adds one segment per section to `out`: a heading and the blocks under it, with the
 * heading path as `location.section`. Paragraphs, list items and headings become blocks of plain
 * text; `<pre>` keeps its lines; a table becomes one line per row, cells joined by ` | `.
 * Returns the first `<h1>` text, if any.
 */
export function addSections(root: DomNode, path: string, out: SegmentedText): { h1?: string } {
  const stack: { level: number; text: string }[] = [];
  let blocks: string[] = [];
  let inlineRun: string[] = [];
  let section: string[] | undefined;
  let h1: string | undefined;
  const endInline = () => {
    const text = collapseSpace(inlineRun.join(''));
    if (text) blocks.push(text);
    inlineRun = [];
  };
  const flush = () => {
    endInline();
    const location: SourceLocation = section ? { path, section } : { path };
    out.add(blocks.join('\n\n'), location);
    blocks = [];
  };
  const visit = (node: DomNode) => {
    if (node.nodeType === TEXT) {
      inlineRun.push(node.textContent ?? '');
      return;
    }
    if (node.nodeType !== ELEMENT) return;
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) return;
    const heading = HEADING.exec(name);
    if (heading) {
      flush();
      const level = Number(heading[1]);
      const text = collapseSpace(inlineText(node));
      while (stack.length > 0 && stack.at(-1)!.level >= level) stack.pop();
      if (text) {
        stack.push({ level, text });
        if (level === 1) h1 ??= text;
        blocks.push(text);
      }
      section = stack.length > 0 ? stack.map((h) => h.text) : undefined;
      return;
    }
    if (name === 'TABLE') {
      endInline();
      const rows = tableRows(node);
      if (rows) blocks.push(rows);
      return;
    }
    if (name === 'PRE') {
      endInline();
      const text = (node.textContent ?? '').replace(/^\n+|\s+$/g, '');
      if (text) blocks.push(text);
      return;
    }
    if (TEXT_BLOCKS.has(name) && !hasBlockChild(node)) {
      endInline();
      const text = collapseLines(inlineText(node));
      if (text) blocks.push(text);
      return;
    }
    if (name === 'BR') {
      inlineRun.push('\n');
      return;
    }
    const isContainer = CONTAINERS.has(name) || TEXT_BLOCKS.has(name);
    if (isContainer) endInline();
    for (const child of Array.from(node.childNodes)) visit(child);
    if (isContainer) endInline();
  };
  visit(root);
  flush();
  return h1 === undefined ? {} : { h1 };
}

/** Inline text with `<br>` as a line break and without scripts. */
function inlineText(node: DomNode): string {
  if (node.nodeType === TEXT) return node.textContent ?? '';
  if (node.nodeType !== ELEMENT) return '';
  const name = node.nodeName.toUpperCase();
  if (SKIP.has(name)) return '';
  if (name === 'BR') return '\n';
  let text = '';
  for (const child of Array.from(node.childNodes)) text += inlineText(child);
  // Block-level children inside a text block (a <p> in a <td> or <li>) read as separate words.
  return CONTAINERS.has(name) || TEXT_BLOCKS.has(name) ? ` ${text} ` : text;
}

/** Collapses spaces within lines but keeps the line breaks `<br>` made. */
function collapseLines(text: string): string {
  return text
    .split('\n')
    .map(collapseSpace)
    .filter((line) => line !== '')
    .join('\n');
}

function hasBlockChild(node: DomNode): boolean {
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType !== ELEMENT) continue;
    const name = child.nodeName.toUpperCase();
    if (
      name === 'TABLE' ||
      name === 'PRE' ||
      HEADING.test(name) ||
      name === 'UL' ||
      name === 'OL' ||
      name === 'DL'
    )
      return true;
    if ((CONTAINERS.has(name) || TEXT_BLOCKS.has(name)) && hasBlockChild(child)) return true;
  }
  return false;
}

/** A table as text: one line per row (nested tables flattened into their cell), cells joined by ` | `. */
function tableRows(table: DomNode): string {
  const lines: string[] = [];
  const rows = (node: DomNode) => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType !== ELEMENT) continue;
      const name = child.nodeName.toUpperCase();
      if (name === 'TR') {
        const cells: string[] = [];
        for (const cell of Array.from(child.childNodes)) {
          if (cell.nodeType !== ELEMENT) continue;
          const cellName = cell.nodeName.toUpperCase();
          if (cellName === 'TD' || cellName === 'TH') cells.push(collapseSpace(inlineText(cell)));
        }
        if (cells.some((c) => c !== '')) lines.push(cells.join(' | '));
      } else if (name === 'CAPTION') {
        const caption = collapseSpace(inlineText(child));
        if (caption) lines.push(caption);
      } else if (name === 'THEAD' || name === 'TBODY' || name === 'TFOOT') rows(child);
    }
  };
  rows(table);
  return lines.join('\n');
}
