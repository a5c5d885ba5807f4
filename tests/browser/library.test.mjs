// The library in Chromium, on the page's thread (attend.js) and in a worker (attend-client.js), with a shipped
// model: Chromium's own Cache API keeps the model ('attend-models', shared by the page and its workers), a second
// load asks the server for nothing, and loadedFrom says which; an AbortSignal stops a load and a translation;
// translate() takes an array; info() has camelCase keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { startSession } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

const modelPath = '/web/models/multi30k-en-de-cased.safetensors';
requireFile(path.join(root, modelPath));
const { server, browser } = await startSession(root);
const modelRequests = () => server.requests.filter((p) => p === modelPath).length;

test('attend.js and AttendWorker in Chromium: the model cache, loadedFrom, abort, arrays, camelCase info', async () => {
  const page = await browser.newPage();
  const errors = watchErrors(page);
  await page.goto(`${server.url}/tests/browser/pages/worker.html`);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'ready');

  const first = await page.evaluate(async (url) => {
    const { Attend, MODEL_CACHE } = await import('/wasm/attend.js');
    const sources = new Set();
    const t = await Attend.load(url, { onProgress: (done, total, from) => sources.add(from) });
    const cached = await (await caches.open(MODEL_CACHE)).match(new URL(url, location.href).href);
    const info = t.info();
    const texts = ['A dog runs on the beach.', 'Two young men are playing soccer in a park.'];
    const all = (await t.translate(texts, { beam: 2 })).map((r) => r.text);
    const one = [];
    for (const s of texts) one.push((await t.translate(s, { beam: 2 })).text);
    let aborted = null;
    try {
      await t.translate(texts[0], { signal: AbortSignal.abort(new Error('stopped')) });
    } catch (e) { aborted = e.message; }
    t.dispose();
    return { loadedFrom: t.loadedFrom, sources: [...sources], cachedBytes: cached && (await cached.arrayBuffer()).byteLength,
      fileBytes: info.fileBytes, sourceLanguage: info.sourceLanguage, lengthPenalty: info.decoding.lengthPenalty, all, one, aborted };
  }, modelPath);
  assert.equal(first.loadedFrom, 'network');
  assert.deepEqual(first.sources, ['network']);
  assert.equal(first.cachedBytes, first.fileBytes, 'the model is not in the Cache API');
  assert.equal(first.sourceLanguage, 'en');
  assert.equal(typeof first.lengthPenalty, 'number');
  assert.deepEqual(first.all, first.one);
  assert.equal(first.aborted, 'stopped');
  assert.equal(modelRequests(), 1);

  // The worker reads the cache the page filled: no download.
  const worker = await page.evaluate(async (url) => {
    const { AttendWorker } = await import('/wasm/attend-client.js');
    const sources = [];
    const w = await AttendWorker.load(url, { onProgress: (done, total, from) => sources.push(from) });
    const texts = ['A dog runs on the beach.', 'A little girl is climbing a wooden staircase.'];
    const all = (await w.translate(texts, { beam: 2 })).map((r) => r.text);
    // A request aborted while it waits behind another is never run.
    const c = new AbortController();
    const running = w.translate(texts[1], { beam: 2 });
    const waiting = w.translate(texts[0], { beam: 2, signal: c.signal });
    c.abort(new Error('replaced'));
    const outcome = await waiting.then(() => 'translated', (e) => e.message);
    await running;
    const info = w.info();
    await w.dispose();
    return { loadedFrom: w.loadedFrom, sources, all, outcome, targetLanguage: info.targetLanguage };
  }, modelPath);
  assert.equal(worker.loadedFrom, 'cache');
  assert.deepEqual(worker.sources, ['cache']);
  assert.equal(worker.all[0], first.all[0]);
  assert.equal(worker.outcome, 'replaced');
  assert.equal(worker.targetLanguage, 'de');
  assert.equal(modelRequests(), 1, 'the worker downloaded the model again');

  // A load aborted during its download rejects with the reason; cache: false downloads and keeps nothing new.
  const aborts = await page.evaluate(async (url) => {
    const { Attend, MODEL_CACHE } = await import('/wasm/attend.js');
    await caches.delete(MODEL_CACHE);
    const c = new AbortController();
    let outcome;
    try {
      await Attend.load(url, { signal: c.signal, onProgress: () => c.abort(new Error('left the page')) });
      outcome = 'loaded';
    } catch (e) { outcome = e.message; }
    const afterAbort = await (await caches.open(MODEL_CACHE)).keys();
    const t = await Attend.load(url, { cache: false });
    const afterUncached = await (await caches.open(MODEL_CACHE)).keys();
    t.dispose();
    return { outcome, afterAbort: afterAbort.length, loadedFrom: t.loadedFrom, afterUncached: afterUncached.length };
  }, modelPath);
  assert.equal(aborts.outcome, 'left the page');
  assert.equal(aborts.afterAbort, 0, 'an aborted download was cached');
  assert.equal(aborts.loadedFrom, 'network');
  assert.equal(aborts.afterUncached, 0);
  assert.deepEqual(errors, []);
  await page.close();
});
