// The attention lab module (wasm/attend-lab.js: src/lab_bindings.cpp on the core's kernels) in Node, in both
// WebAssembly builds, against plain JavaScript reference computations in double precision, and against the
// seeds' printed numbers.
// Tolerances: float32 kernels vs double references, 2e-6 absolute on probabilities (values <= 1) and 1e-5
// relative elsewhere (positional encodings: 1e-5 absolute, float32 angles up to 60 rad); the training epoch's
// dw against a central finite difference of the double loss, 1e-3 relative.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dist, requireFile } from './lib/paths.mjs';
import { AttendLab } from '../../wasm/attend-lab.js';

for (const v of ['simd', 'nosimd']) {
  requireFile(dist(`attend-lab-${v}.mjs`));
  requireFile(dist(`attend-lab-${v}.wasm`));
}
const labs = { simd: await AttendLab.load({ simd: true }), nosimd: await AttendLab.load({ simd: false }) };

function close(got, want, { abs = 0, rel = 1e-5, what = 'value' } = {}) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const tol = Math.max(abs, rel * Math.max(1, Math.abs(want[i])));
    assert.ok(Math.abs(got[i] - want[i]) <= tol, `${what}[${i}]: ${got[i]} vs reference ${want[i]} (tolerance ${tol})`);
  }
}

// Deterministic test inputs (no dependence on the module under test).
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}
const randoms = (n, r) => Array.from({ length: n }, r);

function refSoftmaxRow(x, len) {
  if (len === 0) return x.map(() => 0);
  const m = Math.max(...x.slice(0, len));
  const e = x.map((v, j) => (j < len ? Math.exp(v - m) : 0));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

// lens: per batch row [B] or per query [B*Tq]
function refMaskedSoftmax(x, B, Tq, Tk, lens) {
  const out = [];
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < Tq; i++) {
      const len = lens == null ? Tk : lens.length === B * Tq ? lens[b * Tq + i] : lens[b];
      out.push(...refSoftmaxRow(x.slice((b * Tq + i) * Tk, (b * Tq + i + 1) * Tk), len));
    }
  }
  return out;
}

const bmm = (w, values, B, Tq, Tk, Dv) => {
  const out = [];
  for (let b = 0; b < B; b++)
    for (let i = 0; i < Tq; i++)
      for (let d = 0; d < Dv; d++) {
        let s = 0;
        for (let j = 0; j < Tk; j++) s += w[(b * Tq + i) * Tk + j] * values[(b * Tk + j) * Dv + d];
        out.push(s);
      }
  return out;
};

for (const [variant, lab] of Object.entries(labs)) {
  test(`${variant}: masked softmax matches d2l's (1-D and 2-D valid lengths; zeros beyond the valid length)`, () => {
    const r = rng(1);
    const x = randoms(2 * 2 * 4, r);
    for (const lens of [[2, 3], [1, 3, 2, 4], [0, 4], null]) {
      const got = lab.maskedSoftmax(x, [2, 2, 4], lens);
      const want = refMaskedSoftmax(x, 2, 2, 4, lens);
      close(got, want, { abs: 2e-6, what: `masked softmax, valid lengths ${JSON.stringify(lens)}` });
    }
    const got = lab.maskedSoftmax(x, [2, 2, 4], [2, 3]);
    assert.deepEqual(Array.from(got.slice(2, 4)), [0, 0]);   // sequence 1, query 1, keys 3 and 4
    assert.equal(got[15], 0);                                // sequence 2, query 2, key 4
    assert.throws(() => lab.maskedSoftmax(x, [2, 2, 4], [2, 5]), /valid length 5 .* outside 0\.\.4/);
    assert.throws(() => lab.maskedSoftmax(x, [2, 2, 4], [1, 2, 3]), /expected 2 valid lengths .* or 4/);
    assert.throws(() => lab.maskedSoftmax(x.slice(1), [2, 2, 4]), /expected 16 numbers, got 15/);
  });

  test(`${variant}: additive attention matches w_v . tanh(W_q q + W_k k), masked softmax, weights x values`, () => {
    const r = rng(2);
    const [B, Tq, Tk, Dq, Dk, H, Dv] = [2, 3, 5, 4, 3, 6, 2];
    const queries = randoms(B * Tq * Dq, r), keys = randoms(B * Tk * Dk, r), values = randoms(B * Tk * Dv, r);
    const Wq = randoms(H * Dq, r), Wk = randoms(H * Dk, r), wv = randoms(H, r);
    const validLens = [2, 5];
    const got = lab.additiveAttention({ queries, keys, values, Wq, Wk, wv, validLens, shape: { B, Tq, Tk, Dq, Dk, H, Dv } });
    const scores = [];
    for (let b = 0; b < B; b++)
      for (let i = 0; i < Tq; i++)
        for (let j = 0; j < Tk; j++) {
          let s = 0;
          for (let h = 0; h < H; h++) {
            let f = 0;
            for (let d = 0; d < Dq; d++) f += Wq[h * Dq + d] * queries[(b * Tq + i) * Dq + d];
            for (let d = 0; d < Dk; d++) f += Wk[h * Dk + d] * keys[(b * Tk + j) * Dk + d];
            s += wv[h] * Math.tanh(f);
          }
          scores.push(s);
        }
    const weights = refMaskedSoftmax(scores, B, Tq, Tk, validLens);
    close(got.scores, scores, { what: 'additive scores' });
    close(got.weights, weights, { abs: 2e-6, what: 'additive weights' });
    close(got.output, bmm(weights, values, B, Tq, Tk, Dv), { what: 'additive output' });
  });

  test(`${variant}: scaled dot-product attention matches q k^T / sqrt(d), also with values wider than the keys`, () => {
    const r = rng(3);
    const [B, Tq, Tk, D, Dv] = [2, 2, 6, 3, 5];
    const queries = randoms(B * Tq * D, r), keys = randoms(B * Tk * D, r), values = randoms(B * Tk * Dv, r);
    for (const [validLens, scale] of [[[3, 2, 6, 1], 0], [null, 0.7]]) {
      const got = lab.dotProductAttention({ queries, keys, values, validLens, scale, shape: { B, Tq, Tk, D, Dv } });
      const s = scale || 1 / Math.sqrt(D);
      const scores = [];
      for (let b = 0; b < B; b++)
        for (let i = 0; i < Tq; i++)
          for (let j = 0; j < Tk; j++) {
            let dot = 0;
            for (let d = 0; d < D; d++) dot += queries[(b * Tq + i) * D + d] * keys[(b * Tk + j) * D + d];
            scores.push(dot * s);
          }
      const weights = refMaskedSoftmax(scores, B, Tq, Tk, validLens);
      close(got.scores, scores, { what: 'dot-product scores' });
      close(got.weights, weights, { abs: 2e-6, what: `dot-product weights (valid lengths ${JSON.stringify(validLens)})` });
      close(got.output, bmm(weights, values, B, Tq, Tk, Dv), { what: 'dot-product output' });
    }
  });

  test(`${variant}: the seed's example: identical keys give uniform weights over the valid length`, () => {
    // keys = ones((2, 10, 2)), values = arange(40).reshape(1, 10, 4).repeat(2, 1, 1), valid_lens = [2, 6]
    const values = Array.from({ length: 80 }, (_, i) => i % 40);
    const keys = new Array(40).fill(1);
    const expected = [2, 3, 4, 5, 10, 11, 12, 13];
    const dot = lab.dotProductAttention({ queries: lab.normal(4, 9), keys, values, validLens: [2, 6],
      shape: { B: 2, Tq: 1, Tk: 10, D: 2, Dv: 4 } });
    close(dot.output, expected, { what: 'dot-product output' });
    const r = rng(4);
    const add = lab.additiveAttention({ queries: lab.normal(40, 9), keys, values, validLens: [2, 6],
      Wq: randoms(8 * 20, r), Wk: randoms(8 * 2, r), wv: randoms(8, r), shape: { B: 2, Tq: 1, Tk: 10, Dq: 20, Dk: 2, H: 8, Dv: 4 } });
    close(add.output, expected, { what: 'additive output' });
    close(add.weights.slice(10, 20), [1, 1, 1, 1, 1, 1, 0, 0, 0, 0].map((v) => v / 6), { abs: 2e-6, what: 'weights' });
  });

  test(`${variant}: the worked Bahdanau step: scores 0.58 0.54 0.44 0.42 give weights 0.272 0.261 0.236 0.231`, () => {
    const h = [0.9, 0.1, 0.7, 0.3, 0.2, 0.8, 0.1, 0.9];
    const { weights, context } = lab.attentionPool([0.58, 0.54, 0.44, 0.42], h, 2);
    assert.deepEqual(Array.from(weights, (w) => w.toFixed(3)), ['0.272', '0.261', '0.236', '0.231']);
    const want = refSoftmaxRow([0.58, 0.54, 0.44, 0.42], 4);
    close(weights, want, { abs: 2e-6, what: 'weights' });
    close(context, [0, 1].map((d) => want.reduce((s, w, j) => s + w * h[j * 2 + d], 0)), { what: 'context' });
    assert.deepEqual(Array.from(context, (c) => c.toFixed(2)), ['0.50', '0.50']);  // the article: ≈ [0.50, 0.50]
    // The scores themselves are s . h_i with s = [0.6, 0.4]: the dot-product kernel with scale 1.
    const r = lab.dotProductAttention({ queries: [0.6, 0.4], keys: h, values: h, scale: 1,
      shape: { B: 1, Tq: 1, Tk: 4, D: 2, Dv: 2 } });
    close(r.scores, [0.58, 0.54, 0.44, 0.42], { what: 'scores s . h' });
    close(r.output, context, { rel: 2e-6, what: 'context through the fused kernel' });
    const masked = lab.attentionPool([0.58, 0.54, 0.44, 0.42], h, 2, 2);
    close(masked.weights, [...refSoftmaxRow([0.58, 0.54], 2), 0, 0], { abs: 2e-6, what: 'weights, valid length 2' });
    assert.throws(() => lab.attentionPool([0.5, NaN], [1, 2], 1), /score 2 is not a finite number/);
  });

  test(`${variant}: the positional encoding table is sin/cos of t / 10000^(2j/d)`, () => {
    for (const [T, C] of [[60, 32], [7, 5], [1, 1]]) {
      const P = lab.positionalEncoding(T, C);
      const want = [];
      for (let t = 0; t < T; t++)
        for (let c = 0; c < C; c++) {
          const angle = t / 10000 ** ((c - (c % 2)) / C);
          want.push(c % 2 ? Math.cos(angle) : Math.sin(angle));
        }
      close(P, want, { abs: 1e-5, rel: 0, what: `P[${T}, ${C}]` });
    }
    assert.throws(() => lab.positionalEncoding(0, 4), /expected 2 positive integer sizes/);
  });

  test(`${variant}: Nadaraya-Watson: the seed's data, predictions, and a training epoch with the exact gradient`, () => {
    const f = (x) => 2 * Math.sin(x) + x ** 0.8;
    const d = lab.nwData({ seed: 1 });
    assert.equal(d.xTrain.length, 50);
    for (let i = 0; i < 50; i++) {
      assert.ok(d.xTrain[i] >= 0 && d.xTrain[i] < 5 && (i === 0 || d.xTrain[i] >= d.xTrain[i - 1]), 'x_train sorted in [0, 5)');
    }
    close(d.xTest, Array.from({ length: 50 }, (_, i) => 0.1 * i), { what: 'x_test' });
    close(d.yTruth, Array.from(d.xTest, f), { what: 'y_truth' });
    assert.ok(d.w0 >= 0 && d.w0 < 1, 'w0 = torch.rand(1)');
    const residual = Array.from(d.yTrain, (y, i) => y - f(d.xTrain[i]));
    const sd = Math.sqrt(residual.reduce((s, e) => s + e * e, 0) / 50);
    assert.ok(sd > 0.25 && sd < 0.9, `the noise has standard deviation ${sd}, expected about 0.5`);

    const ref = (queries, keys, values, w) => queries.map((q, n) => {
      const a = refSoftmaxRow(keys[n].map((k) => -(((q - k) * w) ** 2) / 2), keys[n].length);
      return { out: a.reduce((s, v, j) => s + v * values[n][j], 0), a };
    });
    const xs = Array.from(d.xTrain), ys = Array.from(d.yTrain);
    for (const w of [1, 3.7]) {
      const got = lab.nwPredict(d.xTest, d.xTrain, d.yTrain, w);
      const qs = Array.from(d.xTest);
      const want = ref(qs, qs.map(() => xs), qs.map(() => ys), w);
      close(got.output, want.map((r) => r.out), { what: `prediction, w = ${w}` });
      close(got.attention, want.flatMap((r) => r.a), { abs: 2e-6, what: `attention, w = ${w}` });
    }
    // The seed's training loss: each training point against the other 49, summed squared error.
    const loss = (w) => ref(xs, xs.map((_, i) => xs.filter((_, j) => j !== i)), xs.map((_, i) => ys.filter((_, j) => j !== i)), w)
      .reduce((s, r, i) => s + (r.out - ys[i]) ** 2, 0);
    let w = d.w0;
    let previous = Infinity;
    for (let epoch = 0; epoch < 5; epoch++) {
      const step = lab.nwTrainEpoch(d.xTrain, d.yTrain, w, 0.5);
      close([step.loss], [loss(w)], { rel: 1e-5, what: `loss, epoch ${epoch + 1}` });
      const h = 1e-4;
      close([step.dw], [(loss(w + h) - loss(w - h)) / (2 * h)], { rel: 1e-3, what: `dw, epoch ${epoch + 1}` });
      close([step.w], [w - 0.5 * step.dw], { rel: 1e-6, what: 'the SGD step' });
      assert.ok(step.loss < previous, `epoch ${epoch + 1}: loss ${step.loss} did not fall below ${previous}`);
      previous = step.loss;
      w = step.w;
    }
    assert.throws(() => lab.nwTrainEpoch([1], [2], 1), /at least 2 training points/);
  });
}

test('both builds give the same numbers (1e-5 relative)', () => {
  const d = labs.simd.nwData({ seed: 3 });
  const a = labs.simd.nwPredict(d.xTest, d.xTrain, d.yTrain, 2.5);
  const b = labs.nosimd.nwPredict(d.xTest, d.xTrain, d.yTrain, 2.5);
  close(a.output, Array.from(b.output), { what: 'simd vs nosimd' });
  close(labs.simd.positionalEncoding(50, 64), Array.from(labs.nosimd.positionalEncoding(50, 64)), { abs: 1e-6, what: 'PE' });
});
