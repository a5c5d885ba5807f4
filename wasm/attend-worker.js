// The worker side of attend-client.js: runs Attend in a Web Worker (module worker) so translation never blocks
// the page. Messages: {id, op: 'load'|'translate'|'translateDocument'|'info'|'dispose', ...} -> {id, result} or
// {id, error, errorName}; a load's result is {info, optionBounds, loadedFrom}, its progress {id, progress: [loaded, total, from]}.
// attend-client.js sends one request at a time and keeps the rest (and handles aborts).
import { Attend } from './attend.js';

let translator = null;

self.onmessage = async ({ data }) => {
  const { id, op } = data;
  try {
    let result;
    if (op === 'load') {
      translator?.dispose();
      translator = await Attend.load(data.source, {
        simd: data.simd, name: data.name, cache: data.cache, size: data.size,
        maxBytes: data.maxBytes, stallTimeoutMs: data.stallTimeoutMs,
        onProgress: (loaded, total, from) => self.postMessage({ id, progress: [loaded, total, from] }),
      });
      result = { info: translator.info(), optionBounds: translator.optionBounds(), loadedFrom: translator.loadedFrom };
    } else if (!translator) {
      throw new Error('no model is loaded in this worker');
    } else if (op === 'translate') {
      result = await translator.translate(data.text, data.options);
    } else if (op === 'translateDocument') {
      result = await translator.translateDocument(data.text, data.options);
    } else if (op === 'info') {
      result = translator.info();
    } else if (op === 'dispose') {
      translator.dispose();
      translator = null;
    } else {
      throw new Error(`unknown operation '${op}'`);
    }
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: e?.message ?? String(e), errorName: e?.name });
  }
};
