// Attend in a Web Worker, with the same promise API as attend.js:
//   import { AttendWorker } from './attend-client.js';
//   const t = await AttendWorker.load(url, { onProgress });
//   const r = await t.translate(text, { beam: 5 });  t.info(); t.dispose();
export class AttendWorker {
  #worker; #pending = new Map(); #next = 1; #info = null;

  constructor(workerUrl = new URL('./attend-worker.js', import.meta.url)) {
    this.#worker = new Worker(workerUrl, { type: 'module' });
    this.#worker.onmessage = ({ data }) => {
      const call = this.#pending.get(data.id);
      if (!call) return;
      if (data.progress) { call.onProgress?.(...data.progress); return; }
      this.#pending.delete(data.id);
      if (data.error !== undefined) call.reject(new Error(data.error));
      else call.resolve(data.result);
    };
    this.#worker.onerror = (e) => {
      const error = new Error(`the translation worker failed: ${e.message || 'could not start'}`);
      for (const call of this.#pending.values()) call.reject(error);
      this.#pending.clear();
    };
  }

  #call(message, onProgress) {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, onProgress });
      // Bytes are transferred, not copied; URLs are resolved against the page first.
      const source = message.source;
      if (typeof source === 'string') message.source = new URL(source, globalThis.location?.href).href;
      const transfer = source instanceof ArrayBuffer ? [source] : [];
      this.#worker.postMessage({ id, ...message }, transfer);
    });
  }

  static async load(source, { onProgress, simd, name, workerUrl } = {}) {
    const w = new AttendWorker(workerUrl);
    try {
      w.#info = await w.#call({ op: 'load', source, simd, name }, onProgress);
    } catch (e) {
      w.#worker.terminate();  // a failed load must not leave a worker (and its memory) behind
      throw e;
    }
    return w;
  }

  info() { return structuredClone(this.#info); }
  translate(text, options = {}) { return this.#call({ op: 'translate', text, options }); }
  translateDocument(text, options = {}) { return this.#call({ op: 'translateDocument', text, options }); }
  async dispose() {
    await this.#call({ op: 'dispose' });
    this.#worker.terminate();
  }
}

export default AttendWorker;
