// The demo page (web/index.html) in headless Chromium, with the small test model: the translation equals native
// `attend translate`, the heatmap has target rows x source columns with the right labels and the colours of the
// native weights, it opens on the last layer (mean of heads) and changes with the layer and head, every view renders (screenshots in test-artifacts/), the
// model is cached for the next visit, it fits a 390 px phone, and a model that 404s shows the error and a retry.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { nativeBin, requireFile, root } from '../wasm/lib/paths.mjs';
import { smallModel } from '../wasm/lib/small_model.mjs';
import { serve } from './lib/server.mjs';
import { tokenLabels } from '../../web/tokens.js';
import { launch, watchErrors } from './lib/browser.mjs';

const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const test2016 = zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'multi30k', 'test_2016_flickr.en.gz')))
  .toString('utf8').split('\n');
const sentence = test2016[1];  // "A Boston Terrier is running on lush green grass in front of a white fence."
const beam = 2;
const modelFile = smallModel('f32');
const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });

// Native reference: the text, the tokens and every attention map.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-web-'));
const mapsFile = path.join(tmp, 'maps.json');
const nativeText = execFileSync(requireFile(nativeBin('attend')),
  ['translate', '-m', modelFile, '-t', sentence, '-b', String(beam), '--attention', mapsFile], { encoding: 'utf8' }).trim();
const native = JSON.parse(fs.readFileSync(mapsFile, 'utf8')).sentences[0];

// Model lists for the page (?models=...): the small model, and one whose file does not exist.
const modelDir = path.dirname(modelFile);
const listUrl = (name) => '/' + path.relative(root, path.join(modelDir, name)).split(path.sep).join('/');
fs.writeFileSync(path.join(modelDir, 'web-demo-models.json'), JSON.stringify({
  models: [{ id: 'small', pair: 'en → de (small test model)', name: 'tests', source: 'en', target: 'de',
    parameters: 61727, bleu: null, size: fs.statSync(modelFile).size, file: path.basename(modelFile) }],
}));
// The same file listed with another size, as models.json says of a model replaced at the same address.
fs.writeFileSync(path.join(modelDir, 'web-demo-resized.json'), JSON.stringify({
  models: [{ id: 'small', pair: 'en → de (small test model)', name: 'tests', source: 'en', target: 'de',
    size: fs.statSync(modelFile).size + 1, file: path.basename(modelFile) }],
}));
fs.writeFileSync(path.join(modelDir, 'web-demo-missing.json'), JSON.stringify({
  models: [{ id: 'missing', pair: 'en → de (missing file)', file: 'no-such-model.safetensors' }],
}));

const server = await serve(root);
const browser = await launch();
after(async () => { await browser.close(); await server.close(); fs.rmSync(tmp, { recursive: true, force: true }); });

const pageUrl = (list) => `${server.url}/web/index.html?models=${encodeURIComponent(listUrl(list))}`;
const shot = (page, name, fullPage = true) => page.screenshot({ path: path.join(artifacts, `web-${name}.png`), fullPage });
const state = (page, key, value, timeout = 120000) =>
  page.waitForFunction(([k, v]) => document.body.dataset[k] === v, [key, value], { timeout });
const heatmapData = (page) => page.evaluate(() => {
  const c = document.getElementById('heatmap');
  return { ...c.dataset, url: c.toDataURL(), width: c.width, height: c.height };
});

async function translateOnPage(page, text) {
  await page.fill('#source-text', text);
  await page.fill('#beam-size', String(beam));
  await page.focus('#source-text');
  await page.keyboard.press('Enter');   // Enter translates
  await state(page, 'translateState', 'done');
}

test('the demo translates like native attend and shows the attention maps', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(pageUrl('web-demo-models.json'));
  await state(page, 'modelState', 'ready');
  assert.equal(await page.getAttribute('body', 'data-model-source'), 'network');
  assert.match(await page.textContent('#model-details'), /61\.7k parameters/);
  await shot(page, 'ready');

  await translateOnPage(page, sentence);
  assert.equal((await page.textContent('#output-text')).trim(), nativeText);
  assert.equal(nativeText, native.text);
  await shot(page, 'cross-heatmap');

  // Rows are the target tokens, columns the source tokens, labelled.
  let h = await heatmapData(page);
  assert.equal(Number(h.rows), native.target_tokens.length);
  assert.equal(Number(h.cols), native.source_tokens.length);
  assert.deepEqual(JSON.parse(h.rowLabels), tokenLabels(native.target_tokens));
  assert.deepEqual(JSON.parse(h.colLabels), tokenLabels(native.source_tokens));
  assert.ok(Number(h.cell) * Number(h.cols) < h.width && Number(h.cell) * Number(h.rows) < h.height);

  // The view opens on the last layer, mean of heads; the cell colours of layer 1, head 1 are the native weights
  // on the page's colour scale.
  assert.equal(h.layer, String(native.cross.layers - 1));
  assert.equal(h.head, 'mean');
  await page.selectOption('#layer-select', '0');
  await page.selectOption('#head-select', '0');
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.head === '0');
  h = await heatmapData(page);
  const { rows, cols, heads } = native.cross;
  const head0 = native.cross.data.slice(0, rows * cols);
  const worst = await page.evaluate(async ([values]) => {
    const { colour } = await import('/web/heatmap.js');
    const c = document.getElementById('heatmap');
    const ctx = c.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    const { cell, gridLeft, gridTop, rows: r, cols: k } = c.dataset;
    const max = Math.max(...values);
    let diff = 0;
    for (let i = 0; i < Number(r); i++) {
      for (let j = 0; j < Number(k); j++) {
        const x = Math.round((Number(gridLeft) + (j + 0.5) * Number(cell)) * dpr);
        const y = Math.round((Number(gridTop) + (i + 0.5) * Number(cell)) * dpr);
        const px = ctx.getImageData(x, y, 1, 1).data;
        const want = colour(values[i * Number(k) + j] / max);
        diff = Math.max(diff, ...want.map((v, n) => Math.abs(v - px[n])));
      }
    }
    return diff;
  }, [head0]);
  assert.ok(worst <= 2, `heatmap cell colours differ from the native weights by ${worst} levels`);

  // Hovering a cell shows its weight in a tooltip.
  await page.hover('#heatmap', { position: { x: Number(h.gridLeft) + Number(h.cell) * 0.5, y: Number(h.gridTop) + Number(h.cell) * 0.5 } });
  const tip = await page.textContent('#heatmap-tooltip');
  assert.ok(tip.startsWith(`${native.target_tokens[0]} → ${native.source_tokens[0]}: `), tip);
  assert.equal(await page.isVisible('#heatmap-tooltip'), true);
  await shot(page, 'cross-hover', false);

  // The head and the layer selectors change the picture.
  const before = h.url;
  await page.selectOption('#head-select', '1');
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.head === '1');
  h = await heatmapData(page);
  assert.notEqual(h.url, before, 'the heatmap did not change with the head');
  const head1 = h.url;
  await page.selectOption('#layer-select', '1');
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.layer === '1');
  h = await heatmapData(page);
  assert.notEqual(h.url, head1, 'the heatmap did not change with the layer');
  assert.equal(heads, 4);

  // Hovering an output word marks the source words it attends to.
  await page.hover('#target-words .word >> nth=1');
  assert.ok(await page.locator('#source-words .word.strong').count() >= 1, 'no source word was marked');
  await shot(page, 'word-hover', false);

  // Encoder and decoder self-attention.
  await page.selectOption('#map-kind', 'encoderSelf');
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.kind === 'encoderSelf');
  h = await heatmapData(page);
  assert.equal(Number(h.rows), native.source_tokens.length);
  assert.equal(Number(h.cols), native.source_tokens.length);
  await shot(page, 'encoder-self');
  await page.selectOption('#map-kind', 'decoderSelf');
  await page.waitForFunction(() => document.getElementById('heatmap').dataset.kind === 'decoderSelf');
  h = await heatmapData(page);
  assert.equal(Number(h.rows), native.target_tokens.length);
  assert.deepEqual(JSON.parse(h.colLabels), ['<bos>', ...native.target_tokens.slice(0, -1)]);
  await shot(page, 'decoder-self');

  // The all-heads grid (every layer x head) and the alignment lines, for cross attention.
  await page.selectOption('#map-kind', 'cross');
  await page.click('#tab-grid');
  await page.waitForSelector('#view-grid:not([hidden]) canvas');
  assert.equal(await page.locator('#head-grid canvas').count(), native.cross.layers * heads);
  await shot(page, 'all-heads');
  await page.keyboard.press('ArrowRight');   // tabs follow the arrow keys
  await page.waitForSelector('#view-alignment:not([hidden])');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-alignment');
  const a = await page.evaluate(() => ({ ...document.getElementById('alignment').dataset }));
  assert.equal(Number(a.rows), native.target_tokens.length);
  assert.equal(Number(a.cols), native.source_tokens.length);
  await page.focus('#alignment');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.textContent('#alignment-readout'), new RegExp(`^${native.target_tokens[0]} → `));
  await shot(page, 'alignment');

  // The model was cached: the next visit loads it from the Cache API.
  await page.reload();
  await state(page, 'modelState', 'ready');
  assert.equal(await page.getAttribute('body', 'data-model-source'), 'cache');
  await translateOnPage(page, sentence);
  assert.equal((await page.textContent('#output-text')).trim(), nativeText);

  assert.deepEqual(errors, []);
  await page.close();
});

test('the demo fits a 390 px phone screen', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  const errors = watchErrors(page);
  await page.goto(pageUrl('web-demo-models.json'));
  await state(page, 'modelState', 'ready');
  await translateOnPage(page, sentence);
  assert.equal((await page.textContent('#output-text')).trim(), nativeText);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
  await shot(page, 'phone');
  await page.click('#tab-grid');
  await page.waitForSelector('#view-grid:not([hidden]) canvas');
  await page.locator('#attention-panel').screenshot({ path: path.join(artifacts, 'web-phone-all-heads.png') });
  await page.click('#tab-alignment');
  await page.waitForSelector('#view-alignment:not([hidden])');
  await page.locator('#attention-panel').screenshot({ path: path.join(artifacts, 'web-phone-alignment.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a cached model of another size than the list says is downloaded again, and used when the server is down', async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const errors = watchErrors(page);
  const modelPath = '/' + path.relative(root, modelFile).split(path.sep).join('/');
  const downloads = () => server.requests.filter((p) => p === modelPath).length;
  await page.goto(pageUrl('web-demo-models.json'));
  await state(page, 'modelState', 'ready');
  const before = downloads();
  await page.goto(pageUrl('web-demo-models.json'));
  await state(page, 'modelState', 'ready');
  assert.equal(await page.getAttribute('body', 'data-model-source'), 'cache');
  assert.equal(downloads(), before);
  // The list now gives another size: the cached copy is out of date.
  await page.goto(pageUrl('web-demo-resized.json'));
  await state(page, 'modelState', 'ready');
  assert.equal(await page.getAttribute('body', 'data-model-source'), 'network');
  assert.equal(downloads(), before + 1);
  // The server is down: the old copy still translates.
  server.refuse = (p) => p === modelPath;
  try {
    await page.goto(pageUrl('web-demo-resized.json'));
    await state(page, 'modelState', 'ready');
    assert.equal(await page.getAttribute('body', 'data-model-source'), 'cache');
    await translateOnPage(page, sentence);
    assert.equal((await page.textContent('#output-text')).trim(), nativeText);
  } finally {
    server.refuse = null;
  }
  assert.deepEqual(errors.filter((e) => !/status of 503/.test(e)), []);
  await page.close();
});

test('a model that cannot be downloaded shows what went wrong and a retry button', async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const errors = watchErrors(page);
  await page.goto(pageUrl('web-demo-missing.json'));
  await state(page, 'modelState', 'error');
  assert.equal(await page.isVisible('#model-error'), true);
  assert.match(await page.textContent('#model-error-text'), /no-such-model\.safetensors: HTTP 404/);
  assert.equal(await page.isDisabled('#translate-button'), true);
  await shot(page, 'model-error');
  // Retry (by keyboard) tries again and reports again.
  await page.focus('#retry-button');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.modelErrors === '2' && document.body.dataset.modelState === 'error');
  // The browser itself may log each failed download; anything else is a page error. Each try asked the server.
  const other = errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e));
  assert.deepEqual(other, []);
  assert.equal(server.requests.filter((p) => p.endsWith('/no-such-model.safetensors')).length, 2);

  // A missing model list is reported the same way.
  const page2 = await browser.newPage();
  const errors2 = watchErrors(page2);
  await page2.goto(`${server.url}/web/index.html?models=/build/test-models/no-such-list.json`);
  await state(page2, 'modelState', 'error');
  assert.match(await page2.textContent('#model-error-text'), /model list could not be read.*HTTP 404/);
  assert.equal(await page2.isVisible('#retry-button'), true);
  assert.equal(errors2.filter((e) => !/status of 404/.test(e)).length, 0, errors2.join('\n'));
  await page.close();
  await page2.close();
});
