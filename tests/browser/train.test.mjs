// Training in the page (web/train.html) in headless Chromium: the seeds' GRU + Bahdanau model trained on the first
// 800 pairs of d2l's fra.txt in a Worker, the loss plotted as it falls, the followed sentences' translations and
// cross attention redrawn (each row a distribution over the source), pause holds the step, resume goes on, the
// saved model is a file the translator page's module loads, bad input is named, and nothing is logged as an error.
// The test server sends the cross-origin isolation headers (scripts/serve.mjs), so the page trains on several
// threads (the module built with threads, one data-parallel rank per core, at most 4); ?threads=1 asks for one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { dist, requireFile, root } from '../wasm/lib/paths.mjs';
import { startSession } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

for (const v of ['simd', 'nosimd', 'simd-mt']) requireFile(dist(`attend-train-${v}.wasm`));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const fra = requireFile(path.join(dataDir, 'tatoeba', 'd2l', 'fra.txt.gz'));
const pairs = zlib.gunzipSync(fs.readFileSync(fra)).toString('utf8').split('\n').slice(0, 800).join('\n');
const { server, browser, artifacts } = await startSession(root);

const state = (page) => page.evaluate(() => ({ ...document.body.dataset }));

test('train.html trains the seeds\' GRU + Bahdanau model in a Worker and shows attention forming', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/train.html`);
  assert.equal((await state(page)).state, 'idle');

  await page.click('#train-start');  // nothing to train on yet: said, nothing started
  assert.match(await page.textContent('#train-error'), /Give some sentence pairs first/);
  assert.equal((await state(page)).state, 'idle');

  await page.fill('#train-pairs', pairs);
  await page.click('#train-start');
  await page.waitForFunction(() => Number(document.body.dataset.step) >= 30, null, { timeout: 120000 });
  assert.match(await page.textContent('#train-status'), /step \d+, epoch \d+/);
  // Isolated, on every core up to 4: two on this 2-core machine.
  const { isolated, cores } = await page.evaluate(() => ({ isolated: crossOriginIsolated, cores: navigator.hardwareConcurrency }));
  assert.equal(isolated, true);
  const threads = Math.min(4, cores);
  assert.ok(threads >= 2, `${cores} cores`);
  assert.equal(Number((await state(page)).threads), threads);
  assert.match(await page.textContent('#train-status'), new RegExp(`\\(on ${threads} threads\\)`));
  // The loss falls: the plotted first batches against the latest ones (both from the page's own records).
  const losses = await page.evaluate(() => document.body.dataset.loss);
  assert.ok(Number(losses) < 6, `loss after 30 steps is ${losses}`);

  // The four followed sentences are translated, and the chosen one's cross attention is drawn with each row a
  // distribution over the source.
  assert.equal(await page.locator('#probe-table tbody tr').count(), 4);
  // Scored against the seeds' references with their bleu (k = 2), as their table prints it.
  const bleu = JSON.parse(await page.getAttribute('#probe-table', 'data-bleu'));
  assert.equal(bleu.length, 4);
  for (const b of bleu) assert.ok(b >= 0 && b <= 1, `BLEU ${b}`);
  assert.match(await page.textContent('#probe-mean'), /Mean BLEU \d\.\d{3}/);
  const sums = JSON.parse(await page.getAttribute('#probe-attention', 'data-row-sums'));
  assert.ok(sums.length >= 1);
  for (const s of sums) assert.ok(Math.abs(s - 1) < 1e-3, `a row sums to ${s}`);
  await page.selectOption('#probe-choice', '3');
  assert.equal(Number(await page.getAttribute('#probe-attention', 'data-rows')) >= 1, true);

  // Pause holds the step; resume goes on.
  await page.click('#train-pause');
  await page.waitForFunction(() => document.body.dataset.state === 'paused');
  const held = Number((await state(page)).step);
  await page.waitForTimeout(500);
  assert.equal(Number((await state(page)).step), held);
  await page.click('#train-pause');
  await page.waitForFunction((h) => Number(document.body.dataset.step) > h, held, { timeout: 60000 });

  // The saved model: a model file the translator's module loads and translates with.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#train-export')]);
  const file = path.join(artifacts, 'train-exported.safetensors');
  await download.saveAs(file);
  const { Attend } = await import('../../wasm/attend.js');
  const translator = await Attend.load(new Uint8Array(fs.readFileSync(file)));
  assert.equal(typeof (await translator.translate('go .', { beam: 1 })).text, 'string');
  translator.dispose();
  await page.screenshot({ path: path.join(artifacts, 'train-page.png'), fullPage: true });
  await page.click('#train-pause');

  // Bad pairs are named, and the page stays usable.
  await page.fill('#train-pairs', 'go . va !\n');
  await page.click('#train-start');
  await page.waitForFunction(() => !document.getElementById('train-error').hidden, null, { timeout: 30000 });
  assert.match(await page.textContent('#train-error'), /line 1 has no tab/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('train.html on one thread when asked (?threads=1), and a thread count it cannot have is named', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/train.html?threads=1`);
  await page.fill('#train-pairs', pairs);
  await page.click('#train-start');
  await page.waitForFunction(() => Number(document.body.dataset.step) >= 20, null, { timeout: 120000 });
  assert.equal(Number((await state(page)).threads), 1);
  assert.match(await page.textContent('#train-status'), /\(on one thread\)/);
  const first = Number((await state(page)).loss);
  await page.waitForFunction(() => Number(document.body.dataset.step) >= 60, null, { timeout: 120000 });
  assert.ok(Number((await state(page)).loss) < first, 'the loss falls');
  await page.click('#train-pause');
  await page.waitForFunction(() => document.body.dataset.state === 'paused');

  await page.goto(`${server.url}/web/train.html?threads=9`);
  await page.fill('#train-pairs', pairs);
  await page.click('#train-start');
  await page.waitForFunction(() => !document.getElementById('train-error').hidden, null, { timeout: 30000 });
  assert.match(await page.textContent('#train-error'), /threads must be a whole number from 1 to 4, got 9/);
  assert.deepEqual(errors, []);
  await page.close();
});
