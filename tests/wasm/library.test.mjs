// attend.js as an embedder uses it: models downloaded over HTTP kept in the Cache API (a cut-short entry, or one
// of another size than the caller expects, is downloaded again; loadedFrom says which was used), AbortSignal on
// load and translate, arrays of sentences, and info() in camelCase beside the snake_case keys older callers read.
// Downloads go to a local HTTP server through Node's real fetch, which counts requests and sees a download
// stopped; Node has no Cache API, so a small in-memory one stands in for it on globalThis.caches, and attend.js's
// own cache code runs against it (the browser tests use Chromium's).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { smallModel } from './lib/small_model.mjs';
import { Attend, MODEL_CACHE } from '../../wasm/attend.js';

const modelBytes = new Uint8Array(fs.readFileSync(smallModel('f32')));

// Serves the model at /model/<anything>, counting requests per path. /slow/... sends it in 8 KiB pieces 20 ms
// apart and records whether the client went away before the end.
const requests = new Map();
const slow = { closedEarly: 0, finished: 0 };
let flakyUp = true;
const server = http.createServer((req, res) => {
  requests.set(req.url, (requests.get(req.url) ?? 0) + 1);
  if (req.url.startsWith('/model/')) {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': modelBytes.byteLength });
    res.end(Buffer.from(modelBytes));
  } else if (req.url.startsWith('/flaky/')) {
    // Up while flakyUp is true, then 503: a server that went away after the first download.
    if (flakyUp) res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': modelBytes.byteLength }).end(Buffer.from(modelBytes));
    else res.writeHead(503).end();
  } else if (req.url.startsWith('/slow/')) {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': modelBytes.byteLength });
    let at = 0;
    const timer = setInterval(() => {
      if (at >= modelBytes.byteLength) { clearInterval(timer); slow.finished++; res.end(); return; }
      res.write(Buffer.from(modelBytes.subarray(at, at + 8192)));
      at += 8192;
    }, 20);
    res.on('close', () => { if (at < modelBytes.byteLength) slow.closedEarly++; clearInterval(timer); });
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
after(() => server.close());

// The Cache API's shape as attend.js uses it: open(name) -> { match, put, delete }, entries are Responses.
class FakeCacheStorage {
  stores = new Map();
  async open(name) {
    if (!this.stores.has(name)) this.stores.set(name, new FakeCache());
    return this.stores.get(name);
  }
}
class FakeCache {
  entries = new Map();  // url -> { bytes, headers }
  async match(url) {
    const e = this.entries.get(String(url));
    return e && new Response(e.bytes.slice(), { headers: e.headers });
  }
  async put(url, response) {
    this.entries.set(String(url), { bytes: new Uint8Array(await response.arrayBuffer()), headers: [...response.headers] });
  }
  async delete(url) { return this.entries.delete(String(url)); }
}

async function withCaches(fn) {
  const storage = new FakeCacheStorage();
  globalThis.caches = storage;
  try {
    return await fn(storage);
  } finally {
    delete globalThis.caches;
  }
}

const sentence = 'A dog runs on the beach.';
const greedy = { beam: 1, attention: false };
const reference = await (async () => {
  const t = await Attend.load(modelBytes);
  const r = await t.translate(sentence, greedy);
  t.dispose();
  return r.text;
})();

test('a model loaded from a URL is kept in the Cache API: the second load does not download it', async () => {
  await withCaches(async (storage) => {
    const url = `${base}/model/cached.safetensors`;
    const progress = [];
    const first = await Attend.load(url, { onProgress: (done, total) => progress.push([done, total]) });
    assert.equal(requests.get('/model/cached.safetensors'), 1);
    assert.deepEqual(progress.at(-1), [modelBytes.byteLength, modelBytes.byteLength]);
    const entry = (await storage.open(MODEL_CACHE)).entries.get(url);
    assert.ok(entry, `nothing stored under ${url} in '${MODEL_CACHE}'`);
    assert.equal(entry.bytes.byteLength, modelBytes.byteLength);

    const second = await Attend.load(url, { onProgress: (done, total) => progress.push([done, total]) });
    assert.equal(requests.get('/model/cached.safetensors'), 1, 'the second load downloaded the model again');
    assert.deepEqual(progress.at(-1), [modelBytes.byteLength, modelBytes.byteLength], 'a cache hit reports its size');
    assert.equal((await second.translate(sentence, greedy)).text, reference);
    assert.equal(second.info().fileBytes, modelBytes.byteLength);
    first.dispose();
    second.dispose();
  });
});

test('loadedFrom and the third argument of onProgress say where the bytes came from', async () => {
  await withCaches(async () => {
    const url = `${base}/model/source.safetensors`;
    const from = [];
    const first = await Attend.load(url, { onProgress: (done, total, source) => from.push(source) });
    assert.equal(first.loadedFrom, 'network');
    assert.deepEqual([...new Set(from)], ['network']);
    from.length = 0;
    const second = await Attend.load(url, { onProgress: (done, total, source) => from.push(source) });
    assert.equal(second.loadedFrom, 'cache');
    assert.deepEqual(from, ['cache']);
    first.dispose();
    second.dispose();
  });
  const given = await Attend.load(modelBytes);
  assert.equal(given.loadedFrom, 'memory');
  given.dispose();
  const file = await Attend.load(smallModel('f32'));
  assert.equal(file.loadedFrom, 'file');
  file.dispose();
});

test('size: a cached copy of another size is downloaded again, and used only when that download fails', async () => {
  await withCaches(async (storage) => {
    const url = `${base}/flaky/model.safetensors`;
    const count = () => requests.get('/flaky/model.safetensors') ?? 0;
    flakyUp = true;
    try {
      (await Attend.load(url, { size: modelBytes.byteLength })).dispose();
      assert.equal(count(), 1);
      const same = await Attend.load(url, { size: modelBytes.byteLength });
      assert.equal(same.loadedFrom, 'cache');
      assert.equal(count(), 1, 'a cached copy of the expected size was downloaded again');
      same.dispose();

      // The list says the file is another size now: the copy is out of date.
      const newer = await Attend.load(url, { size: modelBytes.byteLength + 1 });
      assert.equal(newer.loadedFrom, 'network');
      assert.equal(count(), 2, 'a cached copy of another size was used');
      newer.dispose();

      // The server is gone: the old copy beats none.
      flakyUp = false;
      const offline = await Attend.load(url, { size: modelBytes.byteLength + 1 });
      assert.equal(offline.loadedFrom, 'cache');
      assert.equal(count(), 3);
      assert.equal((await offline.translate(sentence, greedy)).text, reference);
      offline.dispose();
      assert.equal((await storage.open(MODEL_CACHE)).entries.get(url).bytes.byteLength, modelBytes.byteLength);
      // With nothing cached a failed download is still an error.
      await assert.rejects(Attend.load(`${base}/flaky/other.safetensors`, { size: 10 }), /HTTP 503/);
    } finally {
      flakyUp = true;
    }
  });
  await assert.rejects(Attend.load(modelBytes, { size: -1 }), /option size must be a whole number of bytes/);
  await assert.rejects(Attend.load(modelBytes, { size: '5' }), TypeError);
});

test('a cached entry shorter than stored, or without its stored length, is downloaded again and replaced', async () => {
  await withCaches(async (storage) => {
    const url = `${base}/model/corrupt.safetensors`;
    (await Attend.load(url)).dispose();
    const cache = await storage.open(MODEL_CACHE);
    const entry = cache.entries.get(url);
    entry.bytes = entry.bytes.slice(0, 1000);  // the stored length header still says the whole file
    const t = await Attend.load(url);
    assert.equal(requests.get('/model/corrupt.safetensors'), 2, 'the short entry was trusted');
    assert.equal((await t.translate(sentence, greedy)).text, reference);
    assert.equal(cache.entries.get(url).bytes.byteLength, modelBytes.byteLength, 'the short entry was not replaced');
    t.dispose();

    // An entry put there by someone else (no length header): not trusted either.
    await cache.put(url, new Response(modelBytes.slice(0, 5000)));
    (await Attend.load(url)).dispose();
    assert.equal(requests.get('/model/corrupt.safetensors'), 3);
    (await Attend.load(url)).dispose();
    assert.equal(requests.get('/model/corrupt.safetensors'), 3, 'the replaced entry is used');
  });
});

test('cache: false downloads every time and stores nothing; without a Cache API every load downloads', async () => {
  await withCaches(async (storage) => {
    const url = `${base}/model/uncached.safetensors`;
    (await Attend.load(url, { cache: false })).dispose();
    (await Attend.load(url, { cache: false })).dispose();
    assert.equal(requests.get('/model/uncached.safetensors'), 2);
    assert.equal((await storage.open(MODEL_CACHE)).entries.size, 0);
  });
  assert.equal(typeof globalThis.caches, 'undefined', 'this Node has a Cache API of its own');
  const url = `${base}/model/no-cache-api.safetensors`;
  (await Attend.load(url)).dispose();
  (await Attend.load(url)).dispose();
  assert.equal(requests.get('/model/no-cache-api.safetensors'), 2);
  // A Cache API that refuses (as some private modes do) is the same as none.
  globalThis.caches = { open: async () => { throw new DOMException('denied', 'SecurityError'); } };
  try {
    const t = await Attend.load(`${base}/model/refused.safetensors`);
    assert.equal((await t.translate(sentence, greedy)).text, reference);
    t.dispose();
  } finally {
    delete globalThis.caches;
  }
  await assert.rejects(Attend.load(url, { cache: 'no' }), /option cache must be true or false/);
});

test('load: an aborted signal rejects with its reason, before the download and during it (which stops)', async () => {
  const reason = new Error('the user went elsewhere');
  await assert.rejects(Attend.load(`${base}/model/never.safetensors`, { signal: AbortSignal.abort(reason) }),
    (e) => e === reason);
  assert.equal(requests.get('/model/never.safetensors'), undefined, 'an aborted load still downloaded');

  const controller = new AbortController();
  let calls = 0;
  const loading = Attend.load(`${base}/slow/model.safetensors`, {
    signal: controller.signal,
    onProgress: (done) => { if (++calls === 2) controller.abort(reason); },
  });
  await assert.rejects(loading, (e) => e === reason);
  // The server sees the connection go before the last byte.
  for (let i = 0; i < 100 && !slow.closedEarly; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(slow.closedEarly, 1, 'the download went on after the abort');
  assert.equal(slow.finished, 0);

  // No reason given: an AbortError DOMException, as fetch() gives.
  const bare = new AbortController();
  const p = Attend.load(`${base}/model/bare.safetensors`, { signal: bare.signal });
  bare.abort();
  await assert.rejects(p, (e) => e instanceof DOMException && e.name === 'AbortError');
  await assert.rejects(Attend.load(modelBytes, { signal: 'stop' }), TypeError);
});

// The stalled body never ends by itself: without the cancel this test would wait forever, so it has a limit.
test('load: a response body that ignores the signal is cancelled by the abort', { timeout: 10000 }, async () => {
  // A stream from an injected fetch (or a service worker) does not end itself when the signal aborts.
  const fetch = globalThis.fetch;
  let pulls = 0;
  let cancelledWith;
  globalThis.fetch = async () => new Response(new ReadableStream({
    pull(c) {
      pulls++;
      if (pulls === 1) c.enqueue(modelBytes.subarray(0, 4096));
      // Later pulls never deliver: a download that stalls until it is cancelled.
    },
    cancel(reason) { cancelledWith = reason; },
  }));
  try {
    const controller = new AbortController();
    const reason = new Error('stop');
    const loading = Attend.load('https://models.example/stalled.safetensors', {
      signal: controller.signal, cache: false,
      onProgress: (done) => { if (done === 4096) setTimeout(() => controller.abort(reason), 10); },
    });
    await assert.rejects(loading, (e) => e === reason);
    assert.equal(cancelledWith, reason, 'the body was not cancelled');
  } finally {
    globalThis.fetch = fetch;
  }
});

test('translate and translateDocument reject with the reason when aborted before or after the call', async () => {
  const t = await Attend.load(modelBytes);
  const reason = new Error('new input');
  await assert.rejects(t.translate(sentence, { ...greedy, signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await assert.rejects(t.translateDocument('A dog. A cat.', { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await assert.rejects(t.translate([sentence], { signal: AbortSignal.abort(reason) }), (e) => e === reason);

  // Aborted while the call is pending (a newer input replaced this one): the work is not done.
  for (const run of [(s) => t.translate(sentence, { ...greedy, signal: s }), (s) => t.translateDocument(sentence, { signal: s })]) {
    const c = new AbortController();
    const p = run(c.signal);
    c.abort();
    await assert.rejects(p, (e) => e instanceof DOMException && e.name === 'AbortError');
  }

  // An array stops between sentences. Each element is read once when the array is checked and once when it is
  // translated, so the reads show how far it went.
  const texts = ['A man walks.', 'A dog runs.', 'Two kids play.', 'A woman sings.'];
  const reads = texts.map(() => 0);
  const watched = new Proxy(texts, {
    get(target, key) { if (/^\d+$/.test(key)) reads[key]++; return target[key]; },
  });
  const c = new AbortController();
  const p = t.translate(watched, { ...greedy, signal: c.signal });
  setTimeout(() => c.abort(reason), 0);
  await assert.rejects(p, (e) => e === reason);
  assert.equal(reads[0], 2, 'the first sentence was not translated before the abort');
  assert.equal(reads[texts.length - 1], 1, 'the array was translated to its end despite the abort');

  // A signal that is never aborted changes nothing.
  const kept = await t.translate(sentence, { ...greedy, signal: new AbortController().signal });
  assert.equal(kept.text, reference);
  await assert.rejects(t.translate(sentence, { signal: {} }), /option signal must be an AbortSignal/);
  t.dispose();
});

test('translate(array): the results in input order, each as translate(string) gives it', async () => {
  const t = await Attend.load(modelBytes);
  const texts = ['A man is walking.', 'Two dogs play in the snow.', 'A woman is sitting on a bench.', 'A man is walking.'];
  const options = { beam: 2, attention: true };
  const all = await t.translate(texts, options);
  assert.equal(all.length, texts.length);
  for (let i = 0; i < texts.length; i++) {
    const alone = await t.translate(texts[i], options);
    assert.equal(all[i].text, alone.text, `sentence ${i}`);
    assert.deepEqual(all[i].sourceTokens, alone.sourceTokens);
    assert.deepEqual(all[i].targetTokens, alone.targetTokens);
    assert.deepEqual(Array.from(all[i].attention.cross.data), Array.from(alone.attention.cross.data));
  }
  // This small model gives similar words for most sentences; the source tokens show the order.
  assert.notDeepEqual(all[0].sourceTokens, all[1].sourceTokens);
  assert.deepEqual(await t.translate([]), []);
  assert.deepEqual(await t.translate([], { beam: 2, signal: new AbortController().signal }), []);

  await assert.rejects(t.translate(['A dog.', 7, 'A cat.']), (e) => {
    assert.ok(e instanceof TypeError);
    assert.match(e.message, /texts\[1\] must be a string, got number/);
    return true;
  });
  await assert.rejects(t.translate(['A dog.', null]), /texts\[1\] must be a string, got null/);
  await assert.rejects(t.translate(['A dog.', '']), /texts\[1\]: .*empty/);
  await assert.rejects(t.translate(['A \uD800 dog.']), /texts\[0\]: .*lone surrogate/);
  await assert.rejects(t.translate(['A dog.'], { beam: 0 }), /beam must be between 1 and 64, got 0/);
  t.dispose();
});

test('info(): camelCase keys with the same values as the snake_case ones', async () => {
  const t = await Attend.load(modelBytes);
  const info = t.info();
  const pairs = {
    sourceLanguage: 'source_language', targetLanguage: 'target_language', fileBytes: 'file_bytes',
    sourceVocabSize: 'source_vocab_size', targetVocabSize: 'target_vocab_size', maxSourceTokens: 'max_source_tokens',
  };
  for (const [camel, snake] of Object.entries(pairs)) {
    assert.ok(camel in info, `info() has no ${camel}`);
    assert.deepEqual(info[camel], info[snake], camel);
  }
  assert.equal(info.sourceLanguage, 'en');
  assert.equal(info.targetLanguage, 'de');
  assert.equal(info.fileBytes, modelBytes.byteLength);
  assert.ok(info.sourceVocabSize > 0 && info.maxSourceTokens === 256);
  assert.equal(info.decoding.lengthPenalty, info.decoding.length_penalty);
  assert.equal(info.decoding.lengthPenaltyFromModel, info.decoding.length_penalty_from_model);
  assert.equal(typeof info.decoding.lengthPenaltyFromModel, 'boolean');
  // Every snake_case key outside the model file's own metadata has its camelCase twin.
  const missing = [];
  const walk = (o, at) => {
    for (const [k, v] of Object.entries(o)) {
      if (k.includes('_') && !(k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()) in o)) missing.push(at + k);
      if (v && typeof v === 'object' && !Array.isArray(v) && k !== 'config' && k !== 'card') walk(v, `${at}${k}.`);
    }
  };
  walk(info, '');
  assert.deepEqual(missing, []);
  // The model file's config keeps the file's keys.
  assert.ok('ffn_dim' in info.config && !('ffnDim' in info.config));
  // Each call is a copy: changing one does not change the next.
  info.decoding.lengthPenalty = 99;
  assert.notEqual(t.info().decoding.lengthPenalty, 99);
  t.dispose();
});
