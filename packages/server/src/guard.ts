/**
 * The server's defences against web pages in the user's browser: a `Host` allow-list (a page on a
 * DNS-rebinding name reaches the server with that name as its `Host`), an `Origin` check (a page of
 * another origin may send requests, even where it cannot read the answer), CORS only for origins
 * configured by name, and JSON bodies only (the content types a page may send without asking
 * first, text/plain and the form types, are refused).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { InvalidArgumentError } from '@grag/core';
import type { Context, MiddlewareHandler } from 'hono';
import { HttpError } from './errors.js';

/** Where `serve` listens; it hands this to the app with every request, under {@link BINDING}. */
export interface Binding {
  /** The host it was asked to bind, as given. */
  readonly host: string;
  /** The port it listens on (the real one, also when `0` was asked). */
  port: number;
  /** Whether `host` is a loopback address or a name of one. */
  readonly loopback: boolean;
}

/** The key of the {@link Binding} in the env `serve` passes to `app.fetch`. */
export const BINDING: unique symbol = Symbol('grag.server.binding');

/** A host name or address (IPv6 in brackets), lower case, and a port if one was given. */
interface HostName {
  name: string;
  port: number | undefined;
}

const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9._-]*[a-z0-9_])?)(?::(\d{1,5}))?$/;

/** `value` as a {@link HostName}, or `undefined` when it is not `name`, `name:port`, `[v6]` or `[v6]:port`. */
function parseHost(value: string): HostName | undefined {
  const match = HOST.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65535) return undefined;
  const name = match[1]!;
  if (name.startsWith('[') && isIP(name.slice(1, -1)) !== 6) return undefined;
  return { name, port };
}

/** `host` as a `Host` header names it: lower case, an IPv6 address in brackets. */
function hostName(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) === 6 ? `[${bare}]` : bare;
}

/** The names every server bound to loopback answers to. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether `address` (an IP address) is a loopback one: 127.0.0.0/8, ::1, or 127.x mapped into IPv6. */
function isLoopbackAddress(address: string): boolean {
  const bare = address.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) return false;
  return LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Whether binding `host` serves the loopback interface only: a loopback address (`127.0.0.1`,
 * `::1`, any of 127.0.0.0/8), `localhost`, or a name all of whose addresses are loopback ones.
 * `0.0.0.0`, `::`, an empty host and any other address are not. Rejects with an
 * `InvalidArgumentError` when `host` is a name that does not resolve.
 */
export async function isLoopbackHost(host: string): Promise<boolean> {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (bare === '') return false;
  if (isIP(bare) !== 0) return isLoopbackAddress(bare);
  if (bare === 'localhost') return true;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(bare, { all: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new InvalidArgumentError('host', `Cannot resolve host "${host}" (${code}).`, { cause: error });
  }
  return addresses.length > 0 && addresses.every((a) => isLoopbackAddress(a.address));
}

/** The checked `allowedHosts` option. */
function checkAllowedHosts(value: unknown): HostName[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError(
      'allowedHosts',
      'createGragServer: allowedHosts must be an array of host names, e.g. ["grag.example.com"].',
    );
  }
  return value.map((entry) => {
    const parsed = typeof entry === 'string' ? parseHost(entry) : undefined;
    if (!parsed) {
      throw new InvalidArgumentError(
        'allowedHosts',
        `Bad allowed host ${JSON.stringify(entry)}: give a host name or address with an optional :port, e.g. grag.example.com or grag.example.com:8443.`,
      );
    }
    return parsed;
  });
}

/** The checked `cors` option: exact origins, as browsers send them. */
function checkCors(value: unknown): Set<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError(
      'cors',
      'createGragServer: cors must be an array of origins, e.g. ["https://app.example.com"].',
    );
  }
  return new Set(
    value.map((entry) => {
      let origin: string | undefined;
      if (typeof entry === 'string') {
        try {
          const url = new URL(entry);
          const given = entry.replace(/\/$/, '');
          if (
            (url.protocol === 'http:' || url.protocol === 'https:') &&
            url.origin.toLowerCase() === given.toLowerCase()
          )
            origin = url.origin;
        } catch {
          origin = undefined;
        }
      }
      if (origin === undefined) {
        throw new InvalidArgumentError(
          'cors',
          `Bad CORS origin ${JSON.stringify(entry)}: give an exact origin, scheme://host[:port] without a path, e.g. https://app.example.com.`,
        );
      }
      return origin;
    }),
  );
}

/** What the guard is configured with. */
export interface GuardOptions {
  allowedHosts?: readonly string[] | undefined;
  cors?: readonly string[] | undefined;
}

/** The CORS request headers a preflight may ask for; the API reads no other. */
const CORS_HEADERS = 'authorization, content-type, accept';

function binding(c: Context): Binding | undefined {
  const env = c.env as Record<PropertyKey, unknown> | undefined;
  return env?.[BINDING] as Binding | undefined;
}

/**
 * The middleware every request passes first (see the file's comment). A request is refused:
 * - 421 `misdirected_request` when its `Host` (or the host of an absolute request target) is not
 *   an allowed one. Allowed: `localhost`, `127.0.0.1`, `[::1]` and the host the server is bound
 *   to, each without a port or with the server's port, and every `allowedHosts` entry (without a
 *   port: with any port). The check applies when the server is bound to loopback, when
 *   `allowedHosts` is given, and when the binding is not known (the app run without `serve`);
 *   a server bound to another address (which needs a token) answers any `Host` otherwise.
 * - 403 `forbidden_origin` when it carries an `Origin` that is neither the origin it was sent to
 *   (its scheme and the `Host` it names) nor one of `cors`; and when it carries no `Origin` but
 *   `Sec-Fetch-Site: cross-site` or `same-site` (a page of another origin, or another port of
 *   this host, loading it as an image, a script or a no-cors fetch), unless it is a top-level GET
 *   navigation (a link the user follows).
 * A preflight (`OPTIONS` with `Access-Control-Request-Method`) from a `cors` origin is answered
 * 204 with that origin; the answers to a `cors` origin carry `Access-Control-Allow-Origin` with
 * it. No other answer carries any `Access-Control-*` header.
 */
export function browserGuard(options: GuardOptions): MiddlewareHandler {
  const extra = checkAllowedHosts(options.allowedHosts);
  const cors = checkCors(options.cors);

  function hostAllowed(value: string, bound: Binding | undefined): boolean {
    const given = parseHost(value);
    if (!given) return false;
    if (extra?.some((h) => h.name === given.name && (h.port === undefined || h.port === given.port)))
      return true;
    const names = new Set(LOOPBACK_NAMES);
    if (bound) {
      const own = hostName(bound.host);
      if (own !== '' && own !== '0.0.0.0' && own !== '[::]') names.add(own);
    }
    if (!names.has(given.name)) return false;
    // Without a known binding the port is not known either: any port of a loopback name.
    return given.port === undefined || bound === undefined || given.port === bound.port;
  }

  return async (c, next) => {
    const bound = binding(c);
    const restricted = extra !== undefined || bound === undefined || bound.loopback;
    const header = c.req.header('host');
    const target = new URL(c.req.url).host;
    if (restricted) {
      for (const host of header === undefined ? [target] : [header, target]) {
        if (!hostAllowed(host, bound)) {
          throw new HttpError(
            421,
            'misdirected_request',
            `This server does not answer to the host ${JSON.stringify(host.slice(0, 200))} (a guard against DNS rebinding); to serve under that name, allow it with allowedHosts (grag serve: --allowed-host).`,
          );
        }
      }
    }
    const origin = c.req.header('origin');
    let corsOrigin: string | undefined;
    const site = c.req.header('sec-fetch-site');
    if (origin === undefined && (site === 'cross-site' || site === 'same-site') && !topLevelNavigation(c)) {
      // A request a page of another origin made without an Origin (a no-cors GET: an image, a
      // script, fetch with mode: 'no-cors'). Its answer is opaque to the page, but not to every
      // side channel; a link the user follows (a top-level GET navigation) still opens.
      throw new HttpError(
        403,
        'forbidden_origin',
        `Requests that pages of other origins make are refused (Sec-Fetch-Site: ${site}): this server answers its own pages only (allow an origin with cors, grag serve: --cors <origin>).`,
      );
    }
    if (origin !== undefined && !sameOrigin(origin, header ?? target)) {
      if (!cors.has(origin)) {
        throw new HttpError(
          403,
          'forbidden_origin',
          `Requests from the origin ${JSON.stringify(origin.slice(0, 200))} are refused: this server answers its own pages only (allow another origin with cors, grag serve: --cors <origin>).`,
        );
      }
      corsOrigin = origin;
      if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined) {
        return c.body(null, 204, {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': 'GET, POST, DELETE',
          'Access-Control-Allow-Headers': CORS_HEADERS,
          'Access-Control-Max-Age': '600',
          Vary: 'Origin',
        });
      }
    }
    await next();
    // With origins configured, the answer depends on the Origin: a cache must keep them apart.
    if (cors.size > 0) c.res.headers.append('Vary', 'Origin');
    if (corsOrigin !== undefined) c.res.headers.set('Access-Control-Allow-Origin', corsOrigin);
  };
}

/** Whether the request is the browser opening a page in a tab (its result shown to the user, not to a page). */
function topLevelNavigation(c: Context): boolean {
  return (
    c.req.method === 'GET' &&
    c.req.header('sec-fetch-mode') === 'navigate' &&
    c.req.header('sec-fetch-dest') === 'document'
  );
}

/** Whether `origin` is the origin of a page served by the host `host` (with `http` or `https`). */
function sameOrigin(origin: string, host: string): boolean {
  try {
    const page = new URL(origin);
    if (page.protocol !== 'http:' && page.protocol !== 'https:') return false;
    if (page.origin !== origin) return false;
    return page.host === new URL(`${page.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

/**
 * The 415 for a request body that is not declared `application/json` (optionally with
 * `charset=utf-8`), or `undefined` when it is. The content types a page may send to another origin
 * without a preflight (text/plain, form data) are refused this way.
 */
export function unsupportedBody(contentType: string | undefined): HttpError | undefined {
  const [type = '', ...params] = (contentType ?? '').split(';').map((p) => p.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/^"|"$/g, '');
  if (type === 'application/json' && (charset === undefined || charset === 'utf-8' || charset === 'utf8'))
    return undefined;
  const got = contentType === undefined ? 'none' : JSON.stringify(oneLineHeader(contentType));
  return new HttpError(
    415,
    'unsupported_media_type',
    `Send the body as JSON with Content-Type: application/json (got ${got}).`,
  );
}

function oneLineHeader(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}
