// The language-model view of the attention lab (web/lab.html#lm) and the models it ships (web/models/lm): each
// listed file is there with its card and training log; in headless Chromium the LSTM model continues "time
// traveller" exactly as the same WebAssembly API does in Node (greedy and seeded sampling), each step's bars are a
// distribution over the 28 tokens with the chosen one marked, a step is chosen by click, arrow keys or the slider,
// the bidirectional model carries d2l's warning, and the view fits 1280 and 390 px with no console error.
// Screenshots: test-artifacts/lab-lm-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { dist, requireFile, root } from '../wasm/lib/paths.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';
import { Attend } from '../../wasm/attend.js';

for (const v of ['simd', 'nosimd']) requireFile(dist(`attend-core-${v}.wasm`));
const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const lmDir = path.join(root, 'web', 'models', 'lm');
const models = JSON.parse(fs.readFileSync(path.join(lmDir, 'models.json'), 'utf8')).models;

const server = await serve(root);
const browser = await launch();
after(async () => { await browser.close(); await server.close(); });

const PREFIX = 'time traveller';
const SAMPLED = { length: 50, temperature: 0.8, topK: 5, seed: 7 };
// What the WebAssembly API gives in Node for the shipped LSTM model (the SIMD build, as Chromium runs).
const lstm = await Attend.loadLanguageModel(new Uint8Array(fs.readFileSync(path.join(lmDir, 'lstm-d2l.safetensors'))),
  { simd: true, name: 'lstm-d2l.safetensors' });
const greedy = lstm.generate(PREFIX, { length: 50 });
const sampled = lstm.generate(PREFIX, SAMPLED);
lstm.dispose();

const dataset = (page) => page.evaluate(() => ({ ...document.getElementById('lm').dataset }));
const sum = (p) => p.reduce((a, b) => a + b, 0);
// Waits until the view has shown a continuation, or failing that its error (which then fails the test).
async function ready(page, model) {
  await page.waitForFunction((m) => {
    const d = document.getElementById('lm').dataset;
    return d.ready === 'error' || (d.ready === 'true' && (!m || d.model === m));
  }, model, { timeout: 60000 });
  const d = await dataset(page);
  assert.equal(d.ready, 'true', `the language-model view failed: ${await page.textContent('#lm-error')}`);
}

test('the shipped language models: five d2l presets, each file with its card and training log', () => {
  assert.deepEqual(models.map((m) => m.preset).sort(), ['birnn-d2l', 'deep-lstm-d2l', 'gru-d2l', 'lstm-d2l', 'rnn-d2l']);
  for (const m of models) {
    const file = path.join(lmDir, m.file);
    assert.equal(fs.statSync(file).size, m.size, `${m.file}: size`);
    assert.ok(m.size < 3e6, `${m.file} is ${m.size} bytes`);
    const card = fs.readFileSync(path.join(lmDir, `${m.id}.md`), 'utf8');
    for (const want of [`--preset ${m.preset}`, 'first 10,000 characters', 'The Time Machine', 'public domain',
      `| epochs | ${m.epochs}`, 'final training perplexity', m.sample, 'hardware']) {
      assert.ok(card.includes(want), `${m.id}.md does not say ${want}`);
    }
    const log = fs.readFileSync(path.join(lmDir, m.log), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const epochs = log.filter((o) => o.event === 'epoch');
    assert.equal(log[0].event, 'start');
    assert.equal(log[0].preset, m.preset);
    assert.equal(epochs.at(-1).epoch, m.epochs, `${m.log}: the log ends where the model file does`);
    assert.ok(Math.abs(epochs.at(-1).perplexity - m.train_perplexity) < 1e-4, `${m.id}: training perplexity`);
    assert.ok(m.sample.startsWith(PREFIX));
    assert.equal(Boolean(m.warning), m.preset === 'birnn-d2l', `${m.id}: d2l's warning`);
  }
});

test('the lab continues "time traveller" with the LSTM model as the wasm API does, and shows each step\'s distribution', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/lab.html#lm`);
  await ready(page);
  let d = await dataset(page);
  assert.equal(d.model, 'lstm-d2l');
  assert.equal(await page.inputValue('#lm-prefix'), PREFIX);
  assert.equal(d.continuation, greedy.continuation);
  assert.equal(await page.locator('#lm-text .lm-char').count(), 50);
  assert.equal((await page.textContent('#lm-text')).replaceAll('␣', ' '), greedy.text);
  assert.equal(await page.isVisible('#lm-warning'), false);
  // Step 1: 28 bars summing to 1, the chosen character marked, the numbers those of the API in Node.
  let p = JSON.parse(d.distribution);
  assert.equal(p.length, 28);
  assert.ok(Math.abs(sum(p) - 1) <= 1e-4, `the bars sum to ${sum(p)}`);
  assert.equal(d.chosen, greedy.steps[0].token);
  const bars = await page.evaluate(() => ({ ...document.getElementById('lm-bars').dataset }));
  assert.equal(bars.bars, '28');
  assert.equal(Number(bars.marked), greedy.steps[0].id);
  p.forEach((v, k) => assert.ok(Math.abs(v - greedy.steps[0].distribution[k]) <= 1e-6, `step 1, token ${k}`));
  await page.locator('#lm').screenshot({ path: path.join(artifacts, 'lab-lm-1280.png') });

  // A click on the 5th written character, then the arrow keys, then the slider choose the step.
  await page.click('#lm-text .lm-char >> nth=4');
  d = await dataset(page);
  assert.equal(d.step, '4');
  assert.equal(d.chosen, greedy.steps[4].token);
  assert.equal(await page.getAttribute('#lm-text .lm-char >> nth=4', 'aria-pressed'), 'true');
  await page.keyboard.press('ArrowRight');
  d = await dataset(page);
  assert.equal(d.step, '5');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')),
    `step 6: ${greedy.steps[5].token === ' ' ? 'space' : `“${greedy.steps[5].token}”`}`);
  p = JSON.parse(d.distribution);
  assert.ok(Math.abs(sum(p) - 1) <= 1e-4);
  await page.focus('#lm-step');
  await page.keyboard.press('End');
  d = await dataset(page);
  assert.equal(d.step, '49');
  assert.equal(d.chosen, greedy.steps[49].token);
  assert.match(await page.textContent('#lm-readout'), /^Step 50: after “…[a-z ]+” the model wrote .* \(p = 0\.\d{4}\)/);
  // In greedy mode the chosen character is the most likely one at every step.
  for (const step of greedy.steps) assert.equal(Math.max(...step.distribution), step.distribution[step.id]);

  // Seeded sampling, by keyboard: the same characters as the API's with the same options.
  await page.selectOption('#lm-mode', 'sample');
  await page.fill('#lm-temperature', String(SAMPLED.temperature));
  await page.fill('#lm-topk', String(SAMPLED.topK));
  await page.fill('#lm-seed', String(SAMPLED.seed));
  await page.focus('#lm-prefix');
  await page.keyboard.press('Enter');
  await page.waitForFunction((c) => document.getElementById('lm').dataset.continuation === c, sampled.continuation);
  d = await dataset(page);
  assert.deepEqual(JSON.parse(d.options), SAMPLED);
  assert.ok(Math.abs(sum(JSON.parse(d.distribution)) - 1) <= 1e-4);

  // Bad input is an error naming the field, not a result.
  await page.fill('#lm-topk', '40');
  await page.click('#lm-generate');
  assert.match(await page.textContent('#lm-error'), /^Top-k: “40” is not a whole number from 0 to 28$/);
  await page.fill('#lm-topk', '5');
  await page.fill('#lm-prefix', '');
  await page.click('#lm-generate');
  assert.match(await page.textContent('#lm-error'), /^Prefix: /);

  // The bidirectional model: d2l's warning beside its low perplexity.
  await page.fill('#lm-prefix', PREFIX);
  await page.selectOption('#lm-mode', 'greedy');
  await page.selectOption('#lm-model', 'birnn-d2l');
  await ready(page, 'birnn-d2l');
  assert.equal(await page.isVisible('#lm-warning'), true);
  assert.match(await page.textContent('#lm-warning'), /useless/);
  assert.match(await page.textContent('#lm-model option[value="birnn-d2l"]'), /warning/);
  assert.equal(await page.isVisible('#lm-error'), false);
  assert.deepEqual(await page.$$eval('#lm [aria-invalid="true"]', (els) => els.map((e) => e.id)), []);
  await page.locator('#lm').screenshot({ path: path.join(artifacts, 'lab-lm-birnn.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the language-model view fits a 390 px phone screen', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/lab.html#lm`);
  await ready(page);
  assert.equal((await dataset(page)).continuation, greedy.continuation);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
  for (const sel of ['#lm-bars', '#lm-text', '#lm-form']) {
    const box = await page.locator(sel).boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `${sel} runs from ${box.x} to ${box.x + box.width} px`);
  }
  await page.locator('#lm').screenshot({ path: path.join(artifacts, 'lab-lm-390.png') });
  assert.deepEqual(errors, []);
  await page.close();
});
