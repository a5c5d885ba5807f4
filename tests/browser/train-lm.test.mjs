// A character language model trained in the page (web/train.html) in headless Chromium: gru-d2l chosen beside the
// translators, The Time Machine uploaded as its text, trained in the Worker for a few epochs: the perplexity plotted
// falls and the continuation of "time traveller" appears and is redrawn; pause holds the step and resume goes on;
// the saved file is a language model the translator page's module loads; a text too short is named; the run stops
// after its epochs; and nothing is logged as an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { dist, requireFile, root } from '../wasm/lib/paths.mjs';
import { startSession } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

for (const v of ['simd', 'nosimd']) requireFile(dist(`attend-train-${v}.wasm`));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const bookFile = requireFile(path.join(dataDir, 'timemachine', 'timemachine.txt'));
const book = fs.readFileSync(bookFile, 'utf8');
const { server, browser, artifacts } = await startSession(root);

const state = (page) => page.evaluate(() => ({ ...document.body.dataset }));
const perplexities = async (page) => JSON.parse(await page.getAttribute('#lm-perplexity', 'data-perplexities') ?? '[]');

test('train.html trains a character language model in its Worker: perplexity falls, a prediction appears', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/train.html`);
  const choices = await page.$$eval('#train-preset option', (os) => os.map((o) => o.value));
  assert.deepEqual(choices, ['bahdanau-d2l', 'transformer-d2l', 'rnn-d2l', 'gru-d2l', 'lstm-d2l', 'deep-lstm-d2l',
    'birnn-d2l']);
  await page.selectOption('#train-preset', 'gru-d2l');
  // The language model's fields and results replace the translator's.
  assert.equal(await page.isVisible('#lm-text'), true);
  assert.equal(await page.isVisible('#train-pairs'), false);
  assert.equal(await page.isVisible('#lm-section'), true);
  assert.equal(await page.isVisible('#loss-section'), false);
  assert.equal(await page.isVisible('#probe-table'), false);
  assert.equal((await state(page)).kind, 'lm');

  await page.click('#train-start');  // no text yet: said, nothing started
  assert.match(await page.textContent('#train-error'), /Give a text first/);
  assert.equal((await state(page)).state, 'idle');

  await page.fill('#lm-text', 'time traveller');  // too short for one batch of 32 x 35: named
  await page.click('#train-start');
  await page.waitForFunction(() => !document.getElementById('train-error').hidden, null, { timeout: 60000 });
  assert.match(await page.textContent('#train-error'), /too short: 14 characters .*need at least 1156/);
  assert.equal((await state(page)).state, 'idle');

  // The book uploaded as a file: read into the text box (and checked to be UTF-8).
  await page.setInputFiles('#lm-file', bookFile);
  await page.waitForFunction((n) => document.getElementById('lm-text').value.length === n, book.length);
  await page.fill('#epoch-count', '5');
  await page.click('#train-start');
  await page.waitForFunction(() => document.body.dataset.state === 'training', null, { timeout: 60000 });
  assert.match(await page.textContent('#train-status'), /GRU, 256 hidden.*10,000 characters that train, a vocabulary of 28/);
  // The untrained model's continuation shows before any epoch.
  assert.ok((await state(page)).prediction.startsWith('time traveller'));
  // A language model is no translator: nothing offers to translate with it.
  assert.equal(await page.isVisible('#train-translate'), false);
  assert.equal(await page.isDisabled('#train-translate'), true);

  await page.waitForFunction(() => Number(document.body.dataset.epoch) >= 2, null, { timeout: 240000 });
  // Pause holds the step; resume goes on.
  await page.click('#train-pause');
  await page.waitForFunction(() => document.body.dataset.state === 'paused');
  const held = Number((await state(page)).step);
  await page.waitForTimeout(500);
  assert.equal(Number((await state(page)).step), held);
  await page.click('#train-pause');
  await page.waitForFunction(() => document.body.dataset.state === 'finished', null, { timeout: 240000 });
  assert.match(await page.textContent('#train-status'), /finished its 5 epochs/);

  const ppl = await perplexities(page);
  assert.equal(ppl.length, 5);
  assert.ok(ppl.at(-1) < ppl[0], `perplexity per epoch ${ppl.join(', ')}`);
  assert.ok(Math.abs(Number((await state(page)).perplexity) - ppl.at(-1)) < 1e-9);
  assert.match(await page.textContent('#train-status'), /perplexity \d+\.\d\d \(epoch 5\)/);
  const prediction = (await state(page)).prediction;
  assert.ok(prediction.startsWith('time traveller'));
  assert.equal(await page.textContent('#lm-prediction'), prediction);

  // Another prefix is continued by the model as it is.
  await page.fill('#lm-prefix', 'the ');
  await page.fill('#lm-length', '20');
  await page.dispatchEvent('#lm-length', 'change');
  await page.waitForFunction(() => document.body.dataset.prediction.startsWith('the '), null, { timeout: 30000 });

  // The saved model: a language model file the translator page's module loads.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#train-export')]);
  assert.equal(download.suggestedFilename(), 'gru-d2l-epoch5.safetensors');
  const file = path.join(artifacts, 'train-lm-exported.safetensors');
  await download.saveAs(file);
  const { Attend } = await import('../../wasm/attend.js');
  const lm = await Attend.loadLanguageModel(new Uint8Array(fs.readFileSync(file)));
  assert.equal(lm.info.card.preset, 'gru-d2l');
  assert.equal(lm.info.card.epochs, 5);
  assert.ok(lm.generate('time traveller', { length: 10 }).text.startsWith('time traveller'));
  lm.dispose();
  await page.screenshot({ path: path.join(artifacts, 'train-lm-page.png'), fullPage: true });

  // Back to a translator: its fields return.
  await page.selectOption('#train-preset', 'bahdanau-d2l');
  assert.equal(await page.isVisible('#train-pairs'), true);
  assert.equal(await page.isVisible('#lm-text'), false);
  assert.deepEqual(errors, []);
  await page.close();
});
