// Attend in the browser (and Node): load a translator model file, translate, and get every attention map.
//
//   import { Attend } from './attend.js';
//   const t = await Attend.load('models/multi30k-en-de-cased.safetensors', { onProgress: (done, total) => {}, signal });
//   const r = await t.translate('A dog runs on the beach.', { beam: 5, attention: true });
//   const rs = await t.translate(['A dog runs.', 'A cat sleeps.'], { signal });  // in input order
//   r.text; r.attention.cross.layers[0][0]   // Float32Array rows x cols, target x source
//   t.info(); t.loadedFrom;   // 'network' the first time, 'cache' after (the Cache API cache 'attend-models')
//   t.dispose();
//
// The module picks its WebAssembly SIMD build where the engine supports it (SIMD and exception handling) and the
// plain build elsewhere.

const SIMD_PROBE = new Uint8Array([  // (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt))
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

const EXCEPTIONS_PROBE = new Uint8Array([  // (module (func try catch_all end))
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 8, 1, 6, 0, 6, 64, 25, 11, 11]);

// Whether this engine runs the SIMD build: WebAssembly SIMD, and WebAssembly exception handling, which that build
// also uses (a few 2021-22 engines have the first without the second; they get the plain build).
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE) && WebAssembly.validate(EXCEPTIONS_PROBE);
  } catch {
    return false;
  }
}

// Node built-ins are imported through a variable so that bundlers (esbuild, Vite, webpack) leave them alone:
// the Node-only path that reads local files never runs in a browser bundle.
const nodeImport = (specifier) => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);

const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

// A model file is a few megabytes; a download or file larger than this is refused unless the caller allows more
// (option maxBytes), so that an endless or mistaken response cannot fill the memory.
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;
// A download that delivers nothing for this long fails (option stallTimeoutMs).
export const DEFAULT_STALL_TIMEOUT_MS = 30000;
// safetensors' own limit on a header.
const MAX_HEADER_BYTES = 100 * 1024 * 1024;
// How long calls may keep the thread busy before the next one lets the event loop run.
const BUSY_SLICE_MS = 20;

// Bytes of the module's heap for `what`. A full heap (malloc gives 0 once memory can grow no further) is an Error
// that leaves the module as it was, never bytes copied over address 0.
function heapAlloc(core, size, what) {
  const ptr = core._malloc(Math.max(1, size));
  if (!ptr) {
    throw new RangeError(`${what}: not enough WebAssembly memory for ${size} bytes (the module's heap is full; ` +
      'dispose() the translators no longer used, or load a smaller model)');
  }
  return ptr;
}

// What the first bytes of a download say about the whole: undefined while too few have come, else the file's size
// as its safetensors header declares it. Throws where the bytes cannot be a model (an HTML page, a text file, a
// header of absurd length), naming what they look like.
function declaredModelSize(prefix, href) {
  if (prefix.byteLength < 8) return undefined;
  const view = new DataView(prefix.buffer, prefix.byteOffset, prefix.byteLength);
  const headerLength = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  const start = String.fromCharCode(...prefix.subarray(0, 8));
  if (/^[\x20-\x7e]{8}$/.test(start) && headerLength > MAX_HEADER_BYTES) {
    throw new Error(`${href} is not a safetensors model file: it begins with the text '${start}' (an HTML page or a text file?)`);
  }
  if (headerLength > MAX_HEADER_BYTES) {
    throw new Error(`${href} is not a safetensors model file: its header length ${headerLength} is over the ${MAX_HEADER_BYTES} bytes a header may have`);
  }
  if (prefix.byteLength < 8 + headerLength) return undefined;
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(prefix.subarray(8, 8 + headerLength)));
  } catch {
    return null;  // the core names what is wrong with it once the bytes are in
  }
  if (typeof header !== 'object' || header === null) return null;
  let end = 0;
  for (const [key, entry] of Object.entries(header)) {
    if (key === '__metadata__') continue;
    const offsets = entry?.data_offsets;
    if (!Array.isArray(offsets) || offsets.length !== 2 || !Number.isSafeInteger(offsets[1])) return null;
    end = Math.max(end, offsets[1]);
  }
  return 8 + headerLength + end;
}

// fetch()'s own messages ("fetch failed", "terminated") with the system's reason behind them where it gives one.
function networkReason(e) {
  const cause = e?.cause;
  const detail = cause && (cause.code ?? cause.message);
  return detail && detail !== e.message ? `${e.message}: ${detail}` : String(e?.message ?? e);
}

function joinChunks(chunks, length) {
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    if (at >= length) break;
    const part = c.subarray(0, Math.min(c.byteLength, length - at));
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
}

// The reason an aborted signal rejects with: its own, or an AbortError as fetch() gives (older engines leave
// signal.reason undefined).
function abortReason(signal) {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function throwIfAborted(signal) {
  if (signal?.aborted) throw abortReason(signal);
}

// Waits for `promise`; rejects at once with the signal's reason when it aborts first.
function waitUnlessAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

function checkSignal(signal, where) {
  if (signal === undefined || signal === null) return undefined;
  if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
    throw new TypeError(`${where}: option signal must be an AbortSignal, got ${describe(signal)}`);
  }
  return signal;
}

// Model files are kept in this Cache API cache, keyed by their URL. Each entry carries the byte count it was
// stored with: an entry cut short (quota eviction mid-write, a browser crash) is then detected and downloaded
// again instead of being handed to the loader as a truncated model.
export const MODEL_CACHE = 'attend-models';
const LENGTH_HEADER = 'x-attend-bytes';
const NOTE_HEADER = 'x-attend-note';

async function openModelCache() {
  try {
    // No Cache API (Node, an insecure context) or one that refuses (private modes): download every time.
    return typeof globalThis.caches?.open === 'function' ? await globalThis.caches.open(MODEL_CACHE) : null;
  } catch {
    return null;
  }
}

async function cachedBytes(cache, key) {
  try {
    const hit = await cache.match(key);
    if (!hit) return null;
    const expected = Number(hit.headers.get(LENGTH_HEADER));
    const bytes = new Uint8Array(await hit.arrayBuffer());
    if (hit.headers.has(LENGTH_HEADER) && Number.isInteger(expected) && bytes.byteLength === expected) return bytes;
    await cache.delete(key);
  } catch {
    // An unreadable entry is a miss too.
  }
  return null;
}

// A cache entry of model bytes, with the length cachedBytes checks (and extra headers).
function modelResponse(bytes, headers = {}) {
  return new Response(bytes, {
    headers: { 'content-type': 'application/octet-stream', [LENGTH_HEADER]: String(bytes.byteLength), ...headers },
  });
}

async function storeBytes(cache, key, bytes) {
  try {
    await cache.put(key, modelResponse(bytes));
  } catch {
    // Caching only saves a later download (the quota may be full); the bytes in hand are still good.
  }
}

// Bytes made in this browser (a model trained in web/train.html) stored in the model cache under `url`, with the
// length that cachedBytes checks, so that load(url, { cache: true }) and storedModelBytes(url) read them back.
// note: a small JSON-able object kept beside them (what made them, say), returned by storedModelBytes. Unlike a
// download's copy, these bytes exist nowhere else: a cache that is missing or refuses them is an error, not a miss.
export async function storeModelBytes(url, bytes, note = null) {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`storeModelBytes(url, bytes): bytes must be a Uint8Array, got ${describe(bytes)}`);
  const key = new URL(url, globalThis.location?.href).href;
  if (typeof globalThis.caches?.open !== 'function') {
    throw new Error('this browser offers no Cache API here (a private window, or a page that is not https or localhost): the model cannot be stored');
  }
  const cache = await globalThis.caches.open(MODEL_CACHE);
  // Header values are Latin-1: the note travels percent-encoded.
  const headers = note === null ? {} : { [NOTE_HEADER]: encodeURIComponent(JSON.stringify(note)) };
  try {
    await cache.put(key, modelResponse(bytes, headers));
  } catch (e) {
    throw new Error(`the model (${bytes.byteLength} bytes) could not be stored in the browser's cache: ${e.message}`);
  }
  return key;
}

// What storeModelBytes (or a download) left in the model cache under `url`: { bytes, note } (note null when none
// was given), or null when nothing whole is stored there (never stored, cleared, or cut short).
export async function storedModelBytes(url) {
  const key = new URL(url, globalThis.location?.href).href;
  const cache = await openModelCache();
  if (!cache) return null;
  let note = null;
  try {
    const hit = await cache.match(key);
    const raw = hit?.headers.get(NOTE_HEADER);
    if (raw) note = JSON.parse(decodeURIComponent(raw));
  } catch {
    note = null;  // an unreadable note does not make the bytes unreadable
  }
  const bytes = await cachedBytes(cache, key);
  return bytes ? { bytes, note } : null;
}

// { bytes, from }: from says where they came from, 'cache' (the Cache API), 'network' or 'file' (Node's file
// system), so that a caller can tell a user whether the model needed the network.
async function readBytes(url, { onProgress, signal, cache = false, size, maxBytes = DEFAULT_MAX_BYTES, stallTimeoutMs = DEFAULT_STALL_TIMEOUT_MS, model = true } = {}) {
  throwIfAborted(signal);
  const href = url instanceof URL ? url.href : String(url);
  if (isNode && (href.startsWith('file:') || !/^[a-z]+:/i.test(href))) {
    const fs = await nodeImport('node:fs/promises');
    const { fileURLToPath } = await nodeImport('node:url');
    const path = href.startsWith('file:') ? fileURLToPath(href) : href;
    let data;
    try {
      const stat = await fs.stat(path);
      // A device or a pipe (/dev/zero) has no size to check and may never end.
      if (!stat.isFile()) throw Object.assign(new Error(`cannot read ${path}: not a regular file`), { code: 'ENOTFILE' });
      if (stat.size > maxBytes) {
        throw Object.assign(new Error(`cannot read ${path}: ${stat.size} bytes, over the ${maxBytes} allowed (option maxBytes)`), { code: 'ETOOBIG' });
      }
      data = await fs.readFile(path, { signal });
    } catch (e) {
      if (e.code === 'ENOTFILE' || e.code === 'ETOOBIG') throw new Error(e.message);
      throwIfAborted(signal);
      throw new Error(`cannot read ${path}: ${e.code || e.message}`);
    }
    throwIfAborted(signal);
    onProgress?.(data.byteLength, data.byteLength, 'file');
    return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), from: 'file' };
  }
  let key = href;
  try {
    key = new URL(href, globalThis.location?.href).href;
  } catch {
    // Left as given: fetch() reports the bad URL below.
  }
  const store = cache && /^https?:/i.test(key) ? await openModelCache() : null;
  // A cached copy of another size than the caller expects is out of date: it is downloaded again, and used only
  // when that download fails (offline, an old copy beats none).
  let stale = null;
  const fromCache = (bytes) => {
    onProgress?.(bytes.byteLength, bytes.byteLength, 'cache');
    return { bytes, from: 'cache' };
  };
  if (store) {
    const bytes = await cachedBytes(store, key);
    throwIfAborted(signal);
    if (bytes && (size === undefined || bytes.byteLength === size)) return fromCache(bytes);
    stale = bytes;
  }
  // The caller's signal and the stall timer both stop the download through this one.
  const stop = new AbortController();
  const onAbort = () => stop.abort(abortReason(signal));
  signal?.addEventListener('abort', onAbort, { once: true });
  let stalled = null;
  let timer;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = new Error(`cannot download ${href}: no data for ${stallTimeoutMs / 1000} s (the download stalled)`);
      stop.abort(stalled);
    }, stallTimeoutMs);
  };
  const failure = (e) => {
    throwIfAborted(signal);
    if (stalled) throw stalled;
    throw e;
  };
  try {
    watch();
    let response;
    try {
      response = await fetch(href, { signal: stop.signal });
    } catch (e) {
      throwIfAborted(signal);
      if (stale && !stalled) return fromCache(stale);
      failure(new Error(`cannot download ${href}: ${networkReason(e)}`));
    }
    if (!response.ok) {
      if (stale) return fromCache(stale);
      throw new Error(`cannot download ${href}: HTTP ${response.status} ${response.statusText}`.trim());
    }
    const length = Number(response.headers.get('content-length')) || 0;
    if (length > maxBytes) {
      throw new Error(`cannot download ${href}: ${length} bytes, over the ${maxBytes} allowed (option maxBytes)`);
    }
    const total = length || size || 0;
    let bytes;
    if (!response.body) {
      bytes = new Uint8Array(await response.arrayBuffer());
      throwIfAborted(signal);
      if (bytes.byteLength > maxBytes) throw new Error(`cannot download ${href}: ${bytes.byteLength} bytes, over the ${maxBytes} allowed (option maxBytes)`);
      onProgress?.(bytes.byteLength, bytes.byteLength, 'network');
    } else {
      const reader = response.body.getReader();
      // fetch() ends its own body on abort, but a stream from elsewhere (a service worker's, an injected fetch's)
      // may not: cancelling the reader stops the download and ends a pending read either way.
      const cancel = () => reader.cancel(stop.signal.reason).catch(() => {});
      stop.signal.addEventListener('abort', cancel, { once: true });
      const chunks = [];
      let received = 0;
      let declared;  // the size the file's header declares, once its first bytes are in
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          watch();
          chunks.push(value);
          received += value.byteLength;
          if (received > maxBytes) throw new Error(`cannot download ${href}: over the ${maxBytes} bytes allowed (option maxBytes)`);
          if (model && declared === undefined) {  // a model file's header says how large it is
            declared = declaredModelSize(joinChunks(chunks, Math.min(received, 8 + MAX_HEADER_BYTES)), href);
            if (declared > maxBytes) throw new Error(`cannot download ${href}: its header declares ${declared} bytes, over the ${maxBytes} allowed (option maxBytes)`);
          }
          if (declared && received > declared) {
            throw new Error(`cannot download ${href}: more than the ${declared} bytes its header declares`);
          }
          onProgress?.(received, total || declared || received, 'network');
        }
      } catch (e) {
        stop.abort(e);
        failure(e.message?.startsWith(`cannot download ${href}`) || e.message?.startsWith(href) ? e
          : new Error(`cannot download ${href}: the connection ended after ${received} of ${total || declared || '?'} bytes (${networkReason(e)})`));
      } finally {
        stop.signal.removeEventListener('abort', cancel);
      }
      throwIfAborted(signal);
      bytes = joinChunks(chunks, received);
    }
    if (store) await storeBytes(store, key, bytes);
    return { bytes, from: 'network' };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

const cores = new Map();  // variant -> Promise<module>

async function loadCore(variant) {
  if (!cores.has(variant)) {
    cores.set(variant, (async () => {
      const glue = new URL(`./dist/attend-core-${variant}.mjs`, import.meta.url);
      const wasm = new URL(`./dist/attend-core-${variant}.wasm`, import.meta.url);
      const [{ default: createAttendCore }, { bytes: wasmBinary }] = await Promise.all([import(glue.href), readBytes(wasm, { model: false })]);
      return createAttendCore({ wasmBinary, print: () => {}, printErr: () => {} });
    })());
  }
  return cores.get(variant);
}

function shapeMaps(core, json, floatsPtr) {
  if (!json) return null;
  // Copy out of the wasm heap: it may move when memory grows, and the result is freed right after.
  const all = new Float32Array(core.HEAPF32.buffer, floatsPtr, json.offset + json.length).slice(json.offset);
  const { layers, heads, rows, cols } = json;
  const per = rows * cols;
  const byLayer = [];
  for (let l = 0; l < layers; l++) {
    const byHead = [];
    for (let h = 0; h < heads; h++) byHead.push(all.subarray((l * heads + h) * per, (l * heads + h + 1) * per));
    byLayer.push(byHead);
  }
  return { layers: byLayer, data: all, shape: [layers, heads, rows, cols] };
}

// One kind of attention's query and key vectors (the core's QueryKeyVectors), copied out of the wasm heap:
// { layers, heads, queries, keys, dim, q: Float32Array [layers, heads, queries, dim], k: [layers, heads, keys, dim] }.
function shapeQueryKeys(core, json, floatsPtr) {
  const { layers, heads, queries, keys, dim, qOffset, kOffset } = json;
  const qLength = layers * heads * queries * dim, kLength = layers * heads * keys * dim;
  const all = new Float32Array(core.HEAPF32.buffer, floatsPtr, kOffset + kLength);
  return { layers, heads, queries, keys, dim, q: all.slice(qOffset, qOffset + qLength), k: all.slice(kOffset, kOffset + kLength) };
}

function shapeNeurons(core, json, floatsPtr) {
  if (!json) return undefined;
  return {
    encoderSelf: shapeQueryKeys(core, json.encoderSelf, floatsPtr),
    decoderSelf: shapeQueryKeys(core, json.decoderSelf, floatsPtr),
    cross: shapeQueryKeys(core, json.cross, floatsPtr),
  };
}

// The neuron view's numbers for one query of one layer and head of a result's neurons (a kind: 'encoderSelf',
// 'decoderSelf' or 'cross'): for each key j the query and key vectors, their elementwise product (which sums to
// q . k), the score q . k / sqrt(dim) and the weight softmax(score) over the keys the query may see (decoder self
// attention: keys 0..query; the others: all), as the attention map's row. Plain numbers, so it runs where the result
// went (a page's main thread after a worker).
export function neuronView(neurons, { kind, layer, head, query }) {
  const v = neurons?.[kind];
  if (!v) throw new Error(`neuronView: no query and key vectors of kind '${kind}' (expected encoderSelf, decoderSelf or cross; only a Transformer has them)`);
  for (const [name, value, count] of [['layer', layer, v.layers], ['head', head, v.heads], ['query', query, v.queries]]) {
    if (!Number.isInteger(value) || value < 0 || value >= count) throw new RangeError(`neuronView: ${name} must be a whole number in 0..${count - 1}, got ${value}`);
  }
  const D = v.dim;
  const qAt = ((layer * v.heads + head) * v.queries + query) * D;
  const q = Array.from(v.q.subarray(qAt, qAt + D));
  const visible = kind === 'decoderSelf' ? query + 1 : v.keys;
  const scale = 1 / Math.sqrt(D);
  const rows = [];
  for (let j = 0; j < v.keys; j++) {
    const kAt = ((layer * v.heads + head) * v.keys + j) * D;
    const k = Array.from(v.k.subarray(kAt, kAt + D));
    const product = q.map((x, d) => x * k[d]);
    const dot = product.reduce((a, b) => a + b, 0);
    rows.push({ key: j, k, product, dot, score: dot * scale, masked: j >= visible, weight: 0 });
  }
  const max = Math.max(...rows.filter((r) => !r.masked).map((r) => r.score));
  let sum = 0;
  for (const r of rows) if (!r.masked) sum += (r.weight = Math.exp(r.score - max));
  for (const r of rows) r.weight /= sum;
  return { q, dim: D, scale, rows };
}

// The JavaScript API's own choice: translations come with their attention maps unless asked not to (the core's
// default is without).
const DEFAULT_ATTENTION = true;

// What each number option accepts, as the core says (attend_option_rules): [{ name, integer, min, max, aboveMin }].
function optionRules(core) {
  core.optionRules ??= JSON.parse(core.UTF8ToString(core._attend_option_rules()));
  return core.optionRules;
}

// The core's option table (attend_option_table): [{ name, field, flag, type, default, modelDefault, min, max,
// aboveMin, help }], this API's own default for attention.
function optionTable(core) {
  core.optionTable ??= JSON.parse(core.UTF8ToString(core._attend_option_table()))
    .map((row) => (row.name === 'attention' ? { ...row, default: DEFAULT_ATTENTION } : row));
  return core.optionTable;
}

// The boolean options but attention (which this API defaults otherwise), in the table's order.
function booleanOptions(core) {
  core.booleanOptions ??= optionTable(core).filter((row) => row.type === 'boolean' && row.name !== 'attention')
    .map((row) => row.name);
  return core.booleanOptions;
}

function describe(value) {
  return typeof value === 'string' ? `the string '${value}'` : String(value);
}

// The options as the core's JSON, or a clear Error naming the option that is wrong.
function optionsJson(options, core) {
  const rules = optionRules(core);
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object') throw new TypeError(`translate(text, options): options must be an object, got ${describe(options)}`);
  const out = {};
  for (const { name, integer, min, max, aboveMin } of rules) {
    const value = options[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new TypeError(`option ${name} must be a finite number, got ${describe(value)}`);
    }
    if (integer && !Number.isInteger(value)) throw new RangeError(`option ${name} must be a whole number, got ${value}`);
    if (value < min || value > max || (aboveMin && value === min)) {
      throw new RangeError(`option ${name} must be between ${aboveMin ? `above ${min}` : min} and ${max}, got ${value}`);
    }
    out[name] = value;
  }
  const attention = options.attention ?? DEFAULT_ATTENTION;
  if (typeof attention !== 'boolean') throw new TypeError(`option attention must be true or false, got ${describe(attention)}`);
  out.attention = attention;
  for (const name of booleanOptions(core)) {
    const value = options[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'boolean') throw new TypeError(`option ${name} must be true or false, got ${describe(value)}`);
    out[name] = value;
  }
  const prefix = options.targetPrefix;
  if (prefix !== undefined && prefix !== null) {
    if (!Array.isArray(prefix)) throw new TypeError(`option targetPrefix must be an array of target tokens, got ${describe(prefix)}`);
    prefix.forEach((token, i) => {
      if (typeof token !== 'string' || token === '') throw new TypeError(`option targetPrefix[${i}] must be a target token (a non-empty string), got ${describe(token)}`);
      checkWellFormed(token, `option targetPrefix[${i}]`);
    });
    out.targetPrefix = prefix;
  }
  return JSON.stringify(out);
}

// Text that is not well-formed UTF-16 (a lone surrogate) would reach the core with U+FFFD in its place, silently
// changed; it is refused the way invalid UTF-8 is natively.
function checkWellFormed(text, what = 'the text') {
  if (typeof text.isWellFormed === 'function' ? text.isWellFormed() : !/\p{Cs}/u.test(text)) return;
  const at = text.search(/\p{Cs}/u);
  const unit = text.charCodeAt(at).toString(16).toUpperCase();
  throw new Error(`${what} is not well-formed Unicode: a lone surrogate U+${unit} at index ${at} (expected text with paired surrogates)`);
}

// info() as the core gives it (snake_case) with a camelCase twin of every key that has an underscore, nested
// objects included, except the model file's own metadata (config, card), which is returned as written.
const VERBATIM = new Set(['config', 'card']);
function withCamelCase(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    const converted = VERBATIM.has(key) ? v : withCamelCase(v);
    out[key] = converted;
    const camel = key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    if (camel !== key) out[camel] = structuredClone(converted);
  }
  return out;
}

export class AttendTranslator {
  #core; #handle; #info;

  constructor(core, handle, loadedFrom = 'memory') {
    this.#core = core;
    this.#handle = handle;
    this.#info = withCamelCase(JSON.parse(core.UTF8ToString(core._attend_translator_info(handle))));
    this.simd = core.simd;
    this.loadedFrom = loadedFrom;  // 'cache' | 'network' | 'file' | 'memory' (the caller's bytes)
  }

  #check() {
    if (!this.#handle) throw new Error('this translator was disposed');
  }

  #error(fallback) {
    return new Error(this.#core.UTF8ToString(this.#core._attend_last_error()) || fallback);
  }

  // { architecture, sourceLanguage, targetLanguage, config, parameters, dtype, fileBytes, sourceVocabSize,
  //   targetVocabSize, maxSourceTokens, card, decoding: { lengthPenalty, lengthPenaltyFromModel, minConfidence,
  //   namePlaceholders, alignmentLayers, alignmentLayersFromModel } }, and every two-word key also in the core's
  //   snake_case (source_language, ...: deprecated, kept for existing callers).
  // config and card are the model file's own metadata and keep its keys.
  info() {
    this.#check();
    return structuredClone(this.#info);
  }

  // The options translate() uses where a call leaves one out: the core's (with the model's own length penalty
  // where its file has one), attention: true. { beam, maxLength, maxInputLength, maxLengthRatio, lengthPenalty,
  // noRepeatNgramSize, repetitionPenalty, maxTokenRun, maxPieceRun, noAdjacentRepeatSize, maxCharRun,
  // clauseSplitWords, minConfidence, omissionGain, alternatives, copyThrough, recaseCapitals, alignMarkup, closeMarks,
  // attention, neurons }
  defaultOptions() {
    this.#check();
    const defaults = JSON.parse(this.#core.UTF8ToString(this.#core._attend_translator_defaults(this.#handle)));
    return { ...defaults, attention: DEFAULT_ATTENTION };
  }

  // What each number option accepts: { beam: { min, max, integer, aboveMin }, ... } (aboveMin: min itself is not).
  optionBounds() {
    return Object.fromEntries(optionRules(this.#core).map(({ name, ...bounds }) => [name, { ...bounds }]));
  }

  // The options as the core's table names them: [{ name, field (the C++ TranslationOptions member), flag (`attend
  // translate`'s, or null), type ('integer' | 'number' | 'boolean'), default, modelDefault (the model file may name
  // its own: defaultOptions() has it), min, max, aboveMin (numbers), help }], in optionBounds()' order, then the
  // booleans. default is the core's (a float's as float stores it), attention's this API's own (true).
  optionTable() {
    return structuredClone(optionTable(this.#core));
  }

  // { text, tokenized, sourceTokens, targetTokens, score, finished, untranslated, confidence, lowConfidence,
  //   omittedWords, sourceWordGains (with omissionGain), neurons (with neurons: true), warnings,
  //   attention: { cross, encoderSelf, decoderSelf }, timings, alternatives (with options.alternatives > 0: for each
  //   target token { token, probability, tokens, ids, probabilities }, its most probable alternatives first) }
  // An array of texts gives an array of those, in input order.
  // options (each optional; null or undefined: the default, as defaultOptions() returns them; optionBounds() gives
  // their ranges): beam (5), maxLength (0), maxInputLength (0), maxLengthRatio (2), lengthPenalty (the model's own,
  // else 0.6), noRepeatNgramSize (4), repetitionPenalty (1), maxTokenRun (3), maxPieceRun (2: no piece inside a word
  // three times in a row unless the source has it so), noAdjacentRepeatSize (8: no phrase of 2 to 8 tokens right
  // after itself unless the source has it so), maxCharRun (4), clauseSplitWords (24;
  // translateDocument only), minConfidence (the model's own, else 0: never), omissionGain (0: never; above 0, each
  // source word without which the model finds its translation more likely by more than this many nats is named in
  // omittedWords, with a warning), attention (true), neurons (false: true adds the query and key vectors of every
  // attention, a Transformer's, for neuronView()),
  // copyThrough (true: URLs, e-mail addresses, numbers and names inside an English or French sentence are copied
  // unchanged, and the model writes in digits only the source's numbers), recaseCapitals (true: a sentence in capitals is translated in sentence case and its
  // translation put in capitals), alignMarkup (true: a tag on a word goes around the words the cross attention
  // aligns with it), closeMarks (true: beam search prefers a translation that closes the quotation marks and
  // brackets it opens, where the source's own pair up), alternatives (0: each target token's this many most probable
  // alternatives), targetPrefix (target tokens the translation begins with, as alternatives name them; the first
  // sentence's in translateDocument), signal (an AbortSignal).
  async translate(text, options) {
    const signal = checkSignal(options?.signal, 'translate(text, options)');
    if (!Array.isArray(text)) return this.#work(signal, () => this.#translateOne(text, options));
    text.forEach((t, i) => {
      if (typeof t !== 'string') throw new TypeError(`translate(texts): texts[${i}] must be a string, got ${t === null ? 'null' : typeof t}`);
    });
    optionsJson(options, this.#core);  // a bad option fails before any sentence is translated
    const results = [];
    for (let i = 0; i < text.length; i++) {
      try {
        results.push(await this.#work(signal, () => this.#translateOne(text[i], options), i > 0));
      } catch (e) {
        // Which sentence failed, in an error of the same kind.
        if (e instanceof Error && e !== signal?.reason) e.message = `texts[${i}]: ${e.message}`;
        throw e;
      }
    }
    return results;
  }

  // A text of any length, translated sentence by sentence (a sentence of more than clauseSplitWords words clause by
  // clause) with its lines and empty lines kept:
  // { text, warnings, sentences: [{ begin, end (indices into text), line, joiner, placedText, ...what translate()
  // returns }] }.
  async translateDocument(text, options) {
    const signal = checkSignal(options?.signal, 'translateDocument(text, options)');
    return this.#work(signal, () => this.#run('_attend_translate_document', 'translateDocument', text, options, (json, floats) => {
      for (const s of json.sentences) {
        s.attention = s.attention && this.#maps(s.attention, floats);
        if (s.neurons) s.neurons = shapeNeurons(this.#core, s.neurons, floats);
      }
      return json;
    }));
  }

  // Translation runs synchronously on this thread, so other work (timers, input, an abort) can only run between
  // calls. Calls on one module run one at a time in the order they were made: a call waits for the one before it.
  // It first yields to the event loop (and then checks its signal) when it had to wait, when it has a signal, when
  // it is a later sentence of an array, or when the module has already kept this thread busy for BUSY_SLICE_MS
  // since the event loop last ran. So a page that fires hundreds of calls at once keeps answering between
  // sentences, an abort reaches every call still waiting at once, and a lone call starts at once.
  async #work(signal, fn, between = false) {
    const core = this.#core;
    throwIfAborted(signal);
    const previous = core.attendTail ?? null;
    let release;
    core.attendTail = new Promise((resolve) => { release = resolve; });
    const queued = core.attendPending > 0;
    core.attendPending = (core.attendPending ?? 0) + 1;
    try {
      if (queued && previous) await waitUnlessAborted(previous, signal);
      if (queued || signal || between || (core.attendBusyMs ?? 0) > BUSY_SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        throwIfAborted(signal);
      }
      const started = performance.now();
      try {
        return fn();
      } finally {
        // Time spent on this thread since the event loop last had a turn (the timer resets it when it does).
        core.attendBusyMs = (core.attendBusyMs ?? 0) + performance.now() - started;
        core.attendBusyReset ??= setTimeout(() => { core.attendBusyMs = 0; core.attendBusyReset = undefined; }, 0);
      }
    } finally {
      core.attendPending--;
      // A call that gave up early hands its turn on only when the one before it is done: the order holds.
      if (previous) previous.then(release); else release();
    }
  }

  #translateOne(text, options) {
    const started = performance.now();
    const json = this.#run('_attend_translate', 'translate', text, options, (json, floats) => {
      json.attention = json.attention && this.#maps(json.attention, floats);
      if (json.neurons) json.neurons = shapeNeurons(this.#core, json.neurons, floats);
      return json;
    });
    json.timings.totalMs = performance.now() - started;
    return json;
  }

  #maps(attention, floats) {
    const core = this.#core;
    return {
      cross: shapeMaps(core, attention.cross, floats),
      encoderSelf: shapeMaps(core, attention.encoderSelf, floats),
      decoderSelf: shapeMaps(core, attention.decoderSelf, floats),
    };
  }

  #run(entry, name, text, options, finish) {
    this.#check();
    if (typeof text !== 'string') throw new TypeError(`${name}(text): text must be a string`);
    checkWellFormed(text);
    const core = this.#core;
    options = optionsJson(options, core);
    // The core reads a C string, which a NUL would end: it is read as a space (as the core reads every control
    // character; one character for one, so the spans translateDocument returns still index the caller's text), and
    // said in the warnings.
    const nuls = text.split('\0').length - 1;
    if (nuls > 0) text = text.replaceAll('\0', ' ');
    const textBytes = core.lengthBytesUTF8(text) + 1;
    const optionBytes = core.lengthBytesUTF8(options) + 1;
    const textPtr = heapAlloc(core, textBytes, `${name}(text)`);
    let optionsPtr = 0;
    let result = 0;
    try {
      optionsPtr = heapAlloc(core, optionBytes, `${name}(text, options)`);
      core.stringToUTF8(text, textPtr, textBytes);
      core.stringToUTF8(options, optionsPtr, optionBytes);
      result = core[entry](this.#handle, textPtr, optionsPtr);
      if (!result) throw this.#error('translation failed');
      const json = JSON.parse(core.UTF8ToString(core._attend_result_json(result)));
      if (nuls > 0) json.warnings = [`${nuls} NUL ${nuls === 1 ? 'character' : 'characters'} in the text, read as a space`, ...(json.warnings ?? [])];
      return finish(json, core._attend_result_floats(result));
    } finally {
      core._free(textPtr);
      if (optionsPtr) core._free(optionsPtr);
      if (result) core._attend_result_free(result);
    }
  }

  // The module's WebAssembly memory in bytes (shared by the translators of one build): for watching a long session.
  heapBytes() {
    return this.#core.HEAPU8.byteLength;
  }

  dispose() {
    if (this.#handle) this.#core._attend_translator_free(this.#handle);
    this.#handle = 0;
  }
}

// A character language model (d2l's RNN, GRU or LSTM on The Time Machine): generate() continues a prefix like
// d2l's predict_ch8 (greedy) or by sampling, and gives the next-character distribution of every step.
export class AttendLanguageModel {
  #core; #handle; #info;

  constructor(core, handle, loadedFrom = 'memory') {
    this.#core = core;
    this.#handle = handle;
    this.#info = JSON.parse(core.UTF8ToString(core._attend_lm_info(handle)));
    this.simd = core.simd;
    this.loadedFrom = loadedFrom;
  }

  // { config: { architecture, rnn, vocab_size, hidden_size, num_layers, bidirectional }, vocab: [token by id],
  //   parameters, dtype, card }
  get info() {
    return structuredClone(this.#info);
  }

  // options: { length (default 50), temperature (0, the default: greedy), topK (0: all), seed (a whole number) }.
  // Returns { text: prefix + continuation, continuation, prefixIds, ids, vocab, steps: [{ token, id,
  //   distribution: Float32Array over vocab }] }, steps[i].distribution being the model's before ids[i].
  generate(prefix, { length, temperature, topK, seed } = {}) {
    if (!this.#handle) throw new Error('this language model was disposed');
    if (typeof prefix !== 'string' || prefix.length === 0) throw new TypeError('generate(prefix): prefix must be a non-empty string');
    checkWellFormed(prefix);
    const options = {};
    for (const [name, value, integer] of [['length', length, true], ['temperature', temperature, false], ['top_k', topK, true], ['seed', seed, true]]) {
      if (value === undefined || value === null) continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new TypeError(`option ${name === 'top_k' ? 'topK' : name} must be a finite number >= 0, got ${describe(value)}`);
      }
      if (integer && !Number.isInteger(value)) throw new RangeError(`option ${name === 'top_k' ? 'topK' : name} must be a whole number, got ${value}`);
      options[name] = value;
    }
    const core = this.#core;
    const json = JSON.stringify(options);
    const prefixBytes = core.lengthBytesUTF8(prefix) + 1;
    const optionBytes = core.lengthBytesUTF8(json) + 1;
    const prefixPtr = heapAlloc(core, prefixBytes, 'generate(prefix)');
    let optionsPtr = 0;
    let result = 0;
    try {
      optionsPtr = heapAlloc(core, optionBytes, 'generate(prefix, options)');
      core.stringToUTF8(prefix, prefixPtr, prefixBytes);
      core.stringToUTF8(json, optionsPtr, optionBytes);
      result = core._attend_lm_generate(this.#handle, prefixPtr, optionsPtr);
      if (!result) throw new Error(core.UTF8ToString(core._attend_last_error()) || 'generation failed');
      const r = JSON.parse(core.UTF8ToString(core._attend_result_json(result)));
      const V = r.vocab_size;
      // Copied out of the heap, which may move when memory grows and is freed right after.
      const all = new Float32Array(core.HEAPF32.buffer, core._attend_result_floats(result), r.ids.length * V).slice();
      const vocab = this.#info.vocab;
      return {
        text: r.text, continuation: r.continuation, prefixIds: r.prefix_ids, ids: r.ids, vocab: [...vocab],
        steps: r.ids.map((id, i) => ({ token: vocab[id], id, distribution: all.subarray(i * V, (i + 1) * V) })),
      };
    } finally {
      core._free(prefixPtr);
      if (optionsPtr) core._free(optionsPtr);
      if (result) core._attend_result_free(result);
    }
  }

  dispose() {
    if (this.#handle) this.#core._attend_lm_free(this.#handle);
    this.#handle = 0;
  }
}

export const Attend = {
  simdSupported,

  // source: a URL (string or URL) of a .safetensors model file, or its bytes (ArrayBuffer / Uint8Array).
  // options: { onProgress(loadedBytes, totalBytes, from: 'cache' | 'network' | 'file'), simd: true | false
  //   (default: detect), name,
  //   cache: true | false (default true: keep a downloaded model in the Cache API cache 'attend-models', keyed by
  //   its URL, and load it from there next time; where there is no Cache API it downloads every time),
  //   size: the file's size in bytes where the caller knows it (a cached copy of another size is downloaded again),
  //   signal: an AbortSignal that stops the download and rejects with its reason }
  // The translator's loadedFrom says where the bytes came from.
  async load(source, options = {}) {
    const { core, bytes, from, label } = await modelBytes(source, options, 'Attend.load');
    return withModelBytes(core, bytes, label, (ptr, n, namePtr) => {
      const handle = core._attend_translator_load(ptr, n, namePtr);
      if (!handle) throw new Error(core.UTF8ToString(core._attend_last_error()) || 'the model could not be loaded');
      return new AttendTranslator(core, handle, from);
    }, 'Attend.load');
  },

  // A character language model file (attend lm train; its attend.format is 'attend-language-model'), from the
  // sources and with the options of load(). A translator file is refused, saying so.
  async loadLanguageModel(source, options = {}) {
    const { core, bytes, from, label } = await modelBytes(source, options, 'Attend.loadLanguageModel');
    return withModelBytes(core, bytes, label, (ptr, n, namePtr) => {
      const handle = core._attend_lm_load(ptr, n, namePtr);
      if (!handle) throw new Error(core.UTF8ToString(core._attend_last_error()) || 'the language model could not be loaded');
      return new AttendLanguageModel(core, handle, from);
    }, 'Attend.loadLanguageModel');
  },
};

// The module and the file's bytes for load() and loadLanguageModel().
async function modelBytes(source, { onProgress, simd, name, cache = true, size, signal, maxBytes = DEFAULT_MAX_BYTES, stallTimeoutMs = DEFAULT_STALL_TIMEOUT_MS } = {}, what) {
  checkSignal(signal, `${what}(source, options)`);
  if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0)) {
    throw new TypeError(`${what}(source, options): option maxBytes must be a whole number of bytes above 0, got ${describe(maxBytes)}`);
  }
  if (!(Number.isFinite(stallTimeoutMs) && stallTimeoutMs > 0)) {
    throw new TypeError(`${what}(source, options): option stallTimeoutMs must be a number of milliseconds above 0, got ${describe(stallTimeoutMs)}`);
  }
  if (typeof cache !== 'boolean') throw new TypeError(`${what}(source, options): option cache must be true or false, got ${describe(cache)}`);
  if (size !== undefined && size !== null && !(Number.isSafeInteger(size) && size >= 0)) {
    throw new TypeError(`${what}(source, options): option size must be a whole number of bytes, got ${describe(size)}`);
  }
  throwIfAborted(signal);
  const variant = (simd ?? simdSupported()) ? 'simd' : 'nosimd';
  const core = await loadCore(variant);
  core.simd = variant === 'simd';
  let bytes;
  let from = 'memory';
  if (source instanceof Uint8Array) bytes = source;
  else if (source instanceof ArrayBuffer) bytes = new Uint8Array(source);
  else if (typeof source === 'string' || source instanceof URL) {
    ({ bytes, from } = await readBytes(source, { onProgress, signal, cache, size: size ?? undefined, maxBytes, stallTimeoutMs }));
  } else throw new TypeError(`${what}(source): source must be a URL, an ArrayBuffer or a Uint8Array`);
  throwIfAborted(signal);
  const label = name ?? (typeof source === 'string' || source instanceof URL ? String(source) : 'model');
  return { core, bytes, from, label };
}

// The bytes and the name copied into the wasm heap for `load(ptr, n, namePtr)`, freed after it.
function withModelBytes(core, bytes, label, load, what) {
  const nameBytes = core.lengthBytesUTF8(label) + 1;
  const ptr = heapAlloc(core, bytes.byteLength, `${what}(${label})`);
  let namePtr = 0;
  try {
    namePtr = heapAlloc(core, nameBytes, `${what}(${label})`);
    core.HEAPU8.set(bytes, ptr);
    core.stringToUTF8(label, namePtr, nameBytes);
    return load(ptr, bytes.byteLength, namePtr);
  } finally {
    core._free(ptr);
    if (namePtr) core._free(namePtr);
  }
}

export default Attend;
