import type { ParseResult, ParseTask } from '../task.js';
import type { Emit } from './records.js';

/**
 * Runs the parser of `task.format`. Each parser module is imported on first use, so a worker that
 * only ever reads Markdown never loads pdf.js. Record formats pass each document to `emit` as it is
 * made, when given, instead of returning them all at the end.
 */
export async function parseFile(task: ParseTask, emit?: Emit): Promise<ParseResult> {
  switch (task.format) {
    case 'markdown':
    case 'mdx':
      return (await import('./markdown.js')).parseMarkdown(task, task.format === 'mdx');
    case 'html':
      return (await import('./html.js')).parseHtml(task);
    case 'pdf':
      return (await import('./pdf.js')).parsePdf(task);
    case 'docx':
      return (await import('./docx.js')).parseDocx(task);
    case 'csv':
    case 'tsv':
      return (await import('./records.js')).parseCsv(task, task.format === 'csv' ? ',' : '\t', emit);
    case 'json':
      return (await import('./records.js')).parseJson(task, emit);
    case 'jsonl':
      return (await import('./records.js')).parseJsonl(task, emit);
  }
}
