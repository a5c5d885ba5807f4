// The neuron view's numbers through the WebAssembly API: translate(text, { neurons: true }) returns the query and key
// vectors of every layer and head of each kind of attention (a Transformer's), and neuronView()'s softmax of
// q·k/√d over the keys a query sees is the attention map's row, for every kind, layer, head and query of a shipped
// model; the products sum to q·k. A GRU + Bahdanau model has no query and key vectors: no neurons, and neuronView()
// says why. Without the option a translation carries none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from './lib/paths.mjs';
import { presetModel } from './lib/small_model.mjs';
import { Attend, neuronView } from '../../wasm/attend.js';

const shipped = requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));

test('neurons: softmax of the returned q·k/√d is the attention map, every kind, layer, head and query', async () => {
  const t = await Attend.load(new Uint8Array(fs.readFileSync(shipped)));
  const r = await t.translate('A man in a blue shirt is standing on a ladder.', { neurons: true });
  const { config } = t.info();
  for (const kind of ['encoderSelf', 'decoderSelf', 'cross']) {
    const v = r.neurons[kind];
    const maps = r.attention[kind];
    const [layers, heads, rows, cols] = maps.shape;
    assert.deepEqual([v.layers, v.heads, v.queries, v.keys, v.dim], [layers, heads, rows, cols, config.model_dim / heads], kind);
    assert.equal(v.q.length, layers * heads * rows * v.dim);
    assert.equal(v.k.length, layers * heads * cols * v.dim);
    let worst = 0;
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        for (let i = 0; i < rows; i++) {
          const view = neuronView(r.neurons, { kind, layer: l, head: h, query: i });
          view.rows.forEach((row, j) => {
            assert.equal(row.masked, kind === 'decoderSelf' && j > i);
            const sum = row.product.reduce((a, b) => a + b, 0);
            assert.ok(Math.abs(sum - row.dot) <= 1e-9 * Math.max(1, Math.abs(row.dot)));
            assert.ok(Math.abs(row.score - row.dot / Math.sqrt(v.dim)) <= 1e-12 * Math.max(1, Math.abs(row.score)));
            worst = Math.max(worst, Math.abs(row.weight - maps.layers[l][h][i * cols + j]));
          });
        }
      }
    }
    // Weights in [0, 1] from float32 vectors: a few float32 epsilons.
    assert.ok(worst <= 1e-5, `${kind}: the softmax of the scores is ${worst} from the map`);
  }
  assert.throws(() => neuronView(r.neurons, { kind: 'cross', layer: 9, head: 0, query: 0 }), /layer must be a whole number in 0\.\.3/);
  assert.equal((await t.translate('A dog.')).neurons, undefined);
  t.dispose();
});

test('neurons: a GRU + Bahdanau model has no query and key vectors', async () => {
  const t = await Attend.load(new Uint8Array(fs.readFileSync(presetModel('bahdanau-d2l', 'f32'))));
  const r = await t.translate('go .', { neurons: true });
  assert.equal(r.neurons, undefined);
  assert.ok(r.attention.cross.layers.length === 1);
  assert.throws(() => neuronView(r.neurons, { kind: 'cross', layer: 0, head: 0, query: 0 }), /only a Transformer has them/);
  t.dispose();
});
