// The head view draws each head in its own colour and each line as opaque as its weight: with one head shown and
// one query token picked, every line pixel in the middle of the picture is a blend of the background and that
// head's colour, and the strongest pixel of each line has the opacity of the weight the library gives (the same
// model and options in Node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';
import { Attend } from '../../wasm/attend.js';
import { HEAD_COLOURS } from '../../web/headview.js';

const modelFile = requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const { server, browser, artifacts } = await startSession(root);
const text = 'A dog runs on the beach.';
const threshold = 0.1;
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

// One column of the head view's pixels (RGBA), and the background colour.
const column = (page) => page.evaluate(() => {
  const c = document.getElementById('headview');
  const x = Math.round(c.width / 2);
  const px = c.getContext('2d').getImageData(x, 0, 1, c.height).data;
  return { px: Array.from(px), background: Array.from(c.getContext('2d').getImageData(1, 1, 1, 1).data) };
});

// The runs of drawn pixels down the column, each with its strongest opacity against `colour`, checking on the way
// that every drawn pixel is that colour blended into the background (the channels agree on one opacity).
function lineRuns({ px, background }, colour, what) {
  const runs = [];
  let run = null;
  for (let y = 0; y * 4 < px.length; y++) {
    const p = px.slice(y * 4, y * 4 + 3);
    if (p.every((v, k) => Math.abs(v - background[k]) <= 2)) { run = null; continue; }
    // Opacity from each channel where the head's colour stands apart from the background.
    const alphas = [0, 1, 2].filter((k) => Math.abs(background[k] - colour[k]) > 40)
      .map((k) => (background[k] - p[k]) / (background[k] - colour[k]));
    const spread = Math.max(...alphas) - Math.min(...alphas);
    assert.ok(spread <= 0.08, `${what}: pixel ${y} (${p.join(', ')}) is not ${colour.join(', ')} over ${background.slice(0, 3).join(', ')}`);
    const alpha = alphas.reduce((a, b) => a + b, 0) / alphas.length;
    if (!run) runs.push(run = { peak: 0 });
    run.peak = Math.max(run.peak, alpha);
  }
  return runs;
}

test('the head view: one colour per head, each line as opaque as its weight, lines under the threshold left out', async () => {
  const engine = await Attend.load(new Uint8Array(fs.readFileSync(modelFile)));
  const want = (await engine.translateDocument(text, { beam: 2, attention: true })).sentences[0].attention.cross;
  engine.dispose();
  const [layers, heads, , cols] = want.shape;

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
  await waitForState(page, 'modelState', 'ready');
  await translateOnPage(page, text, 2);
  await page.click('#tab-heads');
  await page.$eval('#head-threshold', (el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }, String(threshold));
  await page.focus('#headview');
  await page.keyboard.press('ArrowDown');   // the first query token: only its lines
  assert.match(await page.textContent('#headview-readout'), / → head 1: /);

  const layer = layers - 1;
  let compared = 0;
  for (let h = 0; h < heads; h++) {
    for (let k = 0; k < heads; k++) await page.setChecked(`#head-toggle-${k}`, k === h);
    const weights = Array.from(want.layers[layer][h].subarray(0, cols)).filter((w) => w >= threshold);
    assert.equal(Number(await page.getAttribute('#headview', 'data-lines')), weights.length, `head ${h + 1}: lines drawn`);
    const runs = lineRuns(await column(page), rgb(HEAD_COLOURS[h]), `head ${h + 1}`);
    assert.ok(runs.length >= 1 && runs.length <= weights.length, `head ${h + 1}: ${runs.length} lines seen, ${weights.length} drawn`);
    // Lines apart from each other in the middle (none crossing there) are as opaque as their weights, in key order.
    if (runs.length === weights.length) {
      runs.forEach((r, j) => assert.ok(Math.abs(r.peak - weights[j]) <= 0.06, `head ${h + 1}, line ${j + 1}: opacity ${r.peak.toFixed(3)}, weight ${weights[j].toFixed(3)}`));
      compared++;
    }
    if (h === 0) await page.locator('#attention-panel').screenshot({ path: path.join(artifacts, 'web-head-view-one-head.png') });
  }
  assert.ok(compared >= 1, 'no head had its lines apart in the middle of the picture');
  assert.deepEqual(errors, []);
  await page.close();
});
