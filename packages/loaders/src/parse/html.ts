import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { LoadFailure } from '../failure.js';
import type { ParseResult, ParseTask } from '../task.js';
import { collapseSpace, fileTitle, SegmentedText } from '../text.js';
import { addSections } from './blocks.js';

/** Page furniture that is never the main content: removed before Readability looks for the article. */
const BOILERPLATE = [
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'footer',
  'aside',
  '[role="navigation"]',
  '[role="contentinfo"]',
  '[role="banner"]',
  '[role="complementary"]',
  '[role="search"]',
  '[aria-hidden="true"]',
  '[hidden]',
].join(', ');

/** Readability looks at no more elements than this (its own safeguard against huge pages). */
const MAX_ELEMENTS = 200_000;

/**
 * HTML → one document of the page's main content. Navigation, headers, footers, sidebars and
 * scripts are dropped (semantic elements first, then Mozilla Readability — Firefox's Reader View —
 * keeps the article); the article is split into one segment per section with the heading path as
 * `location.section`. A page with no main content is refused.
 */
export function parseHtml(task: ParseTask): ParseResult {
  const { document } = parseHTML(task.text ?? '');
  const pageTitle = collapseSpace(document.querySelector('title')?.textContent ?? '');
  for (const el of elements(document, BOILERPLATE)) el.remove();
  // A site header (logo, menu) outside the article; an article's own <header> keeps its heading.
  for (const el of elements(document, 'header')) {
    if (!el.closest('article, main, [role="main"]')) el.remove();
  }
  flattenDeep(document.body ?? document.documentElement);
  const firstH1 = collapseSpace(document.querySelector('h1')?.textContent ?? '');
  let article: ReturnType<Readability['parse']>;
  try {
    // biome-ignore lint/suspicious/noExplicitAny: linkedom's Document stands in for the DOM's.
    article = new Readability(document as any, { maxElemsToParse: MAX_ELEMENTS }).parse();
  } catch (error) {
    throw new LoadFailure(`the HTML could not be read (${(error as Error).message})`);
  }
  const content = article?.content ?? '';
  if (!article || collapseSpace(article.textContent ?? '') === '')
    throw new LoadFailure(
      'no main content (only navigation, headers or footers, or a page built by scripts)',
    );
  // Readability drops the <h1> that repeats the page title; it is the root of the heading path.
  const title = collapseSpace(article.title ?? '');
  const keepH1 = firstH1 !== '' && !/<h1[\s>]/i.test(content) && similar(firstH1, title || pageTitle);
  const body = parseHTML(
    `<!doctype html><html><body>${keepH1 ? `<h1>${escapeHtml(firstH1)}</h1>` : ''}${content}</body></html>`,
  ).document.body;
  const out = new SegmentedText();
  const { h1 } = addSections(body, task.path, out);
  const doc = out.toDocument(task.path, h1 ?? (title || pageTitle || fileTitle(task.path)));
  if (!doc) throw new LoadFailure('no main content (the article has no text)');
  return { documents: [doc], skipped: [] };
}

/**
 * Deepest element nesting kept. Readability's time grows faster than the square of the nesting
 * depth (128 nested divs take 0.14 s, 512 take 1.4 s, 2,000 a minute); browsers cap the depth at 512.
 */
const MAX_DEPTH = 128;

interface TreeElement {
  children: ArrayLike<TreeElement>;
  textContent: string | null;
}

/** Replaces every element nested deeper than {@link MAX_DEPTH} by its text (iteratively: no recursion). */
function flattenDeep(root: TreeElement | null): void {
  if (!root) return;
  const stack: [TreeElement, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [element, depth] = stack.pop()!;
    for (const child of Array.from(element.children)) {
      if (depth + 1 >= MAX_DEPTH) child.textContent = child.textContent ?? '';
      else stack.push([child, depth + 1]);
    }
  }
}

interface RemovableElement {
  remove(): void;
  closest(selector: string): unknown;
}

function elements(
  root: { querySelectorAll(selector: string): unknown },
  selector: string,
): RemovableElement[] {
  return Array.from(root.querySelectorAll(selector) as ArrayLike<RemovableElement>);
}

function similar(a: string, b: string): boolean {
  if (!b) return true;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x.includes(y) || y.includes(x);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
