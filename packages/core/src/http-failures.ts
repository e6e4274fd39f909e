/**
 * What the provider packages (`@grag/openai`, `@grag/ai-sdk`, `@grag/langchain`) and the server
 * say about a failed HTTP call: whether its status is worth retrying, the hint its status calls
 * for, and a message cut to one line.
 */

/** HTTP statuses worth retrying: request timeout, conflict (lock timeout), rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `text` on one line (white space collapsed), cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** What a provider tells its user to do about each kind of HTTP failure. */
export interface StatusHints {
  /** 401. */
  unauthorized: string;
  /** 403. */
  forbidden: string;
  /** 404. */
  notFound: string;
  /** 413. */
  tooLarge: string;
  /** 429. */
  rateLimited: string;
  /** 400 and 422. */
  badRequest: string;
  /** Another status worth retrying (408, 409, 5xx). */
  overloaded: string;
  /** Any other status. */
  other: string;
}

/** The hint of `hints` for an HTTP `status`. */
export function statusHint(status: number, hints: StatusHints): string {
  if (status === 401) return hints.unauthorized;
  if (status === 403) return hints.forbidden;
  if (status === 404) return hints.notFound;
  if (status === 413) return hints.tooLarge;
  if (status === 429) return hints.rateLimited;
  if (status === 400 || status === 422) return hints.badRequest;
  if (isRetryableStatus(status)) return hints.overloaded;
  return hints.other;
}
