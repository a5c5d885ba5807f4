// The service worker of the Attend demo: after the first visit, the translator, the attention lab and the embed
// example work offline. Install precaches the pages, their JavaScript, the WebAssembly builds and the model
// list; every same-origin GET then goes to the network first (so a changed file is never served stale while
// online) and falls back to the cache, which each successful response refreshes. Model files are left alone:
// attend.js keeps each model it loads in its own Cache API cache ('attend-models') and reads it from there
// offline, so a copy here would only store every model twice.
const VERSION = 'v1';
const APP_CACHE = `attend-app-${VERSION}`;
// The model cache that earlier versions of this page filled: deleted, so that no second copy of a model stays.
const OLD_MODEL_CACHES = ['attend-models-v1'];

const PRECACHE = [
  './', './index.html', './app.js', './style.css', './heatmap.js', './columns.js', './alignment.js', './headview.js',
  './neuronview.js',
  './aggregate.js', './worker.js', './register-sw.js', './tokens.js', './export.js', './overflow.js', './runs.html',
  './runs.js',
  './lab.html', './lab.css', './lab.js', './lab-dom.js', './lab-plot.js', './lab-matrix.js', './lab-nw.js',
  './lab-masked.js', './lab-scoring.js', './lab-positional.js', './lab-bahdanau.js', './lab-lm.js', './embed-example.html',
  './models/models.json', './models/lm/models.json', './train.html', './train.js', './train-worker.js', './trained.js', './train-history.js',
  '../wasm/attend.js', '../wasm/attend-train.js', '../wasm/module-loader.js', '../wasm/attend-client.js', '../wasm/attend-worker.js', '../wasm/attend-lab.js',
  '../wasm/dist/attend-core-simd.mjs', '../wasm/dist/attend-core-simd.wasm',
  '../wasm/dist/attend-core-nosimd.mjs', '../wasm/dist/attend-core-nosimd.wasm',
  '../wasm/dist/attend-lab-simd.mjs', '../wasm/dist/attend-lab-simd.wasm',
  '../wasm/dist/attend-lab-nosimd.mjs', '../wasm/dist/attend-lab-nosimd.wasm',
].map((p) => new URL(p, self.location).href);

const isModel = (url) => url.pathname.endsWith('.safetensors');

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(APP_CACHE);
    // One missing file (a build without the plain-WebAssembly variant, say) must not stop the rest.
    await Promise.allSettled(PRECACHE.map(async (url) => {
      const response = await fetch(url, { cache: 'no-cache' });
      if (response.ok) await cache.put(url, response);
    }));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if ((name.startsWith('attend-app-') && name !== APP_CACHE) || OLD_MODEL_CACHES.includes(name)) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

async function networkFirst(request) {
  const url = new URL(request.url);
  try {
    const response = await fetch(request);
    if (response.ok && response.status === 200 && response.type === 'basic') {
      const copy = response.clone();
      caches.open(APP_CACHE).then((c) => c.put(url.href, copy)).catch(() => {});
    }
    return response;
  } catch (error) {
    // Offline: the cached copy (query strings ignored, so index.html?model=... finds index.html).
    const hit = await caches.match(url.href, { ignoreSearch: true, cacheName: APP_CACHE })
      ?? (url.pathname.endsWith('/') ? await caches.match(new URL('index.html', url).href, { cacheName: APP_CACHE }) : undefined);
    if (hit) return hit;
    throw error;
  }
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (request.headers.has('range') || isModel(url)) return;
  event.respondWith(networkFirst(request));
});
