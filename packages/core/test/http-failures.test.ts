import { describe, expect, it } from 'vitest';
import { isRetryableStatus, oneLine, statusHint } from '../src/kit.js';

const hints = {
  unauthorized: '401',
  forbidden: '403',
  notFound: '404',
  tooLarge: '413',
  rateLimited: '429',
  badRequest: '400/422',
  overloaded: 'retry',
  other: 'other',
};

describe('HTTP failure helpers', () => {
  it('retries timeouts, conflicts, rate limits and server errors only', () => {
    expect([408, 409, 429, 500, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  it('picks the hint of each status', () => {
    const statuses = [401, 403, 404, 413, 429, 400, 422, 408, 502, 418];
    expect(statuses.map((s) => statusHint(s, hints))).toEqual([
      '401',
      '403',
      '404',
      '413',
      '429',
      '400/422',
      '400/422',
      'retry',
      'retry',
      'other',
    ]);
  });

  it('puts a message on one line and cuts it with an ellipsis', () => {
    expect(oneLine('  a\n  b\tc  ')).toBe('a b c');
    expect(oneLine('abcdef', 4)).toBe('abc…');
  });
});
