// Training a translator in the page: the seeds' models (GRU + Bahdanau attention, the small Transformer) learned on
// sentence pairs by Attend's C++ core in WebAssembly, one batch at a time, on the same step as `attend train`.
//
//   import { AttendTrainer } from './attend-train.js';
//   const trainer = await AttendTrainer.create('bahdanau-d2l', tsv);   // "English<TAB>French" lines
//   trainer.step(10);                                  // [{ step, epoch, loss, lr, epochDone, epochLoss? }, ...]
//   trainer.translate('go .');                         // { text, sourceTokens, targetTokens, attention }
//   const bytes = trainer.exportModel();               // a model file that Attend.load and `attend translate` read
//
// The seeds' character language models (d2l 8.5-9.4: RNN, GRU, LSTM, deep and bidirectional) train on a text the
// same way, on the same step as `attend lm train`:
//
//   const lm = await AttendTrainer.createLanguageModel('gru-d2l', text);   // any text; d2l's cleaning keeps a-z
//   lm.step(8);                                        // [{ step, epoch, loss, epochDone, epochPerplexity? }, ...]
//   lm.predict('time traveller', 50);                  // d2l's predict_ch8: the prefix and 50 greedy characters
//   const file = lm.exportModel();                     // a file that `attend lm sample` and Attend.loadLanguageModel read
//
// Steps run synchronously: a page keeps its interface responsive by calling step() in small slices (or from a
// Worker); each call returns when its batches are done.
//
// Threads: where SharedArrayBuffer exists (a cross-origin isolated page: COOP same-origin + COEP require-corp; Node),
// a translator trains on several data-parallel ranks, one per thread of the module built with threads
// (dist/attend-train-simd-mt): each rank trains on its share of every batch and the ranks' gradients are summed,
// so the model learns what one thread teaches it, up to float rounding, in less time. By default a cross-origin
// isolated page takes min(navigator.hardwareConcurrency, maxTrainerThreads) threads, anything else one (Node: when
// asked, { threads }); trainer.threads says how many.
// The language models train on one thread.
import { simdSupported } from './attend.js';
import { loadModule } from './module-loader.js';

// The presets a page can train.
export const trainablePresets = Object.freeze(['bahdanau-d2l', 'transformer-d2l']);
// The character language models, as `attend lm train --preset` names them.
export const languageModelPresets = Object.freeze(['rnn-d2l', 'gru-d2l', 'lstm-d2l', 'deep-lstm-d2l', 'birnn-d2l']);
// The most text a language model trainer takes, in UTF-8 bytes (the core's kLmMaxTextBytes).
export const maxLanguageModelText = 64 * 1024 * 1024;
// The most threads a translator trainer takes (the threaded module's ATTEND_TRAIN_MAX_THREADS).
export const maxTrainerThreads = 4;

// True where a trainer can train on several threads: the engine shares memory between workers (SharedArrayBuffer;
// in a browser only on a cross-origin isolated page) and runs WebAssembly SIMD (the threaded module's build).
export function threadsSupported() {
  if (typeof SharedArrayBuffer !== 'function' || !simdSupported()) return false;
  return globalThis.crossOriginIsolated !== false;  // undefined in Node, which shares memory without isolation
}

// The threads a trainer takes by default: the cores, at most maxTrainerThreads, on a cross-origin isolated page;
// else 1.
export function defaultTrainerThreads() {
  if (globalThis.crossOriginIsolated !== true || !threadsSupported()) return 1;
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.max(1, Math.min(maxTrainerThreads, cores));
}

// The module's memory as it is now: a thread of the threaded module may have grown it since the views were made.
function heapBuffer(m) {
  return m.wasmMemory?.buffer ?? m.HEAPU8.buffer;
}

// A C call's JSON result, or the module's last error where it returned none.
function resultJson(m, ptr, what) {
  if (!ptr) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || `${what} failed`);
  return JSON.parse(m.UTF8ToString(ptr));
}

function checkSteps(steps) {
  if (!Number.isInteger(steps) || steps < 1 || steps > 100000) {
    throw new RangeError(`steps must be a whole number from 1 to 100000, got ${steps}`);
  }
}

export class AttendTrainer {
  #m;
  #handle;

  constructor(module, handle, simd, threads = 1) {
    this.#m = module;
    this.#handle = handle;
    this.simd = simd;
    this.threads = threads;  // the data-parallel ranks it trains on, one per thread
  }

  // preset: one of trainablePresets; pairs: TSV text ("source<TAB>target[<TAB>...]" lines) or [[source, target]];
  // options: { trainPairs (the preset's 600), validPairs (200), seed, lr, epochs (the run's length, for the caller to
  // keep), simd, threads (defaultTrainerThreads(); more than 1 needs threadsSupported() and the SIMD build) }.
  static async create(preset, pairs, { simd, threads, ...options } = {}) {
    if (!trainablePresets.includes(preset)) {
      throw new RangeError(`preset must be one of ${trainablePresets.join(', ')}, got ${JSON.stringify(preset)}`);
    }
    const tsv = typeof pairs === 'string' ? pairs : tsvOf(pairs);
    if (tsv.includes('\0')) throw new RangeError('pairs: the text holds a NUL character');
    const useSimd = simd ?? simdSupported();
    if (threads === undefined) threads = useSimd ? defaultTrainerThreads() : 1;
    if (!Number.isInteger(threads) || threads < 1 || threads > maxTrainerThreads) {
      throw new RangeError(`threads must be a whole number from 1 to ${maxTrainerThreads}, got ${threads}`);
    }
    if (threads > 1 && !threadsSupported()) {
      throw new RangeError(`threads: ${threads} threads need SharedArrayBuffer and WebAssembly SIMD, which this ` +
        'engine or page lacks (a page must be cross-origin isolated: COOP same-origin and COEP require-corp headers)');
    }
    if (threads > 1 && !useSimd) throw new RangeError('threads: the module with threads is the SIMD build (simd: true)');
    const variant = threads > 1 ? 'simd-mt' : useSimd ? 'simd' : 'nosimd';
    const m = await loadModule('attend-train', variant);
    const json = JSON.stringify({ ...options, threads });
    const handle = withStrings(m, [preset, tsv, json], ([p, t, o]) => m._attend_trainer_create(p, t, o));
    if (!handle) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || 'cannot create the trainer');
    return new AttendTrainer(m, handle, useSimd, m._attend_trainer_threads(handle));
  }

  // A character language model trained on `text` (a string, or UTF-8 bytes as a Uint8Array or ArrayBuffer: a file
  // read as it is). preset: one of languageModelPresets; options: { seed (1, as attend lm train), lr (the preset's),
  // epochs (the preset's 500: the run's length, for the caller to keep), chars (the first characters after d2l's
  // cleaning that train: the preset's 10000; 0: all), randomIter (d2l's random sampling), simd }. An empty text,
  // one that is not valid UTF-8, too long, or too short for one batch of 32 x 35 characters is refused by name.
  static async createLanguageModel(preset, text, { simd, ...options } = {}) {
    if (!languageModelPresets.includes(preset)) {
      throw new RangeError(`preset must be one of ${languageModelPresets.join(', ')}, got ${JSON.stringify(preset)}`);
    }
    const bytes = textBytes(text);
    checkLmOptions(options);
    const variant = (simd ?? simdSupported()) ? 'simd' : 'nosimd';
    const m = await loadModule('attend-train', variant);
    const data = m._malloc(Math.max(1, bytes.length));
    if (!data) throw new RangeError(`cannot allocate ${bytes.length} bytes in the wasm heap`);
    let handle;
    try {
      new Uint8Array(heapBuffer(m)).set(bytes, data);
      handle = withStrings(m, [preset, JSON.stringify(options)],
        ([p, o]) => m._attend_lm_trainer_create(p, data, bytes.length, o));
    } finally {
      m._free(data);
    }
    if (!handle) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || 'cannot create the trainer');
    return new AttendLmTrainer(m, handle, variant === 'simd');
  }

  #live() {
    if (!this.#handle) throw new Error('this trainer was disposed');
    return this.#handle;
  }

  #json(ptr, what) {
    return resultJson(this.#m, ptr, what);
  }

  // { preset, architecture, parameters, trainPairs, validPairs, sourceVocab, targetVocab, options }
  info() {
    return this.#json(this.#m._attend_trainer_info(this.#live()), 'info');
  }

  // Trains `steps` batches (1 by default); one record per batch.
  step(steps = 1) {
    checkSteps(steps);
    return this.#json(this.#m._attend_trainer_step(this.#live(), steps), 'step');
  }

  // { valLoss, valBleu } over the validation pairs (greedy BLEU on the seeds' words).
  validate() {
    return this.#json(this.#m._attend_trainer_validate(this.#live()), 'validate');
  }

  // Greedy translation by the model as it is now: { text, sourceTokens, targetTokens, attention: { layers, heads,
  // rows, cols, weights: Float32Array [layers, heads, rows, cols] } } (cross attention: a row per target token, a
  // column per source token, their <eos> included); with options.reference, also bleu: the seeds' bleu(k = 2) of
  // the translation's words against it, as their four-sentence table prints it.
  translate(text, { reference = '' } = {}) {
    for (const [name, value] of [['text', text], ['reference', reference]]) {
      if (typeof value !== 'string') throw new TypeError(`translate: ${name} must be a string`);
      if (value.includes('\0')) throw new RangeError(`translate: the ${name} holds a NUL character`);
    }
    const m = this.#m;
    const handle = this.#live();
    const result = this.#json(withStrings(m, [text, reference], ([t, r]) => m._attend_trainer_translate(handle, t, r)),
      'translate');
    const n = m._attend_trainer_floats_length();
    result.attention.weights = new Float32Array(heapBuffer(m), m._attend_trainer_floats(), n).slice();
    return result;
  }

  // The model as it is now, as a model file (F32 .safetensors bytes).
  exportModel() {
    const m = this.#m;
    const ptr = m._attend_trainer_export(this.#live());
    if (!ptr) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || 'export failed');
    return new Uint8Array(heapBuffer(m), ptr, m._attend_trainer_bytes_length()).slice();
  }

  dispose() {
    if (this.#handle) this.#m._attend_trainer_free(this.#handle);
    this.#handle = 0;
  }
}

// A character language model being trained (AttendTrainer.createLanguageModel).
export class AttendLmTrainer {
  #m;
  #handle;

  constructor(module, handle, simd) {
    this.#m = module;
    this.#handle = handle;
    this.simd = simd;
  }

  #live() {
    if (!this.#handle) throw new Error('this trainer was disposed');
    return this.#handle;
  }

  #json(ptr, what) {
    return resultJson(this.#m, ptr, what);
  }

  // { preset, description, rnn, hiddenSize, layers, bidirectional, parameters, vocab, trainChars, batchesPerEpoch,
  // options: { lr, epochs, batch, steps, randomIter, seed } }
  info() {
    return this.#json(this.#m._attend_lm_trainer_info(this.#live()), 'info');
  }

  // Trains `steps` batches (1 by default), going on into the next epoch after an epoch's last; one record per
  // batch: { step, epoch (0-based), batch, batches, loss (mean cross-entropy), gradNorm (before clipping),
  // epochDone, epochPerplexity (on an epoch's last batch: d2l's training perplexity of that epoch) }.
  step(steps = 1) {
    checkSteps(steps);
    return this.#json(this.#m._attend_lm_trainer_step(this.#live(), steps), 'step');
  }

  // d2l's predict_ch8 by the model as it is now: the prefix (read as it is, character by character) and `length`
  // greedy characters after it.
  predict(prefix, length = 50) {
    if (typeof prefix !== 'string') throw new TypeError('predict: prefix must be a string');
    if (!prefix) throw new RangeError('predict: the prefix is empty (it needs at least one character)');
    if (prefix.includes('\0')) throw new RangeError('predict: the prefix holds a NUL character');
    if (!Number.isInteger(length) || length < 0 || length > 10000) {
      throw new RangeError(`predict: length must be a whole number from 0 to 10000, got ${length}`);
    }
    const m = this.#m;
    const handle = this.#live();
    const ptr = withStrings(m, [prefix], ([p]) => m._attend_lm_trainer_predict(handle, p, length));
    if (!ptr) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || 'predict failed');
    return m.UTF8ToString(ptr);
  }

  // The model as it is now, as a language model file (F32 .safetensors bytes with a card of its training) that
  // `attend lm sample` / `attend lm eval` and Attend.loadLanguageModel read.
  exportModel() {
    const m = this.#m;
    const ptr = m._attend_lm_trainer_export(this.#live());
    if (!ptr) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || 'export failed');
    return new Uint8Array(heapBuffer(m), ptr, m._attend_trainer_bytes_length()).slice();
  }

  dispose() {
    if (this.#handle) this.#m._attend_lm_trainer_free(this.#handle);
    this.#handle = 0;
  }
}

// The text's UTF-8 bytes, checked for what JavaScript can see before the core does (which checks the bytes).
function textBytes(text) {
  let bytes;
  if (typeof text === 'string') {
    if (!text) throw new RangeError('text: the text is empty');
    if (text.length > maxLanguageModelText) {
      throw new RangeError(`text: ${text.length} characters, more than the ${maxLanguageModelText} bytes a trainer takes`);
    }
    if (typeof text.isWellFormed === 'function' && !text.isWellFormed()) {
      throw new RangeError('text: the text holds a lone surrogate (it is not valid Unicode, so no valid UTF-8)');
    }
    bytes = new TextEncoder().encode(text);
  } else if (text instanceof Uint8Array) {
    bytes = text;
  } else if (text instanceof ArrayBuffer) {
    bytes = new Uint8Array(text);
  } else {
    throw new TypeError('text: expected a string, a Uint8Array or an ArrayBuffer of UTF-8');
  }
  if (!bytes.length) throw new RangeError('text: the text is empty');
  if (bytes.length > maxLanguageModelText) {
    throw new RangeError(`text: ${bytes.length} bytes, more than the ${maxLanguageModelText} a trainer takes`);
  }
  return bytes;
}

function checkLmOptions(options) {
  const whole = (name, min, max) => {
    const v = options[name];
    if (v !== undefined && !(Number.isInteger(v) && v >= min && v <= max)) {
      throw new RangeError(`${name} must be a whole number from ${min} to ${max}, got ${v}`);
    }
  };
  whole('seed', 0, Number.MAX_SAFE_INTEGER);
  whole('epochs', 1, 100000);
  whole('chars', 0, maxLanguageModelText);
  if (options.lr !== undefined && !(typeof options.lr === 'number' && options.lr > 0 && Number.isFinite(options.lr))) {
    throw new RangeError(`lr must be a positive number, got ${options.lr}`);
  }
  if (options.randomIter !== undefined && typeof options.randomIter !== 'boolean') {
    throw new TypeError('randomIter must be true or false');
  }
}

function tsvOf(pairs) {
  if (!Array.isArray(pairs)) throw new TypeError('pairs: expected TSV text or an array of [source, target]');
  return pairs.map((p, i) => {
    if (!Array.isArray(p) || typeof p[0] !== 'string' || typeof p[1] !== 'string') {
      throw new TypeError(`pairs[${i}]: expected [source, target] strings`);
    }
    if (/[\t\n]/.test(p[0] + p[1])) throw new RangeError(`pairs[${i}]: a sentence holds a tab or a line break`);
    return `${p[0]}\t${p[1]}`;
  }).join('\n');
}

// Calls fn(pointers) with each string copied into the heap as UTF-8, NUL-terminated; frees them after.
function withStrings(m, strings, fn) {
  const ptrs = strings.map((s) => {
    const n = m.lengthBytesUTF8(s) + 1;
    const p = m._malloc(n);
    if (!p) throw new RangeError(`cannot allocate ${n} bytes in the wasm heap`);
    m.stringToUTF8(s, p, n);
    return p;
  });
  try {
    return fn(ptrs);
  } finally {
    for (const p of ptrs) m._free(p);
  }
}
