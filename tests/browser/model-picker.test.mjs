// The demo's model picker and models without self-attention. The picker lists every models.json entry in plain
// words, with its parameters, BLEU and size in the details, and switching loads the other model (its translations differ). A recurrent model
// (GRU + Bahdanau attention) returns one cross-attention map (1 layer x 1 head) and no self-attention: the page
// disables those views with a note, and every view still works. That result shape is produced here by trimming
// a Transformer's result on its way from the worker to the page (no recurrent model file is needed).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { smallModel } from '../wasm/lib/small_model.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';

const shipped = requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const small = smallModel('f32');
const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const list = {
  models: [
    { id: 'shipped', pair: 'English → German', name: 'Transformer', parameters: 2588869, bleu: 31.4,
      bleu_set: 'test2016', size: fs.statSync(shipped).size, file: 'multi30k-en-de-cased.safetensors' },
    { id: 'small', pair: 'English → German', name: 'small test model', parameters: 61727, bleu: 0.7,
      size: fs.statSync(small).size, file: '/' + path.relative(root, small).split(path.sep).join('/') },
  ],
};
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

const server = await serve(root);
const browser = await launch();
after(async () => { await browser.close(); await server.close(); });

// The list is served by the test (the page is opened with ?sw=0, so no service worker hides requests from it).
async function openDemo() {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = watchErrors(page);
  await page.route((url) => url.pathname === '/web/models/picker-test.json', (route) => route.fulfill({ json: list }));
  return { page, errors };
}
const pageUrl = () => `${server.url}/web/index.html?sw=0&models=/web/models/picker-test.json`;
const state = (page, key, value) =>
  page.waitForFunction(([k, v]) => document.body.dataset[k] === v, [key, value], { timeout: 120000 });

async function translate(page, text) {
  await page.fill('#source-text', text);
  await page.fill('#beam-size', '2');
  await page.click('#translate-button');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.translateState));
  await state(page, 'translateState', 'done');
  return (await page.textContent('#output-text')).trim();
}

test('the picker names every model in plain words, its parameters, BLEU and size in the details, and switching models works', async () => {
  const { page, errors } = await openDemo();
  await page.goto(pageUrl());
  await state(page, 'modelState', 'ready');
  // Two models of one pair: what each is good at (the loaded one's card says: captions), and its name to tell
  // them apart; no figures in the menu.
  const options = await page.locator('#model-select option').allTextContents();
  assert.equal(options.length, 2);
  assert.match(options[0], /^Short descriptions of scenes.* — Transformer$/);
  assert.equal(options[1], 'small test model');
  assert.ok(options.every((o) => !/BLEU|params|MB|kB/.test(o)), options.join(' | '));
  assert.equal(await page.textContent('#model-details'), `2.6M parameters · BLEU 31.4 (test2016) · ${mb(list.models[0].size)}`);
  // This list does not say what the model knows: the model file's card does (its training data).
  assert.match(await page.textContent('#model-knows'), /trained on 29,000 image captions/);
  const sentence = 'A man is riding a bicycle on a dirt road.';
  const big = await translate(page, sentence);

  // Switch by keyboard.
  await page.focus('#model-select');
  await page.keyboard.press('ArrowDown');
  await state(page, 'modelState', 'ready');
  await page.waitForFunction(() => /BLEU 0\.7/.test(document.getElementById('model-details').textContent));
  assert.equal(await page.inputValue('#model-select'), 'small');
  const smallText = await translate(page, sentence);
  assert.notEqual(smallText, big, 'the small model translates like the shipped one: the switch did not happen');
  await page.screenshot({ path: path.join(artifacts, 'web-model-picker.png') });

  await page.selectOption('#model-select', 'shipped');
  await state(page, 'modelState', 'ready');
  assert.equal(await translate(page, sentence), big);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a model without self-attention (1 x 1 cross attention, empty self-attention lists) disables those views', async () => {
  for (const empty of ['list', 'null']) {
    const { page, errors } = await openDemo();
    // Trim every translation result the worker sends to what a recurrent model returns.
    await page.addInitScript((mode) => {
      const onmessage = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
      Object.defineProperty(Worker.prototype, 'onmessage', {
        get() { return onmessage.get.call(this); },
        set(handler) {
          onmessage.set.call(this, (event) => {
            // A sentence's translation, or each sentence of a document's.
            const result = event.data?.result;
            for (const r of result?.sentences ?? (result ? [result] : [])) {
              const a = r.attention;
              if (!a || !window.simulateRecurrent) continue;
              const [, , rows, cols] = a.cross.shape;
              const first = a.cross.layers[0][0];
              a.cross = { layers: [[first]], data: first, shape: [1, 1, rows, cols] };
              const none = () => (mode === 'null' ? null : { layers: [], data: new Float32Array(0), shape: [0, 0, 0, 0] });
              a.encoderSelf = none();
              a.decoderSelf = none();
            }
            handler.call(this, event);
          });
        },
      });
    }, empty);
    await page.goto(pageUrl());
    await state(page, 'modelState', 'ready');
    const sentence = 'A little girl is climbing a wooden staircase.';
    await translate(page, sentence);
    assert.equal(await page.isVisible('#map-note'), false);
    await page.selectOption('#map-kind', 'encoderSelf');   // a Transformer has every kind

    await page.evaluate(() => { window.simulateRecurrent = true; });
    await translate(page, sentence);
    assert.equal(await page.inputValue('#map-kind'), 'cross', 'the page still shows encoder self-attention');
    assert.equal(await page.isVisible('#map-note'), true);
    assert.match(await page.textContent('#map-note'), /no encoder self-attention and no decoder self-attention/);
    assert.deepEqual(await page.$$eval('#map-kind option', (os) => os.map((o) => o.disabled)), [false, true, true]);
    assert.equal(await page.locator('#layer-select option').count(), 1);
    assert.deepEqual(await page.locator('#head-select option').allTextContents(), ['1 of 1', 'mean of all heads']);
    const h = await page.evaluate(() => ({ ...document.getElementById('heatmap').dataset }));
    assert.equal(h.kind, 'cross');
    assert.equal(JSON.parse(h.rowLabels).length, Number(h.rows));
    assert.ok(Number(h.rows) > 0 && Number(h.cols) > 0);
    await page.hover('#target-words .word >> nth=0');     // hovering an output word still marks source words
    assert.ok(await page.locator('#source-words .word.strong').count() >= 1);
    if (empty === 'list') await page.locator('#attention-panel').screenshot({ path: path.join(artifacts, 'web-recurrent-attention.png') });
    await page.click('#tab-grid');
    await page.waitForSelector('#view-grid:not([hidden]) canvas');
    assert.equal(await page.locator('#head-grid canvas').count(), 1);
    await page.click('#tab-alignment');
    await page.waitForSelector('#view-alignment:not([hidden])');
    assert.equal(Number(await page.getAttribute('#alignment', 'data-rows')), Number(h.rows));
    // Back to a Transformer result: every view is offered again.
    await page.evaluate(() => { window.simulateRecurrent = false; });
    await translate(page, sentence);
    assert.equal(await page.isVisible('#map-note'), false);
    assert.deepEqual(await page.$$eval('#map-kind option', (os) => os.map((o) => o.disabled)), [false, false, false]);
    assert.deepEqual(errors, [], `${empty}: ${errors.join('\n')}`);
    await page.close();
  }
});
