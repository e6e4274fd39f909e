/**
 * Issue 25, item 14: a server busy with queries that keep the CPU busy (streamed NodeRAG answers
 * with the offline reader) still accepts new connections and serves queries in arrival order. Node
 * accepts one new connection per turn of its event loop; when every ready request's retrieval and
 * answer ran in the turn that read it, a turn with 20 busy connections lasted seconds and the 32nd
 * connection of a load test waited over 10 s. Each step that keeps the CPU busy (a retrieval, an
 * answer) now starts in a turn of its own, in arrival order.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/busy-server.ts', import.meta.url));
/** How long each retrieval and each answer keeps the server's CPU busy. */
const SPIN_MS = 120;

let child: ChildProcess;
let url: URL;
beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', fixture, String(SPIN_MS)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  url = new URL(
    await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk) => {
        out += chunk;
        const found = / at (http:\/\/\S+)/.exec(out);
        if (found) resolve(found[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the busy server exited with ${code}`)));
    }),
  );
}, 60_000);
afterAll(() => {
  child?.kill('SIGTERM');
});

/** One request; resolves with its status, body and how long it took. */
function request(
  agent: http.Agent | false,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; ms: number; done: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => {
          const done = performance.now();
          resolve({ status: res.statusCode ?? 0, text, ms: done - started, done });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

it('accepts a new connection within a step or two while ten busy queries wait, and answers every query', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  try {
    // Ten open connections, as a load test's.
    await Promise.all(Array.from({ length: 10 }, () => request(agent, 'GET', '/healthz')));
    // Ten queries at once: each keeps the CPU busy 2 × SPIN_MS (retrieval, then the answer).
    const queries = Array.from({ length: 10 }, (_, i) =>
      request(agent, 'POST', '/v1/query', { question: `question ${i}`, answer: true, stream: i % 2 === 0 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 40));
    // A new connection meanwhile: accepted and answered after the step running now, not after all ten.
    const fresh = await request(false, 'GET', '/healthz');
    const done = await Promise.all(queries);
    expect(done.map((d) => d.status)).toEqual(Array(10).fill(200));
    for (const d of done) expect(d.text).toContain('An answer.');
    expect(fresh.status).toBe(200);
    // All ten take 20 × SPIN_MS = 2.4 s of CPU; the new connection waits a step or two (≤ 0.24 s
    // each), with room for a loaded machine.
    expect(fresh.ms).toBeLessThan(8 * SPIN_MS);
  } finally {
    agent.destroy();
  }
}, 60_000);
