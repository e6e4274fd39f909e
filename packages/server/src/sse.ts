/** Parsing of a Server-Sent Events stream (the WHATWG event-stream format), chunk by chunk. */

/** One Server-Sent Event: its name and its data lines joined. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * The complete events of `buffer` (blocks ended by a blank line; `event:` and `data:` fields, data
 * lines joined with `\n`, comments skipped) and the incomplete rest to prepend to the next chunk.
 */
export function parseSse(buffer: string): { events: SseEvent[]; rest: string } {
  // A chunk that ends inside a CRLF keeps its CR for the next one.
  const held = buffer.endsWith('\r') ? '\r' : '';
  const blocks = buffer
    .slice(0, buffer.length - held.length)
    .replace(/\r\n?/g, '\n')
    .split('\n\n');
  const rest = (blocks.pop() ?? '') + held;
  const events: SseEvent[] = [];
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}
