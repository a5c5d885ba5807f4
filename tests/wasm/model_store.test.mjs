// storeModelBytes / storedModelBytes (attend.js): bytes made in the browser (a model web/train.html trained) kept in
// the model cache with their length and a note, read back whole or not at all; a missing or refusing Cache API is
// an error that says so. Node has no Cache API: a small one in memory stands in for the browser's here (the
// browser's own is exercised by tests/browser/train.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MODEL_CACHE, storeModelBytes, storedModelBytes } from '../../wasm/attend.js';

// The part of the Cache API that attend.js uses: open(name) -> { put, match, delete }, keyed by URL.
function memoryCaches({ refuse = false } = {}) {
  const stores = new Map();
  return {
    stores,
    async open(name) {
      if (!stores.has(name)) stores.set(name, new Map());
      const store = stores.get(name);
      return {
        async put(key, response) {
          if (refuse) throw new DOMException('Quota exceeded', 'QuotaExceededError');
          store.set(key, { body: new Uint8Array(await response.arrayBuffer()), headers: response.headers });
        },
        async match(key) {
          const hit = store.get(key);
          return hit && new Response(hit.body, { headers: hit.headers });
        },
        async delete(key) { return store.delete(key); },
      };
    },
  };
}

const url = 'https://example.org/web/trained/bahdanau-d2l.safetensors';

test('storeModelBytes keeps the bytes and a note; storedModelBytes reads them back whole', async (t) => {
  const caches = memoryCaches();
  globalThis.caches = caches;
  t.after(() => { delete globalThis.caches; });
  assert.equal(await storedModelBytes(url), null);
  const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
  assert.equal(await storeModelBytes(url, bytes, { preset: 'bahdanau-d2l', step: 300, note: 'é' }), url);
  assert.deepEqual([...caches.stores.keys()], [MODEL_CACHE]);
  const back = await storedModelBytes(url);
  assert.deepEqual(back.bytes, bytes);
  assert.deepEqual(back.note, { preset: 'bahdanau-d2l', step: 300, note: 'é' });
  // Without a note, the note is null.
  await storeModelBytes(url, bytes.subarray(0, 10));
  assert.deepEqual(await storedModelBytes(url), { bytes: bytes.subarray(0, 10), note: null });
  // An entry cut short (its length header says more) is not handed out, and is removed.
  const store = caches.stores.get(MODEL_CACHE);
  store.get(url).body = bytes.subarray(0, 5);
  assert.equal(await storedModelBytes(url), null);
  assert.equal(store.has(url), false);
});

test('storeModelBytes names what stops it: no Cache API, a cache that refuses, bytes that are not bytes', async (t) => {
  delete globalThis.caches;
  await assert.rejects(storeModelBytes(url, new Uint8Array(4)), /offers no Cache API here.*cannot be stored/);
  assert.equal(await storedModelBytes(url), null);
  globalThis.caches = memoryCaches({ refuse: true });
  t.after(() => { delete globalThis.caches; });
  await assert.rejects(storeModelBytes(url, new Uint8Array(4)),
    /the model \(4 bytes\) could not be stored in the browser's cache: Quota exceeded/);
  await assert.rejects(storeModelBytes(url, [1, 2, 3]), /bytes must be a Uint8Array, got/);
});
