/**
 * check-serve-explorer: what a user of a fresh clone gets from the README's install command and then
 * `grag serve` — the explorer page. Indexes the demo corpus (bm25, offline) into a temporary folder,
 * starts `grag serve` on a free port as the root `grag` script runs it (`node scripts/grag.mjs`),
 * fetches `/` (it must be the explorer page, not the "explorer not built" page), then opens it in
 * headless Chromium, asks the demo's question and waits for an answer naming Ilse Marren.
 *
 *   node scripts/check-serve-explorer.mjs      exit code 1 (one line on stderr) when it is not so
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The browser driver the server's own tests use (a devDependency of @grag/server).
const { chromium } = createRequire(join(ROOT, 'packages', 'server', 'package.json'))('playwright-core');
const GRAG = join(ROOT, 'scripts', 'grag.mjs');
const QUESTION = 'In which town was the marine biologist who received the Brandt Medal in 2022 born?';

function fail(message) {
  console.error(`check-serve-explorer: ${message}`);
  process.exitCode = 1;
}

/** Run grag to completion; its stderr when it fails. */
function grag(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GRAG, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`grag ${args[0]} exited ${code}: ${err.trim()}`)),
    );
  });
}

const dir = mkdtempSync(join(tmpdir(), 'grag-serve-check-'));
let server;
let browser;
try {
  await grag(['index', 'packages/cli/demo', '--method', 'bm25', '--out', join(dir, 'index')]);
  server = spawn(process.execPath, [GRAG, 'serve', join(dir, 'index'), '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout.on('data', (d) => (out += d));
  server.stderr.on('data', (d) => (out += d));
  let url;
  for (let i = 0; i < 300 && !url; i++) {
    url = / at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    if (!url) await new Promise((r) => setTimeout(r, 50));
  }
  if (!url) throw new Error(`grag serve printed no address: ${out.trim()}`);
  const page = await fetch(`${url}/`);
  const html = await page.text();
  if (!page.ok || !/assets\/explorer\.js/.test(html))
    throw new Error(`GET / is not the explorer page (HTTP ${page.status}): ${html.slice(0, 200)}`);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const tab = await browser.newPage();
  const problems = [];
  tab.on('pageerror', (e) => problems.push(e.message));
  await tab.goto(url);
  await tab.waitForSelector('form[data-ready]', { timeout: 30_000 });
  await tab.getByLabel('Question', { exact: true }).fill(QUESTION);
  await tab.getByRole('button', { name: 'Ask', exact: true }).click();
  await tab.waitForSelector('#results[data-state=done]', { timeout: 30_000 });
  const shown = (await tab.locator('#results').textContent()) ?? '';
  if (problems.length) throw new Error(`the page threw: ${problems.join('; ')}`);
  if (!shown.includes('Ilse Marren'))
    throw new Error(`the explorer's answer does not name Ilse Marren: ${shown.slice(0, 300)}`);
  console.log(`check-serve-explorer: ok (${url} shows the explorer and answers the demo question)`);
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
} finally {
  await browser?.close();
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
}
