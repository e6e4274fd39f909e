import { describe, expect, it } from 'vitest';
import {
  AbortError,
  GragError,
  IndexFormatError,
  InvalidArgumentError,
  ModelOutputError,
  ProviderError,
  throwIfAborted,
} from '../src/index.js';

describe('GragError', () => {
  it('recognises its subclasses by marker, not by prototype', () => {
    const error = new InvalidArgumentError('k', 'k must be positive');
    expect(GragError.isInstance(error)).toBe(true);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(ModelOutputError.isInstance(error)).toBe(false);
    // An error from a duplicated install: same marker, different class identity.
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('grag.error')]: true,
      code: 'invalid-argument',
    });
    expect(InvalidArgumentError.isInstance(foreign)).toBe(true);
    expect(GragError.isInstance(new Error('plain'))).toBe(false);
    expect(GragError.isInstance(null)).toBe(false);
  });

  it('keeps structured fields on each kind of failure', () => {
    expect(new ModelOutputError('extract', '{"a":', 'truncated').raw).toBe('{"a":');
    const format = new IndexFormatError('/tmp/x', 3, 'old');
    expect([format.path, format.version, format.code]).toEqual(['/tmp/x', 3, 'index-format']);
    const provider = new ProviderError('openai', 'rate limited', { status: 429, retryable: true });
    expect([provider.status, provider.retryable]).toEqual([429, true]);
  });

  it('throws an AbortError only for an aborted signal', () => {
    const controller = new AbortController();
    expect(() => throwIfAborted(controller.signal)).not.toThrow();
    controller.abort();
    expect(() => throwIfAborted(controller.signal)).toThrow(AbortError);
  });
});
