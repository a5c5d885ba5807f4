// Training a translator in the page: the seeds' models (GRU + Bahdanau attention, the small Transformer) learned on
// sentence pairs by Attend's C++ core in WebAssembly, one batch at a time, on the same step as `attend train`.
//
//   import { AttendTrainer } from './attend-train.js';
//   const trainer = await AttendTrainer.create('bahdanau-d2l', tsv);   // "English<TAB>French" lines
//   trainer.step(10);                                  // [{ step, epoch, loss, lr, epochDone, epochLoss? }, ...]
//   trainer.translate('go .');                         // { text, sourceTokens, targetTokens, attention }
//   const bytes = trainer.exportModel();               // a model file that Attend.load and `attend translate` read
//
// Steps run synchronously: a page keeps its interface responsive by calling step() in small slices (or from a
// Worker); each call returns when its batches are done.
import { simdSupported } from './attend.js';
import { loadModule } from './module-loader.js';

// The presets a page can train.
export const trainablePresets = Object.freeze(['bahdanau-d2l', 'transformer-d2l']);

export class AttendTrainer {
  #m;
  #handle;

  constructor(module, handle, simd) {
    this.#m = module;
    this.#handle = handle;
    this.simd = simd;
  }

  // preset: one of trainablePresets; pairs: TSV text ("source<TAB>target[<TAB>...]" lines) or [[source, target]];
  // options: { trainPairs (the preset's 600), validPairs (200), seed, lr, epochs (the run's length, for the caller to
  // keep), simd }.
  static async create(preset, pairs, { simd, ...options } = {}) {
    if (!trainablePresets.includes(preset)) {
      throw new RangeError(`preset must be one of ${trainablePresets.join(', ')}, got ${JSON.stringify(preset)}`);
    }
    const tsv = typeof pairs === 'string' ? pairs : tsvOf(pairs);
    if (tsv.includes('\0')) throw new RangeError('pairs: the text holds a NUL character');
    const variant = (simd ?? simdSupported()) ? 'simd' : 'nosimd';
    const m = await loadModule('attend-train', variant);
    const handle = withStrings(m, [preset, tsv, JSON.stringify(options)], ([p, t, o]) => m._attend_trainer_create(p, t, o));
    if (!handle) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || 'cannot create the trainer');
    return new AttendTrainer(m, handle, variant === 'simd');
  }

  #live() {
    if (!this.#handle) throw new Error('this trainer was disposed');
    return this.#handle;
  }

  #json(ptr, what) {
    if (!ptr) throw new Error(this.#m.UTF8ToString(this.#m._attend_train_last_error()) || `${what} failed`);
    return JSON.parse(this.#m.UTF8ToString(ptr));
  }

  // { preset, architecture, parameters, trainPairs, validPairs, sourceVocab, targetVocab, options }
  info() {
    return this.#json(this.#m._attend_trainer_info(this.#live()), 'info');
  }

  // Trains `steps` batches (1 by default); one record per batch.
  step(steps = 1) {
    if (!Number.isInteger(steps) || steps < 1 || steps > 100000) {
      throw new RangeError(`steps must be a whole number from 1 to 100000, got ${steps}`);
    }
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
    result.attention.weights = new Float32Array(m.HEAPF32.buffer, m._attend_trainer_floats(), n).slice();
    return result;
  }

  // The model as it is now, as a model file (F32 .safetensors bytes).
  exportModel() {
    const m = this.#m;
    const ptr = m._attend_trainer_export(this.#live());
    if (!ptr) throw new Error(m.UTF8ToString(m._attend_train_last_error()) || 'export failed');
    return new Uint8Array(m.HEAPU8.buffer, ptr, m._attend_trainer_bytes_length()).slice();
  }

  dispose() {
    if (this.#handle) this.#m._attend_trainer_free(this.#handle);
    this.#handle = 0;
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
