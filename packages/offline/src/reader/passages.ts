/**
 * The passages of a context item, read as items of their own. A graph method packs a community as
 * one item: its member chunks, each under its document's title line, separated by blank lines, or
 * its entities and relations, a labelled line each ("Ada Quill: …", "Ada Quill — Selby: …"). What
 * the reader takes from an item as a whole (the names it mentions anywhere, its topic, what "it"
 * and "the club" refer to) holds for one passage, not for a community of many.
 */
import type { ContextItem } from '@grag/core';

/** A passage: the item it comes from (its id is the item's) and its text, as the item writes it. */
export interface Passage extends ContextItem {
  /** Position of its item in the context. */
  item: number;
}

/** The longest line that heads a passage as its title ("Harbour Lights", "The Brinemark Institute"). */
const TITLE_WORDS = 12;

/** A line with no closing punctuation and a few words: a title when more lines follow it. */
function isTitleLine(line: string): boolean {
  const text = line.trim();
  return (
    text !== '' &&
    !/[.!?…:;,]["'”’)\]]*$/u.test(text) &&
    text.split(/\s+/).length <= TITLE_WORDS &&
    /^[\p{Lu}\p{N}"“‘']/u.test(text)
  );
}

/** "Ada Quill: …", "Ada Quill — Selby: …": a line that labels what it says with a name or a pair. */
const LABELLED = /^[^\n:]{1,80}?: \S/u;

/**
 * The passages of `text`: its blocks (separated by blank lines), a block joined to the one before
 * (by a blank line) unless it opens with a title line over more text; a block whose every line is
 * labelled is a list of passages, a line each.
 */
export function passagesOf(text: string): string[] {
  const blocks = text.split(/\n[ \t]*\n/);
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) out.push(current.join('\n\n'));
    current = [];
  };
  for (const block of blocks) {
    const lines = block.split('\n');
    if (lines.length > 1 && lines.every((l) => LABELLED.test(l))) {
      flush();
      out.push(...lines);
      continue;
    }
    if (lines.length > 1 && isTitleLine(lines[0]!)) flush();
    current.push(block);
  }
  flush();
  return out.filter((p) => p.trim() !== '');
}

/** The passages of every item of `context`, in order (an item of one passage stays as it is). */
export function contextPassages(context: readonly ContextItem[]): Passage[] {
  const out: Passage[] = [];
  context.forEach((c, item) => {
    const parts = passagesOf(c.text);
    if (parts.length <= 1) out.push({ id: c.id, text: c.text, item });
    else for (const text of parts) out.push({ id: c.id, text, item });
  });
  return out;
}
