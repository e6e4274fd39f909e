import { InvalidArgumentError, ProviderError } from '@grag/core';
import { describe, expect, it } from 'vitest';
import { pgVectorIndexFactory, postgresStore } from '../src/index.js';
import { freePort } from './debian-server.js';

describe('errors of an unusable database', () => {
  it('says in one line that an unreachable database cannot be reached, for every operation', async () => {
    const port = await freePort(); // nothing listens there
    const url = `postgres://grag:secret@127.0.0.1:${port}/rag`;
    const store = postgresStore({ url, index: 'docs', connectTimeoutMs: 2000 });
    const vectors = pgVectorIndexFactory({
      url,
      index: 'docs',
      collection: 'chunks',
      connectTimeoutMs: 2000,
    });
    try {
      const expected = `@grag/postgres: cannot reach PostgreSQL at postgres://grag@127.0.0.1:${port}/rag (ECONNREFUSED); check the host and port in the URL and that the server is running.`;
      // Each started only when the one before has failed: a rejection nobody awaits yet would be unhandled.
      const attempts = [
        () => store.target(),
        () => store.open(),
        () =>
          store.writeVersion({ method: 'm', formatVersion: 1, params: {}, providers: {} }, async () => {}),
        () => vectors.create({ dimensions: 2 }),
      ];
      for (const attempt of attempts) {
        const error = await attempt().catch((e: unknown) => e);
        expect(ProviderError.isInstance(error), String(error)).toBe(true);
        expect((error as ProviderError).message).toBe(expected);
        expect((error as ProviderError).retryable).toBe(true);
        expect((error as ProviderError).provider).toBe('@grag/postgres');
      }
    } finally {
      await store.close();
      await vectors.close();
    }
  });

  it('refuses a URL that is not one, without echoing its password', () => {
    const error = (() => {
      try {
        postgresStore({ url: 'not a url with password hunter2', index: 'docs' });
      } catch (e) {
        return e;
      }
    })();
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).argument).toBe('url');
    expect((error as Error).message).toBe(
      'postgresStore: "<invalid url>" is not a URL; use postgres://user:password@host:5432/database.',
    );
  });
});
