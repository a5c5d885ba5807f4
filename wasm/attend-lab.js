// The attention lab: the seeds' teaching examples (masked softmax, additive and scaled dot-product attention,
// positional encoding, Nadaraya-Watson kernel regression and its training) computed by Attend's C++ core in
// WebAssembly, in the browser or in Node.
//
//   import { AttendLab } from './attend-lab.js';
//   const lab = await AttendLab.load();
//   lab.maskedSoftmax(x, [2, 2, 4], [2, 3]);                    // Float32Array [2, 2, 4]
//   lab.attentionPool([0.58, 0.54, 0.44, 0.42], h, 2);          // { weights, context }
//   lab.nwTrainEpoch(xTrain, yTrain, w);                        // { loss, dw, w }
//
// Every array argument is a plain array or a typed array, row-major; results are fresh Float32Arrays.
import { simdSupported } from './attend.js';
import { loadModule } from './module-loader.js';

const product = (dims) => dims.reduce((a, b) => a * b, 1);

function dims(name, shape, n) {
  if (!Array.isArray(shape) || shape.length !== n || !shape.every((d) => Number.isInteger(d) && d >= 1)) {
    throw new RangeError(`${name}: expected ${n} positive integer sizes, got ${JSON.stringify(shape)}`);
  }
  return shape;
}

function floats(name, values, length) {
  if (values == null || typeof values.length !== 'number') throw new TypeError(`${name}: expected an array of numbers`);
  if (length !== undefined && values.length !== length) {
    throw new RangeError(`${name}: expected ${length} numbers, got ${values.length}`);
  }
  return values instanceof Float32Array ? values : Float32Array.from(values, Number);
}

// valid lengths: null/undefined (no mask), one per batch row [B], or one per query [B * Tq].
function lengths(name, validLens, B, Tq) {
  if (validLens == null) return { lens: null, perQuery: 0 };
  const flat = Array.from(validLens.flat ? validLens.flat() : validLens, Number);
  if (flat.length !== B && flat.length !== B * Tq) {
    throw new RangeError(`${name}: expected ${B} valid lengths (one per batch row) or ${B * Tq} (one per query), got ${flat.length}`);
  }
  if (!flat.every(Number.isInteger)) throw new RangeError(`${name}: valid lengths must be whole numbers`);
  return { lens: Int32Array.from(flat), perQuery: flat.length === B * Tq && B * Tq !== B ? 1 : 0 };
}

export class AttendLab {
  #m;

  constructor(module, simd) {
    this.#m = module;
    this.simd = simd;
  }

  // options: { simd: true | false (default: detect) }
  static async load({ simd } = {}) {
    const variant = (simd ?? simdSupported()) ? 'simd' : 'nosimd';
    return new AttendLab(await loadModule('attend-lab', variant), variant === 'simd');
  }

  // Calls fn(...pointers) with each input copied into the wasm heap and room for each output; returns the outputs
  // as Float32Arrays. inputs: [Float32Array | Int32Array | null]; outputs: [length].
  #call(what, inputs, outputs, fn) {
    const m = this.#m;
    const ptrs = [];
    try {
      const inPtrs = inputs.map((a) => {
        if (a == null) return 0;
        const p = m._malloc(Math.max(4, a.byteLength));
        ptrs.push(p);
        (a instanceof Int32Array ? m.HEAP32 : m.HEAPF32).set(a, p >> 2);
        return p;
      });
      const outPtrs = outputs.map((n) => {
        const p = m._malloc(Math.max(4, n * 4));
        ptrs.push(p);
        return p;
      });
      if (!fn(outPtrs, inPtrs)) throw new Error(m.UTF8ToString(m._attend_lab_last_error()) || `${what} failed`);
      return outPtrs.map((p, i) => new Float32Array(m.HEAPF32.buffer, p, outputs[i]).slice());
    } finally {
      for (const p of ptrs) m._free(p);
    }
  }

  // d2l masked_softmax over the last axis of x [B, Tq, Tk]; keys at or beyond the valid length get weight 0
  // (a row with valid length 0 is all zeros).
  maskedSoftmax(x, shape, validLens = null) {
    const [B, Tq, Tk] = dims('maskedSoftmax(shape)', shape, 3);
    const xs = floats('maskedSoftmax(x)', x, B * Tq * Tk);
    const { lens, perQuery } = lengths('maskedSoftmax(validLens)', validLens, B, Tq);
    return this.#call('masked softmax', [xs, lens], [B * Tq * Tk],
      ([out], [px, pl]) => this.#m._attend_lab_masked_softmax(out, px, pl, perQuery, B, Tq, Tk))[0];
  }

  // d2l AdditiveAttention (eval mode). queries [B,Tq,Dq], keys [B,Tk,Dk], values [B,Tk,Dv], Wq [H,Dq], Wk [H,Dk],
  // wv [H]. Returns { output [B,Tq,Dv], weights [B,Tq,Tk], scores [B,Tq,Tk] (before the mask) }.
  additiveAttention({ queries, keys, values, Wq, Wk, wv, validLens = null, shape }) {
    const { B, Tq, Tk, Dq, Dk, H, Dv } = shape ?? {};
    dims('additiveAttention(shape)', [B, Tq, Tk, Dq, Dk, H, Dv], 7);
    const args = [floats('queries', queries, B * Tq * Dq), floats('keys', keys, B * Tk * Dk),
      floats('values', values, B * Tk * Dv), floats('Wq', Wq, H * Dq), floats('Wk', Wk, H * Dk), floats('wv', wv, H)];
    const { lens, perQuery } = lengths('additiveAttention(validLens)', validLens, B, Tq);
    const [output, weights, scores] = this.#call('additive attention', [...args, lens], [B * Tq * Dv, B * Tq * Tk, B * Tq * Tk],
      ([o, w, s], [q, k, v, wq, wk, wvp, l]) =>
        this.#m._attend_lab_additive_attention(o, w, s, q, k, v, wq, wk, wvp, l, perQuery, B, Tq, Tk, Dq, Dk, H, Dv));
    return { output, weights, scores };
  }

  // d2l DotProductAttention (eval mode) on the fused attention kernel. queries [B,Tq,D], keys [B,Tk,D],
  // values [B,Tk,Dv]; scale defaults to 1/sqrt(D). Returns { output [B,Tq,Dv], weights, scores [B,Tq,Tk] }.
  dotProductAttention({ queries, keys, values, validLens = null, scale = 0, shape }) {
    const { B, Tq, Tk, D, Dv } = shape ?? {};
    dims('dotProductAttention(shape)', [B, Tq, Tk, D, Dv], 5);
    const args = [floats('queries', queries, B * Tq * D), floats('keys', keys, B * Tk * D), floats('values', values, B * Tk * Dv)];
    const { lens, perQuery } = lengths('dotProductAttention(validLens)', validLens, B, Tq);
    const [output, weights, scores] = this.#call('dot-product attention', [...args, lens], [B * Tq * Dv, B * Tq * Tk, B * Tq * Tk],
      ([o, w, s], [q, k, v, l]) =>
        this.#m._attend_lab_dot_product_attention(o, w, s, q, k, v, l, perQuery, Number(scale) || 0, B, Tq, Tk, D, Dv));
    return { output, weights, scores };
  }

  // One attention step from given scores: weights = softmax(scores) (over the first validLen keys when given),
  // context = sum_j weights[j] values[j]. scores [Tk], values [Tk, Dv]. Returns { weights [Tk], context [Dv] }.
  attentionPool(scores, values, Dv, validLen = -1) {
    const s = floats('attentionPool(scores)', scores);
    const Tk = s.length;
    dims('attentionPool(sizes)', [Tk, Dv], 2);
    const v = floats('attentionPool(values)', values, Tk * Dv);
    const [weights, context] = this.#call('attention pooling', [s, v], [Tk, Dv],
      ([w, c], [ps, pv]) => this.#m._attend_lab_attention_pool(w, c, ps, pv, validLen, Tk, Dv));
    return { weights, context };
  }

  // The sinusoidal positional encoding table P [T, C]: P[t, 2j] = sin(t / 10000^(2j/C)), P[t, 2j+1] = cos(...).
  positionalEncoding(T, C) {
    dims('positionalEncoding(T, C)', [T, C], 2);
    return this.#call('positional encoding', [], [T * C], ([p]) => this.#m._attend_lab_positional_encoding(p, T, C))[0];
  }

  // n standard normal / uniform [0, 1) numbers from the core's counter-based generator (reproducible per seed).
  normal(n, seed = 0, offset = 0) {
    dims('normal(n)', [n], 1);
    return this.#call('normal', [], [n], ([p]) => this.#m._attend_lab_normal(p, n, seed, offset))[0];
  }

  uniform(n, seed = 0, offset = 0) {
    dims('uniform(n)', [n], 1);
    return this.#call('uniform', [], [n], ([p]) => this.#m._attend_lab_uniform(p, n, seed, offset))[0];
  }

  // The seed's data: xTrain sorted in [0, 5), yTrain = 2 sin x + x^0.8 + N(0, 0.5), xTest = 0, 0.1, ..., yTruth,
  // and the parametric model's initial w (torch.rand((1,))).
  nwData({ nTrain = 50, nTest = 50, seed = 1 } = {}) {
    dims('nwData(nTrain, nTest)', [nTrain, nTest], 2);
    const [xTrain, yTrain, xTest, yTruth, w0] = this.#call('Nadaraya-Watson data', [], [nTrain, nTrain, nTest, nTest, 1],
      ([a, b, c, d, e]) => this.#m._attend_lab_nw_data(a, b, c, d, e, nTrain, nTest, seed));
    return { xTrain, yTrain, xTest, yTruth, w0: w0[0] };
  }

  // Nadaraya-Watson regression of each query on all training pairs with kernel width parameter w (w = 1: the
  // non-parametric estimator). Returns { output [n], attention [n, nTrain] }.
  nwPredict(queries, xTrain, yTrain, w = 1) {
    const q = floats('nwPredict(queries)', queries);
    const x = floats('nwPredict(xTrain)', xTrain);
    const y = floats('nwPredict(yTrain)', yTrain, x.length);
    dims('nwPredict(sizes)', [q.length, x.length], 2);
    const [output, attention] = this.#call('Nadaraya-Watson', [q, x, y], [q.length, q.length * x.length],
      ([o, a], [pq, px, py]) => this.#m._attend_lab_nw_predict(o, a, pq, px, py, w, q.length, x.length));
    return { output, attention };
  }

  // One epoch of the seed's training (each training point against the other n-1, summed squared error, SGD).
  // Returns { loss (before the step), dw, w (after the step) }.
  nwTrainEpoch(xTrain, yTrain, w, lr = 0.5) {
    const x = floats('nwTrainEpoch(xTrain)', xTrain);
    const y = floats('nwTrainEpoch(yTrain)', yTrain, x.length);
    const [state, result] = this.#call('Nadaraya-Watson training', [x, y, Float32Array.of(w)], [1, 2],
      ([s, r], [px, py, pw]) => {
        this.#m.HEAPF32[s >> 2] = this.#m.HEAPF32[pw >> 2];
        return this.#m._attend_lab_nw_train_epoch(s, r, px, py, lr, x.length);
      });
    return { loss: result[0], dw: result[1], w: state[0] };
  }
}

export default AttendLab;
