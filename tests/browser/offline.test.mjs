// Offline after the first load (web/sw.js): visit the demo once, then take the network away (playwright's
// offline mode, and the server itself is stopped) and reload: the page, its scripts, the WebAssembly builds and
// the model all come from the browser's caches, and it translates as before. The attention lab works too. The
// model is stored once, in the library's cache, and a second visit asks the network for no model file.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';

// The page opens on the first model of its list.
const defaultModel = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models[0];
requireFile(path.join(root, 'web', 'models', defaultModel.file));
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

test('the demo and the lab work offline after the first visit', async (t) => {
  const server = await serve(root);
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  t.after(() => Promise.all([context.close(), server.close()]));   // also when an assertion fails midway
  const page = await context.newPage();
  const errors = watchErrors(page);
  const sentence = 'Two young men are playing soccer in a park.';

  // A model cache left by an older version of the page, which the service worker empties.
  await page.goto(`${server.url}/tests/browser/pages/worker.html`);
  await page.evaluate(async () => {
    await (await caches.open('attend-models-v1')).put('/web/models/old.safetensors', new Response(new Uint8Array(1000)));
  });

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

  // The model is kept once, by the library, in its cache: no other cache (the service worker's) holds it again.
  await page.waitForFunction(async () => !(await caches.keys()).includes('attend-models-v1'), null, { timeout: 20000 });
  const stores = await page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      out[name] = [];
      for (const request of await cache.keys()) {
        const response = await cache.match(request);
        out[name].push({ path: new URL(request.url).pathname, bytes: (await response.arrayBuffer()).byteLength });
      }
    }
    return out;
  });
  const models = Object.fromEntries(Object.entries(stores).map(([name, entries]) =>
    [name, entries.filter((e) => e.path.endsWith('.safetensors'))]).filter(([, e]) => e.length));
  assert.deepEqual(Object.keys(models), ['attend-models'], `models are kept in: ${Object.keys(models).join(', ')}`);
  assert.deepEqual(models['attend-models'], [{ path: `/web/models/${defaultModel.file}`, bytes: defaultModel.size }]);
  for (const [name, entries] of Object.entries(stores)) {
    if (name === 'attend-models') continue;
    assert.ok(entries.every((e) => e.bytes !== defaultModel.size), `${name} holds something of the model's size`);
  }

  // A second visit needs no network for the model: the server refuses model files, and none is asked for.
  server.refuse = (p) => p.endsWith('.safetensors');
  const before = server.requests.length;
  await page.reload();
  await state(page, 'modelState', 'ready');
  assert.equal(await page.getAttribute('body', 'data-model-source'), 'cache');
  assert.match(await page.textContent('#progress-text'), /ready \(from the browser cache, /);
  assert.deepEqual(server.requests.slice(before).filter((p) => p.endsWith('.safetensors')), []);
  assert.equal(await translate(page, sentence), online);
  server.refuse = null;

  await context.setOffline(true);
  await server.close();
  await page.reload();
  await state(page, 'modelState', 'ready');
  assert.equal(await page.evaluate(() => !!navigator.serviceWorker.controller), true, 'the page is not served by the service worker');
  assert.equal(await page.getAttribute('body', 'data-model-source'), 'cache');
  assert.equal(await translate(page, sentence), online);
  await page.screenshot({ path: path.join(artifacts, 'offline-translate.png') });

  await page.goto(`${server.url}/web/lab.html`);
  await page.waitForFunction(() => document.body.dataset.labState === 'ready', null, { timeout: 60000 });
  assert.deepEqual(errors, []);
});
