/**
 * The explorer's calls of the `grag serve` API, through the package's typed client
 * (`@grag/server/client`, bundled from its sources): the bearer token read from the page's
 * `#token=` fragment, and a query whose answer streams into the page as it is written.
 */
import { createGragClient, GragApiError, type GragClient } from '../../src/client.js';
import type { QueryEvents, QueryResponse } from './types.js';

export type { GragClient };
export { GragApiError };

/** The bearer token from a `#token=...` fragment, if the page was opened with one. */
export function tokenFromHash(hash: string): string | undefined {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token ? token : undefined;
}

/** A client of the server that serves the page (same origin), sending `token` when there is one. */
export function pageClient(token: string | undefined): GragClient {
  return createGragClient(token ? { token } : {});
}

/** What to show for a failed call: its message, and how to give a token when one was missing. */
export function failureMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return GragApiError.isInstance(error) && error.status === 401
    ? `${message} (open the page as /#token=<token>)`
    : message;
}

/** A query as the page asks it. */
export interface PageQuery {
  question: string;
  method: string;
  budget?: number;
  topK?: number;
}

/**
 * Ask `query`, with its answer streamed when `answer` is asked: `events` hear the retrieval as
 * soon as it is known and every piece of answer text; the promise resolves to the whole response.
 */
export async function ask(
  client: GragClient,
  query: PageQuery,
  events: QueryEvents,
  options: { answer: boolean; signal?: AbortSignal },
): Promise<QueryResponse> {
  const call = options.signal ? { signal: options.signal } : {};
  if (!options.answer) {
    const response = await client.query({ ...query, answer: false }, call);
    events.onRetrieval(response);
    return response;
  }
  let response: QueryResponse | undefined;
  let streamed = '';
  for await (const part of client.streamQuery(query, call)) {
    if (part.event === 'retrieval') {
      response = part.data;
      events.onRetrieval(response);
    } else if (part.event === 'delta') {
      streamed += part.data.text;
      events.onDelta(part.data.text);
    } else if (part.event === 'answer' && response) {
      response.answer = part.data;
    }
  }
  if (!response) {
    throw new GragApiError('The server ended the answer stream before sending the retrieval.', {
      status: 200,
      code: 'stream_error',
    });
  }
  if (!response.answer && streamed) response.answer = { text: streamed, citations: [], sources: [] };
  return response;
}
