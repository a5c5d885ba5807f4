// Attend in a Web Worker, with the same promise API as attend.js:
//   import { AttendWorker } from './attend-client.js';
//   const t = await AttendWorker.load(url, { onProgress, signal });
//   const r = await t.translate(text, { beam: 5, signal });  t.info(); t.dispose();
//
// Requests wait here, in order, and go to the worker one at a time: a request aborted while it waits is taken
// out of the queue and never sent. The worker cannot be interrupted in the middle of a translation, so one
// aborted while the worker runs it rejects at once and its result, when it comes, is dropped.

function abortReason(signal) {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function checkSignal(signal, where) {
  if (signal === undefined || signal === null) return undefined;
  if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
    throw new TypeError(`${where}: option signal must be an AbortSignal`);
  }
  return signal;
}

// Errors cross from the worker as name and message; the kinds callers test for keep their class.
const ERROR_CLASSES = { TypeError, RangeError };

// An AbortSignal cannot be posted to a worker; the rest of the options are, as given (the worker checks them).
function withoutSignal(options, where) {
  if (options === null || typeof options !== 'object') return { options, signal: undefined };
  const { signal, ...rest } = options;
  return { options: rest, signal: checkSignal(signal, where) };
}

export class AttendWorker {
  #worker; #next = 1; #info = null; #optionBounds = null;
  loadedFrom = null;  // as the worker's translator says: 'cache' | 'network' | 'memory'
  #queue = [];        // requests not sent yet, oldest first
  #current = null;    // the request the worker is running, until its answer arrives (even if it was aborted)
  #failed = null;     // the worker's own failure: every later request rejects with it

  constructor(workerUrl = new URL('./attend-worker.js', import.meta.url)) {
    this.#worker = new Worker(workerUrl, { type: 'module' });
    this.#worker.onmessage = ({ data }) => {
      const call = this.#current;
      if (!call || data.id !== call.id) return;
      if (data.progress) {
        if (!call.settled) call.onProgress?.(...data.progress);
        return;
      }
      this.#current = null;
      if (data.error !== undefined) call.reject(new (ERROR_CLASSES[data.errorName] ?? Error)(data.error));
      else call.resolve(data.result);
      this.#pump();
    };
    this.#worker.onerror = (e) => {
      this.#failed = new Error(`the translation worker failed: ${e.message || 'could not start'}`);
      const calls = [this.#current, ...this.#queue].filter(Boolean);
      this.#current = null;
      this.#queue = [];
      for (const call of calls) call.reject(this.#failed);
    };
  }

  #call(message, { onProgress, signal } = {}) {
    return new Promise((resolve, reject) => {
      if (this.#failed) { reject(this.#failed); return; }
      if (signal?.aborted) { reject(abortReason(signal)); return; }
      const call = { id: this.#next++, message, onProgress, settled: false };
      const onAbort = () => {
        const waiting = this.#queue.indexOf(call);
        if (waiting >= 0) this.#queue.splice(waiting, 1);
        call.reject(abortReason(signal));
      };
      const settle = (finish) => (value) => {
        if (call.settled) return;
        call.settled = true;
        signal?.removeEventListener('abort', onAbort);
        finish(value);
      };
      call.resolve = settle(resolve);
      call.reject = settle(reject);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(call);
      this.#pump();
    });
  }

  #pump() {
    if (this.#current || !this.#queue.length) return;
    const call = this.#current = this.#queue.shift();
    const message = call.message;
    // Bytes are transferred, not copied; URLs are resolved against the page first.
    const source = message.source;
    if (typeof source === 'string') message.source = new URL(source, globalThis.location?.href).href;
    const transfer = source instanceof ArrayBuffer ? [source] : [];
    try {
      this.#worker.postMessage({ id: call.id, ...message }, transfer);
    } catch (e) {
      // Something in the request could not be posted (a function among the options, say).
      this.#current = null;
      call.reject(e);
      this.#pump();
    }
  }

  // options: what Attend.load takes (onProgress, simd, name, cache, size, signal, maxBytes, stallTimeoutMs) and workerUrl. An abort ends the
  // worker, and with it the download. The worker reads and fills the same Cache API cache as attend.js.
  static async load(source, { onProgress, simd, name, cache, size, signal, maxBytes, stallTimeoutMs, workerUrl } = {}) {
    checkSignal(signal, 'AttendWorker.load(source, options)');
    if (signal?.aborted) throw abortReason(signal);
    const w = new AttendWorker(workerUrl);
    try {
      ({ info: w.#info, optionBounds: w.#optionBounds, loadedFrom: w.loadedFrom } = await w.#call({ op: 'load', source, simd, name, cache, size, maxBytes, stallTimeoutMs }, { onProgress, signal }));
    } catch (e) {
      w.#worker.terminate();  // a failed or aborted load must not leave a worker (and its memory) behind
      throw e;
    }
    return w;
  }

  info() { return structuredClone(this.#info); }

  // What each number option accepts (attend.js's optionBounds()), as the load returned it.
  optionBounds() { return structuredClone(this.#optionBounds); }

  // text: a string or an array of strings (an array of results, in order); options as attend.js takes them.
  translate(text, options = {}) {
    return this.#send('translate', text, options);
  }

  translateDocument(text, options = {}) {
    return this.#send('translateDocument', text, options);
  }

  async #send(op, text, given) {
    const { options, signal } = withoutSignal(given, `${op}(text, options)`);
    return this.#call({ op, text, options }, { signal });
  }

  async dispose() {
    await this.#call({ op: 'dispose' });
    this.#worker.terminate();
  }
}

export default AttendWorker;
