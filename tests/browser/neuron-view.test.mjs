// The demo's neuron view (after bertviz's) with a shipped model, at 1280 and 390 px: for a query token chosen with
// the mouse or the keyboard, each key's row shows q∘k whose sum divided by √d is the score it shows, and the softmax
// of the scores shown is the weight the heatmap shows for that cell (the attention map of the same layer and head),
// for each kind of attention; nothing is wider than the window. And the warning for words a translation left out:
// "The man's dog is running." comes out without the man, and the page says which word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const models = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models;
const { server, browser, artifacts } = await startSession(root);

// The rows as shown: the numbers each carries and the text of its score and weight.
const rowsOf = (page) => page.$$eval('#neuron-rows .neuron-row[data-key]', (rows) => rows.map((r) => ({
  key: Number(r.dataset.key), score: Number(r.dataset.score), weight: Number(r.dataset.weight),
  mapWeight: Number(r.dataset.mapWeight), masked: r.dataset.masked === 'true', products: JSON.parse(r.dataset.products),
  scoreText: r.querySelector('.neuron-score').textContent, weightText: r.querySelector('.neuron-weight').textContent,
})));

function checkRows(rows, dim, label) {
  assert.ok(rows.length > 1, label);
  const seen = rows.filter((r) => !r.masked);
  const max = Math.max(...seen.map((r) => r.score));
  const sum = seen.reduce((a, r) => a + Math.exp(r.score - max), 0);
  for (const r of rows) {
    const dot = r.products.reduce((a, b) => a + b, 0);
    assert.equal(r.products.length, dim, `${label}: one product per dimension`);
    if (r.masked) {
      assert.equal(r.mapWeight, 0, `${label}: key ${r.key} is later than the query`);
      continue;
    }
    // The products shown sum to the score shown (times √d): the page rounds only what it writes.
    assert.ok(Math.abs(dot / Math.sqrt(dim) - r.score) <= 1e-9 * Math.max(1, Math.abs(r.score)), `${label}: key ${r.key}`);
    assert.equal(r.scoreText, r.score.toFixed(3));
    assert.equal(r.weightText, r.weight.toFixed(3));
    // The softmax of the scores shown is the heatmap's weight for the cell (float32 maps: a few float epsilons).
    const softmax = Math.exp(r.score - max) / sum;
    assert.ok(Math.abs(softmax - r.mapWeight) <= 2e-5, `${label}: key ${r.key}: softmax ${softmax}, map ${r.mapWeight}`);
  }
}

test('the neuron view: products sum to the score, whose softmax is the heatmap weight; keyboard; 1280 and 390 px', async () => {
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
    await waitForState(page, 'modelState', 'ready');
    await translateOnPage(page, 'A man in a blue shirt is standing on a ladder.');
    await page.click('#tab-neurons');
    await page.waitForSelector('#view-neurons:not([hidden]) #neuron-rows .neuron-row[data-key]');
    for (const [kind, layer, head] of [['cross', '3', '1'], ['encoderSelf', '0', '2'], ['decoderSelf', '1', '3']]) {
      await page.selectOption('#map-kind', kind);
      await page.selectOption('#layer-select', layer);
      await page.selectOption('#head-select', head);
      await page.click('#neuron-queries button >> nth=2');
      await page.waitForFunction(([k, l, h]) => {
        const p = document.querySelector('#neuron-rows');
        return p.dataset.kind === k && p.dataset.layer === l && p.dataset.head === h;
      }, [kind, layer, head]);
      assert.equal(await page.getAttribute('#neuron-queries button >> nth=2', 'aria-checked'), 'true');
      const dim = Number(await page.getAttribute('#neuron-rows', 'data-dim'));
      checkRows(await rowsOf(page), dim, `${kind} layer ${layer} head ${head} at ${width} px`);
      // The keyboard moves the query: the next token's rows.
      await page.focus('#neuron-queries button >> nth=2');
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.getAttribute('#neuron-queries button >> nth=3', 'aria-checked'), 'true');
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.index), '3');
      checkRows(await rowsOf(page), dim, `${kind}, query 4, at ${width} px`);
    }
    // The mean of the heads has no vectors of its own: head 1, and a note that says so.
    await page.selectOption('#head-select', 'mean');
    assert.equal(await page.getAttribute('#neuron-rows', 'data-head'), '0');
    assert.match(await page.textContent('#neuron-note'), /head 1 of \d+ is shown/);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `the page is ${wide} px wider than the window at ${width} px`);
    await page.locator('#attention-panel').screenshot({ path: path.join(artifacts, `neuron-view-${width}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('a translation that leaves a word out says which word', async () => {
  const entry = models.find((m) => m.id === 'multi30k-en-de-cased');
  assert.ok(entry.omission_gain > 0, 'models.json gives the en-de model an omission threshold');
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
  await waitForState(page, 'modelState', 'ready');
  await translateOnPage(page, "The man's dog is running.", 5);
  assert.equal(await page.isVisible('#omission-note'), true);
  const words = JSON.parse(await page.getAttribute('#omission-note', 'data-words'));
  assert.ok(words.includes('man'), `named: ${words.join(', ')}`);
  assert.match(await page.textContent('#omission-note'), /may have left out .*“man”/);
  // A translation that says everything has no such note.
  await translateOnPage(page, 'A man in a blue shirt is standing on a ladder.', 5);
  assert.equal(await page.isVisible('#omission-note'), false);
  assert.deepEqual(errors, []);
  await page.close();
});
