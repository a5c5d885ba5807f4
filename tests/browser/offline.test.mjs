// Offline after the first load (web/sw.js): visit the demo once, then take the network away (playwright's
// offline mode, and the server itself is stopped) and reload: the page, its scripts, the WebAssembly builds and
// the model all come from the browser's caches, and it translates as before. The attention lab works too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';

requireFile(path.join(root, 'web', 'models', 'multi30k-en-de.safetensors'));
const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const browser = await launch();
after(() => browser.close());

const state = (page, key, value) =>
  page.waitForFunction(([k, v]) => document.body.dataset[k] === v, [key, value], { timeout: 120000 });

async function translate(page, text) {
  await page.fill('#source-text', text);
  await page.focus('#source-text');
  await page.keyboard.press('Enter');
  await state(page, 'translateState', 'done');
  return (await page.textContent('#output-text')).trim();
}

test('the demo and the lab work offline after the first visit', async () => {
  const server = await serve(root);
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const sentence = 'Two young men are playing soccer in a park.';

  await page.goto(`${server.url}/web/index.html`);
  await state(page, 'modelState', 'ready');
  assert.equal(await page.getAttribute('body', 'data-model-source'), 'network');
  const online = await translate(page, sentence);
  // The service worker is installed (its precache filled) and active.
  assert.equal(await page.evaluate(async () => !!(await navigator.serviceWorker.ready).active), true);
  const cached = await page.evaluate(async () => (await (await caches.open('attend-app-v1')).keys()).map((r) => new URL(r.url).pathname));
  for (const file of ['/web/index.html', '/web/app.js', '/web/lab.html', '/wasm/attend.js', '/wasm/dist/attend-core-simd.wasm',
    '/wasm/dist/attend-lab-simd.wasm', '/web/models/models.json']) {
    assert.ok(cached.includes(file), `${file} is not in the offline cache (${cached.join(', ')})`);
  }

  await context.setOffline(true);
  await server.close();
  await page.reload();
  await state(page, 'modelState', 'ready');
  // (The model comes from the page's model cache, or from the service worker's copy of it when models.json
  // gives a size that differs from the cached file's: either way, not from the network.)
  assert.equal(await page.evaluate(() => !!navigator.serviceWorker.controller), true, 'the page is not served by the service worker');
  assert.equal(await translate(page, sentence), online);
  await page.screenshot({ path: path.join(artifacts, 'offline-translate.png') });

  await page.goto(`${server.url}/web/lab.html`);
  await page.waitForFunction(() => document.body.dataset.labState === 'ready', null, { timeout: 60000 });
  assert.deepEqual(errors, []);
  await context.close();
});
