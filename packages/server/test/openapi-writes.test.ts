/**
 * The OpenAPI document and the routes of named indexes and writes: what the live server answers
 * (the 202 job, the job, its events, a named query, the errors) conforms to the schema the document
 * gives for that route, status and content type.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEvents } from './helpers.js';
import { call, servedFolder } from './writes-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Doc = Record<string, any>;

const TOKEN = 'openapi-writes-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const served = servedFolder({ token: TOKEN });
let doc: Doc;

beforeAll(async () => {
  doc = (await (await fetch(new URL('/openapi.json', served.server.url))).json()) as Doc;
});

/** The errors of `body` against the document's schema for `method path`, `status`, `type`. */
function checker(document: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...document, $id: 'grag-openapi' });
  return (path: string, method: string, status: number, type: string, body: unknown): string[] => {
    const declared = document.paths[path]?.[method]?.responses?.[String(status)];
    if (!declared) return [`${method} ${path} documents no ${status} response`];
    const name = declared.$ref?.split('/').pop();
    const response = name ? document.components.responses[name] : declared;
    const schema = response.content?.[type]?.schema;
    if (!schema) return [`${method} ${path} ${status} documents no ${type} body`];
    const validate = ajv.compile({
      $ref: `grag-openapi#/components/schemas/${schema.$ref.split('/').pop()}`,
    });
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe('the write routes answer as the document says', () => {
  it('documents every write with 202 and a Job, behind the token', () => {
    for (const [path, method] of [
      ['/v1/indexes', 'post'],
      ['/v1/indexes/{name}/documents', 'post'],
      ['/v1/indexes/{name}/documents/{id}', 'delete'],
      ['/v1/indexes/{name}', 'delete'],
    ] as const) {
      const op = doc.paths[path][method];
      expect(op.responses['202'].content['application/json'].schema, `${method} ${path}`).toEqual({
        $ref: '#/components/schemas/Job',
      });
      expect(op.security).toEqual([{ bearer: [] }]);
    }
    for (const path of ['/v1/indexes/{name}/documents', '/v1/indexes'] as const) {
      expect(Object.keys(doc.paths[path].post.requestBody.content), path).toEqual([
        'application/json',
        'multipart/form-data',
      ]);
    }
    expect(doc.paths['/v1/indexes'].post.requestBody.content['multipart/form-data'].schema.required).toEqual([
      'name',
      'method',
    ]);
  });

  it('an upload, its job and its events, a named query and the errors conform', async () => {
    const check = checker(doc);
    const res = await call(
      served.server.url,
      'POST',
      '/v1/indexes/harbour/documents',
      { documents: [{ id: 'h-bell', text: 'The Veldt harbour bell rings at every high tide.' }] },
      auth,
    );
    expect(res.status).toBe(202);
    const job = await res.json();
    expect(check('/v1/indexes/{name}/documents', 'post', 202, 'application/json', job)).toEqual([]);
    const events = parseEvents(
      await (await fetch(new URL(`/v1/jobs/${job.id}/events`, served.server.url), { headers: auth })).text(),
    );
    expect(events.at(-1)?.event).toBe('end');
    for (const event of events) {
      expect(check('/v1/jobs/{id}/events', 'get', 200, 'text/event-stream', event)).toEqual([]);
    }
    const final = await (await call(served.server.url, 'GET', `/v1/jobs/${job.id}`, undefined, auth)).json();
    expect(final.status).toBe('done');
    expect(check('/v1/jobs/{id}', 'get', 200, 'application/json', final)).toEqual([]);
    const answer = await (
      await call(
        served.server.url,
        'POST',
        '/v1/indexes/harbour/query',
        { question: 'harbour bell tide' },
        auth,
      )
    ).json();
    expect(check('/v1/indexes/{name}/query', 'post', 200, 'application/json', answer)).toEqual([]);
    const list = await (
      await call(served.server.url, 'GET', '/v1/indexes/harbour/documents', undefined, auth)
    ).json();
    expect(check('/v1/indexes/{name}/documents', 'get', 200, 'application/json', list)).toEqual([]);
    const info = await (await call(served.server.url, 'GET', '/v1/indexes/harbour', undefined, auth)).json();
    expect(check('/v1/indexes/{name}', 'get', 200, 'application/json', info)).toEqual([]);
    const missing = await call(served.server.url, 'DELETE', '/v1/indexes/nowhere', undefined, auth);
    expect(missing.status).toBe(404);
    expect(check('/v1/indexes/{name}', 'delete', 404, 'application/json', await missing.json())).toEqual([]);
    const taken = await call(
      served.server.url,
      'POST',
      '/v1/indexes',
      { name: 'harbour', method: 'bm25', documents: [{ id: 'a', text: 'a' }] },
      auth,
    );
    expect(taken.status).toBe(409);
    expect(check('/v1/indexes', 'post', 409, 'application/json', await taken.json())).toEqual([]);
  });
});
