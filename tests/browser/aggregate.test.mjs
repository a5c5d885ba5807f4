// Attention across layers (web/aggregate.js): the mean of the layers and attention rollout (Abnar & Zuidema 2020),
// on the maps native `attend translate --attention` writes for a shipped model, against a reference computed here
// step by step; and the page's layer menu that shows them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeBin, requireFile, root } from '../wasm/lib/paths.mjs';
import { canRollout, meanOfLayers, rollout } from '../../web/aggregate.js';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

const model = requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const attend = requireFile(nativeBin('attend'));

function nativeMaps(text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-aggregate-'));
  try {
    const file = path.join(dir, 'maps.json');
    execFileSync(attend, ['translate', '-m', model, '-t', text, '-b', '2', '--attention', file], { encoding: 'utf8' });
    return JSON.parse(fs.readFileSync(file, 'utf8')).sentences[0];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The page's shape of maps ([layer][head] Float32Array) from the native JSON's flat data.
function pageMaps(m) {
  const size = m.rows * m.cols;
  const layers = Array.from({ length: m.layers }, (_, l) => Array.from({ length: m.heads },
    (_, h) => Float32Array.from(m.data.slice((l * m.heads + h) * size, (l * m.heads + h + 1) * size))));
  return { layers, shape: [m.layers, m.heads, m.rows, m.cols] };
}

// The reference: plain nested arrays, the heads' mean of each layer, 0.5 A + 0.5 I, rows renormalized, and the
// product Â_L ··· Â_1 built by explicit matrix products.
function referenceRollout(m) {
  const n = m.rows;
  const at = (l, h, i, j) => m.data[((l * m.heads + h) * n + i) * n + j];
  const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
  let r = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (let l = 0; l < m.layers; l++) {
    const a = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => {
      let mean = 0;
      for (let h = 0; h < m.heads; h++) mean += at(l, h, i, j) / m.heads;
      return 0.5 * mean + (i === j ? 0.5 : 0);
    }));
    const normalized = a.map((row) => { const s = row.reduce((x, y) => x + y, 0); return row.map((v) => v / s); });
    r = matmul(normalized, r);
  }
  return r.flat();
}

const close = (got, want, tol, what) => {
  assert.equal(got.length, want.length, what);
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= tol, `${what}[${i}]: ${got[i]} vs ${want[i]}`);
};
const rowSums = (values, n) => Array.from({ length: values.length / n }, (_, r) => values.slice(r * n, (r + 1) * n).reduce((a, b) => a + b, 0));

test('rollout and the mean of layers on a shipped model\'s maps: rows sum to 1, equal to the reference', () => {
  const s = nativeMaps('A little girl is climbing a wooden staircase.');
  for (const kind of ['encoder_self', 'decoder_self']) {
    const m = s[kind];
    assert.ok(m.layers >= 2 && m.rows === m.cols, `${kind}: ${m.layers} layers of ${m.rows} x ${m.cols}`);
    const maps = pageMaps(m);
    assert.ok(canRollout(maps));
    const rolled = rollout(maps, 'mean');
    close(rolled, referenceRollout(m), 1e-5, `${kind} rollout`);
    close(rowSums(rolled, m.cols), new Array(m.rows).fill(1), 1e-5, `${kind} rollout row sums`);
    // Rollout is not the last layer: it mixes every layer's attention in.
    const last = maps.layers[m.layers - 1][0];
    assert.ok(rolled.some((v, i) => Math.abs(v - last[i]) > 1e-3));
    const mean = meanOfLayers(maps, 'mean');
    close(rowSums(mean, m.cols), new Array(m.rows).fill(1), 1e-5, `${kind} mean row sums`);
    // The mean of layers of one head, cell (0, 0), by hand.
    const cell = Array.from({ length: m.layers }, (_, l) => maps.layers[l][1][0]).reduce((a, b) => a + b, 0) / m.layers;
    assert.ok(Math.abs(meanOfLayers(maps, 1)[0] - cell) < 1e-6);
  }
  // Cross attention is not square in general, and never rolls out.
  assert.equal(canRollout(pageMaps({ ...s.cross, rows: 3, cols: 4 })), false);
  assert.throws(() => rollout(pageMaps({ layers: 1, heads: 1, rows: 2, cols: 3, data: new Array(6).fill(1 / 3) })), /square/);
});

test('rollout of identity attention is the identity; of one uniform layer, half uniform and half identity', () => {
  const n = 4;
  const eye = Float32Array.from({ length: n * n }, (_, k) => (k % (n + 1) === 0 ? 1 : 0));
  const uniform = new Float32Array(n * n).fill(1 / n);
  close(rollout({ layers: [[eye], [eye]], shape: [2, 1, n, n] }, 'mean'), eye, 1e-7, 'identity');
  close(rollout({ layers: [[uniform]], shape: [1, 1, n, n] }, 0), Float32Array.from(eye, (v) => 0.5 * v + 0.5 / n), 1e-7, 'uniform');
});

test('the page offers the mean of the layers and rollout (for self-attention), rows summing to 1', async () => {
  const { server, browser } = await startSession(root);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
  await waitForState(page, 'modelState', 'ready');
  await translateOnPage(page, 'A little girl is climbing a wooden staircase.');
  const options = () => page.$$eval('#across-select option', (os) => os.map((o) => [o.value, o.disabled]));
  // Cross attention: the mean of its layers, no rollout.
  assert.deepEqual(await options(), [['', false], ['mean', false], ['rollout', true]]);
  await page.selectOption('#across-select', 'mean');
  assert.ok(await page.locator('#layer-select').isDisabled(), 'the layer menu does not choose while every layer is shown');
  let sums = JSON.parse(await page.getAttribute('#heatmap', 'data-row-sums'));
  assert.ok(sums.every((v) => Math.abs(v - 1) < 1e-3), sums.join(' '));
  assert.match(await page.getAttribute('#heatmap', 'data-title'), /mean of all layers/);
  await page.selectOption('#map-kind', 'encoderSelf');
  assert.deepEqual((await options()).slice(-1), [['rollout', false]]);
  await page.selectOption('#across-select', 'rollout');
  sums = JSON.parse(await page.getAttribute('#heatmap', 'data-row-sums'));
  assert.ok(sums.length > 3 && sums.every((v) => Math.abs(v - 1) < 1e-3), sums.join(' '));
  assert.match(await page.getAttribute('#heatmap', 'data-title'), /rollout of all layers/);
  assert.equal(new URL(page.url()).searchParams.get('across'), 'rollout');
  // The head view has each head's mean over the layers, and no rollout.
  await page.click('#tab-heads');
  assert.notEqual(await page.inputValue('#across-select'), 'rollout');
  // Back to one layer: the layer menu chooses again.
  await page.click('#tab-heatmap');
  await page.selectOption('#across-select', '');
  assert.ok(await page.locator('#layer-select').isEnabled());
  assert.deepEqual(errors, []);
  await page.close();
});
