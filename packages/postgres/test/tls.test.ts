/**
 * TLS with libpq's `sslmode` semantics, against Debian's PostgreSQL with `ssl=on` and a self-signed
 * certificate (made by `openssl req -x509`): `require` and `prefer` encrypt without checking the
 * certificate (as psql does), `verify-ca` / `verify-full` check it against `sslrootcert`, `disable`
 * is plain; `prefer` falls back to plain on a server without TLS; failures are one line naming the
 * URL without its password; `pg`'s sslmode warning is never emitted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, ProviderError } from '@grag/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type PgDatabase } from '../src/db.js';
import { postgresStore } from '../src/index.js';
import { tlsPlan } from '../src/tls.js';
import {
  type DebianServer,
  debianPostgresBin,
  selfSignedCertificate,
  startDebianServer,
} from './debian-server.js';

describe('tlsPlan', () => {
  const base = 'postgres://u:secret@db.example:5432/rag';
  it('reads sslmode as libpq does and takes the TLS parameters out of the URL pg sees', () => {
    expect(tlsPlan('t', `${base}?sslmode=require`, {})).toMatchObject({
      connectionString: base,
      mode: 'require',
      ssl: { rejectUnauthorized: false },
    });
    expect(tlsPlan('t', `${base}?sslmode=prefer&application_name=x`, {})).toMatchObject({
      connectionString: `${base}?application_name=x`,
      mode: 'prefer',
      ssl: { rejectUnauthorized: false },
      fallback: false,
    });
    expect(tlsPlan('t', `${base}?sslmode=allow`, {})).toMatchObject({
      mode: 'allow',
      ssl: false,
      fallback: { rejectUnauthorized: false },
    });
    expect(tlsPlan('t', `${base}?sslmode=disable`, {})).toMatchObject({ ssl: false });
    expect(tlsPlan('t', `${base}?sslmode=verify-full&sslrootcert=system`, {}).ssl).toMatchObject({
      rejectUnauthorized: true,
    });
    const verifyCa = tlsPlan('t', `${base}?sslmode=verify-ca&sslrootcert=system`, {}).ssl;
    expect(verifyCa && typeof verifyCa.checkServerIdentity).toBe('function');
    // no sslmode: PGSSLMODE, else plain (the URL is passed on as it is)
    expect(tlsPlan('t', base, {})).toEqual({ connectionString: base, mode: 'disable', ssl: false });
    expect(tlsPlan('t', base, { PGSSLMODE: 'require' }).mode).toBe('require');
    expect(tlsPlan('t', `${base}?sslmode=disable`, { PGSSLMODE: 'require' }).mode).toBe('disable');
    // pg's own spellings
    expect(tlsPlan('t', `${base}?ssl=true`, {}).mode).toBe('verify-full');
    expect(tlsPlan('t', `${base}?sslmode=no-verify`, {}).mode).toBe('require');
  });

  it('refuses an unknown sslmode and an unreadable certificate file in one line, without the password', () => {
    for (const [url, pattern] of [
      [
        `${base}?sslmode=required`,
        /^t: sslmode=required is not one of disable, allow, prefer, require, verify-ca, verify-full\.$/,
      ],
      [
        `${base}?sslmode=verify-full&sslrootcert=/nonexistent/root.crt`,
        /^t: cannot read sslrootcert=\/nonexistent\/root\.crt \(ENOENT\); give the path of a PEM file the process can read\.$/,
      ],
    ] as const) {
      const error = (() => {
        try {
          tlsPlan('t', url, {});
        } catch (e) {
          return e;
        }
      })();
      expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(pattern);
      expect((error as Error).message).not.toContain('secret');
    }
  });
});

const bin = debianPostgresBin();
const reason = bin
  ? `TLS on Debian PostgreSQL (${bin}) with a self-signed certificate`
  : 'SKIPPED: no Debian PostgreSQL server (/usr/lib/postgresql/*/bin/initdb); apt-get install -y postgresql to run it';

describe.skipIf(bin === undefined)(reason, () => {
  let tls: DebianServer;
  let plain: DebianServer;
  let dir: string;
  let wrongCa: string;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  const open: PgDatabase[] = [];

  beforeAll(async () => {
    process.on('warning', onWarning);
    [tls, plain] = await Promise.all([startDebianServer(bin!, { tls: true }), startDebianServer(bin!)]);
    dir = await mkdtemp(join(tmpdir(), 'grag-tls-'));
    wrongCa = (await selfSignedCertificate(dir, 'other')).cert;
  }, 120_000);
  afterAll(async () => {
    process.off('warning', onWarning);
    for (const db of open) await db.close().catch(() => {});
    await Promise.all([tls?.stop(), plain?.stop()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  const db = (url: string) => {
    const made = connect('test', { url });
    open.push(made);
    return made;
  };
  /** Whether the connection `url` makes is encrypted, as the server sees it. */
  const encrypted = async (url: string) => {
    const rows = await db(url).query<{ ssl: boolean }>(
      'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
    );
    return rows.rows[0]!.ssl;
  };
  const failure = async (url: string) => {
    const store = postgresStore({ url, index: 'docs' });
    try {
      return await store.target().then(
        () => undefined,
        (e: unknown) => e,
      );
    } finally {
      await store.close();
    }
  };

  it('sslmode=require and prefer encrypt without checking the self-signed certificate, as psql does', async () => {
    expect(await encrypted(`${tls.url}?sslmode=require`)).toBe(true);
    expect(await encrypted(`${tls.url}?sslmode=prefer`)).toBe(true);
    const store = postgresStore({ url: `${tls.url}?sslmode=require`, index: 'docs' });
    try {
      expect(await store.target()).toBe('absent');
    } finally {
      await store.close();
    }
  });

  it('verify-ca and verify-full connect with the certificate as sslrootcert', async () => {
    const ca = encodeURIComponent(tls.certFile!);
    expect(await encrypted(`${tls.url}?sslmode=verify-full&sslrootcert=${ca}`)).toBe(true);
    expect(await encrypted(`${tls.url}?sslmode=verify-ca&sslrootcert=${ca}`)).toBe(true);
    // require with a root certificate checks it, as libpq does
    expect(await encrypted(`${tls.url}?sslmode=require&sslrootcert=${ca}`)).toBe(true);
  });

  it('disable, and no sslmode, connect in plain text; prefer falls back to plain on a server without TLS', async () => {
    expect(await encrypted(`${tls.url}?sslmode=disable`)).toBe(false);
    expect(await encrypted(tls.url)).toBe(false);
    expect(await encrypted(`${plain.url}?sslmode=prefer`)).toBe(false);
  });

  it('verify-full with the wrong CA fails in one line naming the URL without the password and what to do', async () => {
    const url = `${tls.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(wrongCa)}`;
    const error = await failure(url);
    expect(ProviderError.isInstance(error), String(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).not.toContain('horse');
    expect(message).toMatch(
      /^@grag\/postgres: the TLS certificate of PostgreSQL at postgres:\/\/grag_test@127\.0\.0\.1:\d+\/postgres\?sslmode=verify-full&sslrootcert=\S+ is not signed by a trusted CA \(self-signed certificate\); put the CA that signed the server's certificate in the URL as sslrootcert=\/path\/to\/root\.crt, or use sslmode=require to encrypt without checking the certificate \(as psql does\)\.$/,
    );
    expect((error as ProviderError).retryable).toBe(false);
  });

  it('verify-full by a host name the certificate does not list fails in one line', async () => {
    const ca = encodeURIComponent(tls.certFile!);
    // 127.0.0.2 reaches the same loopback server; the certificate lists localhost and 127.0.0.1
    const url = `${tls.url.replace('127.0.0.1', '127.0.0.2')}?sslmode=verify-full&sslrootcert=${ca}`;
    const error = await failure(url);
    expect(ProviderError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^@grag\/postgres: the TLS certificate of PostgreSQL at postgres:\/\/grag_test@127\.0\.0\.2:\d+\/postgres\?\S+ is not for this host \([^\n]*\); connect by a name the certificate lists, or use sslmode=verify-ca to check the CA but not the host name\.$/,
    );
  });

  it('require against a server without TLS fails in one line', async () => {
    const error = await failure(`${plain.url}?sslmode=require`);
    expect(ProviderError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^@grag\/postgres: PostgreSQL at postgres:\/\/grag_test@127\.0\.0\.1:\d+\/postgres\?sslmode=require does not accept TLS connections \(sslmode=require\); turn on ssl in the server's postgresql\.conf, or use sslmode=prefer or sslmode=disable\.$/,
    );
  });

  it("never emits pg's sslmode warning", () => {
    expect(warnings.filter((w) => /ssl/i.test(w))).toEqual([]);
  });
});
