import type { Nodes, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { LoadFailure } from '../failure.js';
import type { ParseResult, ParseTask } from '../task.js';
import { collapseSpace, fileTitle, SegmentedText } from '../text.js';

/**
 * Markdown (CommonMark + GFM tables, footnotes, strikethrough, task lists; YAML or TOML front
 * matter) → one document, one segment per section: a heading and the blocks under it, its
 * `location.section` the heading path. Markup is dropped; code blocks are kept as text; a table
 * becomes one line per row with cells joined by ` | `.
 */
export function parseMarkdown(task: ParseTask, mdx = false): ParseResult {
  const text = capNesting(task.text ?? '');
  const source = mdx ? dropMdxStatements(text) : text;
  const out = new SegmentedText();
  const stack: { depth: number; text: string }[] = [];
  let blocks: string[] = [];
  let section: string[] | undefined;
  let h1: string | undefined;
  let matterTitle: string | undefined;
  const flush = () => {
    out.add(blocks.join('\n\n'), section ? { path: task.path, section } : { path: task.path });
    blocks = [];
  };
  const visit = (node: RootContent) => {
    if (node.type === 'heading') {
      flush();
      const text = collapseSpace(inline(node));
      while (stack.length > 0 && stack.at(-1)!.depth >= node.depth) stack.pop();
      if (text !== '') {
        stack.push({ depth: node.depth, text });
        if (node.depth === 1) h1 ??= text;
        blocks.push(text);
      }
      section = stack.length > 0 ? stack.map((h) => h.text) : undefined;
      return;
    }
    if (node.type === 'yaml' || (node.type as string) === 'toml') {
      matterTitle ??= frontMatterTitle((node as { value: string }).value);
      return;
    }
    const text = block(node);
    if (text !== undefined && text.trim() !== '') blocks.push(text);
  };
  // Each piece's tree is read and dropped before the next is parsed.
  for (const piece of pieces(source)) {
    const tree = fromMarkdown(piece, {
      extensions: [gfm(), frontmatter(['yaml', 'toml'])],
      mdastExtensions: [gfmFromMarkdown(), frontmatterFromMarkdown(['yaml', 'toml'])],
    }) as Root;
    for (const node of tree.children) visit(node);
  }
  flush();
  const doc = out.toDocument(task.path, h1 ?? matterTitle ?? fileTitle(task.path));
  if (!doc) throw new LoadFailure('no text (the Markdown has no paragraphs, headings or code)');
  return { documents: [doc], skipped: [] };
}

/** The text of one block node, or undefined for nodes that carry none (definitions, rules). */
function block(node: RootContent): string | undefined {
  switch (node.type) {
    case 'paragraph':
    case 'heading':
      return inline(node).trim();
    case 'code':
      return node.value;
    case 'html':
      return htmlText(node.value);
    case 'blockquote':
    case 'footnoteDefinition':
      return blocksOf(node.children, '\n\n');
    case 'list':
      return node.children.map((item) => blocksOf(item.children, '\n')).join('\n');
    case 'table':
      return node.children
        .map((row) => row.children.map((cell) => collapseSpace(inline(cell))).join(' | '))
        .join('\n');
    case 'thematicBreak':
    case 'definition':
    case 'yaml':
      return undefined;
    default:
      // Front matter in TOML, and node types of extensions: their text, if they have children.
      return 'children' in node ? inline(node as Nodes) : undefined;
  }
}

function blocksOf(nodes: readonly RootContent[], separator: string): string {
  return nodes
    .map(block)
    .filter((t): t is string => t !== undefined && t.trim() !== '')
    .join(separator);
}

/** The plain text of inline content: emphasis, links and code keep their text, images their alt text. */
function inline(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
      return node.value;
    case 'break':
      return '\n';
    case 'image':
    case 'imageReference':
      return node.alt ?? '';
    case 'html':
      return htmlText(node.value);
    case 'footnoteReference':
      return '';
    default:
      return 'children' in node ? (node.children as Nodes[]).map(inline).join('') : '';
  }
}

/** Raw HTML in Markdown (or JSX in MDX): the text between the tags. */
function htmlText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

function frontMatterTitle(matter: string): string | undefined {
  const m = /^title\s*[:=]\s*(.+)$/m.exec(matter);
  const title = m?.[1]
    ?.trim()
    .replace(/^(['"])(.*)\1$/, '$2')
    .trim();
  return title || undefined;
}

/** Deepest block-quote and list nesting read; markers past it are dropped (their text is kept). */
const MAX_NESTING = 32;
const DEEP = /(?:[>*+-][ \t]*|\d{1,9}[.)][ \t]*){33}/;

/**
 * micromark's time and memory grow fast with container nesting (50,000 `>` on one line: 17 s and
 * more than 512 MiB; 4,000 overflow the stack): a line that opens more than {@link MAX_NESTING}
 * block quotes or list items keeps only the first ones.
 */
function capNesting(source: string): string {
  return DEEP.test(source) ? source.split('\n').map(capLine).join('\n') : source;
}

function capLine(line: string): string {
  const marker = /[ \t]{0,3}(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]?/y;
  let count = 0;
  let keep = 0;
  let end = 0;
  while (end < line.length) {
    marker.lastIndex = end;
    if (!marker.exec(line)) break;
    end = marker.lastIndex;
    if (++count === MAX_NESTING) keep = end;
  }
  return count > MAX_NESTING ? line.slice(0, keep) + line.slice(end) : line;
}

/** Tracks fenced code blocks line by line: `inside(line)` says whether the line is code. */
function fences(): (line: string) => boolean {
  let fence: string | undefined;
  return (line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!open) return fence !== undefined;
    if (fence === undefined) fence = open[0]!.repeat(open.length);
    else if (open.startsWith(fence)) fence = undefined;
    return true;
  };
}

/** MDX: top-level `import` / `export` lines (outside code fences) are code, not prose. */
function dropMdxStatements(source: string): string {
  const inCode = fences();
  return source
    .split('\n')
    .map((line) => (!inCode(line) && /^(import|export)\s/.test(line) ? '' : line))
    .join('\n');
}

/** Size of the pieces a long Markdown file is parsed in. */
const PIECE_CHARS = 16 * 1024;

/**
 * A long file in pieces of about {@link PIECE_CHARS} characters, cut before ATX headings outside
 * code fences: micromark's time grows faster than the length of one document (5 MB: 20 s whole,
 * 2.6 s in 16 KB pieces), while a heading at the start of a line ends every open block anyway.
 * Link reference definitions are repeated in each piece so references resolve across cuts.
 */
function pieces(source: string): string[] {
  if (source.length <= 2 * PIECE_CHARS) return [source];
  const lines = source.split('\n');
  const inCode = fences();
  const out: string[] = [];
  const definitions: string[] = [];
  let start = 0;
  let size = 0;
  lines.forEach((line, i) => {
    const code = inCode(line);
    if (!code && /^ {0,3}\[(?:[^\]\\^]|\\.)(?:[^\]\\]|\\.)*\]:/.test(line)) definitions.push(line);
    if (!code && size >= PIECE_CHARS && /^#{1,6}(?:[ \t]|$)/.test(line)) {
      out.push(lines.slice(start, i).join('\n'));
      start = i;
      size = 0;
    }
    size += line.length + 1;
  });
  out.push(lines.slice(start).join('\n'));
  if (out.length === 1 || definitions.length === 0) return out;
  const shared = `\n\n${definitions.join('\n')}\n`;
  return out.map((piece) => piece + shared);
}
