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
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';
import { SnapshotHistory } from '../../web/train-history.js';

for (const v of ['simd', 'nosimd', 'simd-mt']) requireFile(dist(`attend-train-${v}.wasm`));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const fra = requireFile(path.join(dataDir, 'tatoeba', 'd2l', 'fra.txt.gz'));
const pairs = zlib.gunzipSync(fs.readFileSync(fra)).toString('utf8').split('\n').slice(0, 800).join('\n');
const { server, browser, artifacts } = await startSession(root);

const state = (page) => page.evaluate(() => ({ ...document.body.dataset }));

// The replay's history by itself (no browser): bounded, spanning the run, and the held snapshot held.
test('the replay keeps at most 400 snapshots over the whole run, thinned evenly, the held one held', () => {
  const history = new SnapshotHistory();
  const steps = () => history.snapshots.map((snap) => snap.step);
  for (let step = 0; step <= 20 * 1000; step += 20) {
    history.add({ step });
    assert.ok(history.length <= 400, `${history.length} kept at step ${step}`);
  }
  assert.equal(steps()[0], 0);
  assert.equal(history.newest.step, 20000);
  assert.ok(history.length >= 200, `${history.length} kept`);
  const gaps = steps().slice(1).map((x, i) => x - steps()[i]);
  for (const g of gaps) assert.ok(g > 0, 'in order');
  // Evenly: one gap between the kept ones, but before the newest (which the next one replaces).
  assert.deepEqual([...new Set(gaps.slice(0, -1))], [gaps[0]]);
  assert.ok(gaps.at(-1) <= gaps[0]);
  assert.equal(history.shown, history.newest);

  // Held: the shown snapshot stays the same one while more arrive and old ones are thinned out.
  history.show(3);
  const held = history.shown;
  assert.equal(history.following, false);
  for (let step = 20020; step <= 20 * 3000; step += 20) history.add({ step });
  assert.equal(history.shown, held);
  assert.equal(history.snapshots[history.index], held);
  assert.ok(history.length <= 400);
  // The last index follows the training again.
  history.show(history.length - 1);
  history.add({ step: 70000 });
  assert.equal(history.following, true);
  assert.equal(history.shown.step, 70000);
  assert.throws(() => history.show(history.length), /index must be a whole number from 0 to \d+, got \d+/);
  history.clear();
  assert.equal(history.length, 0);
  assert.equal(history.shown, undefined);
});

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

test('train.html validates after the first and the last epoch, and between them not after every epoch', async () => {
  // Greedy translation of the 200 validation pairs costs a sizeable part of an epoch of 600 training pairs once
  // the model writes sentences: the worker spends at most a twentieth of its time on it.
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/train.html`);
  await page.fill('#train-pairs', pairs);
  await page.fill('#epoch-count', '15');
  await page.click('#train-start');
  await page.waitForFunction(() => document.body.dataset.state === 'finished', null, { timeout: 300000 });
  const { validatedEpoch, validations, valBleu } = await state(page);
  assert.equal(Number(validatedEpoch), 15);
  assert.ok(Number(validations) >= 2 && Number(validations) < 15, `${validations} validations in 15 epochs`);
  assert.ok(Number(valBleu) >= 0);
  assert.match(await page.textContent('#train-status'), /validation BLEU \d+\.\d \(epoch 15\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

// The box of each element inside the page's width: nothing cut off or scrolled sideways.
async function assertFits(page, selectors, width) {
  await page.setViewportSize({ width, height: 900 });
  for (const selector of selectors) {
    const box = await page.locator(selector).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= width + 0.5, `${selector} at ${width} px: ${JSON.stringify(box)}`);
  }
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scroll <= width, `the page is ${scroll} px wide at ${width} px`);
}

test('train.html replays how attention formed, and hands the trained translator to the demo', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/train.html`);
  assert.equal(await page.isDisabled('#train-translate'), true);
  await page.fill('#train-pairs', pairs);
  await page.click('#train-start');
  const snapshots = () => page.evaluate(() => Number(document.getElementById('probe-scrub').dataset.snapshots));
  await page.waitForFunction(() => Number(document.getElementById('probe-scrub').dataset.snapshots) >= 3, null,
    { timeout: 120000 });
  // The range is the labelled control, reached by the keyboard.
  const range = page.getByLabel('Replay how the attention formed: the model at step');
  assert.equal(await range.getAttribute('id'), 'probe-scrub');
  const readout = () => page.textContent('#probe-scrub-readout');
  const shownStep = async () => Number(await page.getAttribute('#probe-attention', 'data-step'));
  assert.match(await readout(), /^step \d+ of \d+, following the training$/);
  const live = { step: await shownStep(), checksum: await page.getAttribute('#probe-attention', 'data-checksum') };
  assert.ok(live.step >= 20, `the newest snapshot is of step ${live.step}`);

  // Home: the first snapshot, before any training: another step, other weights, and the table of that step.
  await range.focus();
  await page.keyboard.press('Home');
  assert.equal(await shownStep(), 0);
  assert.match(await readout(), /^step 0 \(live: \d+\)$/);
  assert.equal(await range.getAttribute('aria-valuetext'), 'step 0');
  assert.notEqual(await page.getAttribute('#probe-attention', 'data-checksum'), live.checksum);
  for (const s of JSON.parse(await page.getAttribute('#probe-attention', 'data-row-sums'))) {
    assert.ok(Math.abs(s - 1) < 1e-3, `a row sums to ${s}`);
  }
  // It stays there while training goes on; the readout's live step moves.
  const count = await snapshots();
  await page.waitForFunction((n) => Number(document.getElementById('probe-scrub').dataset.snapshots) > n, count,
    { timeout: 120000 });
  assert.equal(await shownStep(), 0);
  assert.ok(Number((await readout()).match(/live: (\d+)/)[1]) > live.step, await readout());
  await page.keyboard.press('ArrowRight');
  assert.ok(await shownStep() > 0);
  // End: it follows the training again, each new snapshot shown.
  await page.keyboard.press('End');
  assert.match(await readout(), /following the training/);
  const end = await shownStep();
  await page.waitForFunction((s) => Number(document.getElementById('probe-attention').dataset.step) > s, end,
    { timeout: 120000 });
  await assertFits(page, ['#probe-scrub', '#probe-scrub-readout', '#train-translate'], 1280);
  await assertFits(page, ['#probe-scrub', '#probe-scrub-readout', '#train-translate'], 390);
  await page.screenshot({ path: path.join(artifacts, 'train-replay-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  // Translate with this model: stored in the browser, the demo opens on it and translates with it.
  const [demo] = await Promise.all([page.waitForEvent('popup'), page.click('#train-translate')]);
  const demoErrors = watchErrors(demo);
  await demo.waitForURL(/\/web\/index\.html\?trained=bahdanau-d2l$/, { timeout: 60000 });
  await waitForState(demo, 'modelState', 'ready');
  const picked = await demo.evaluate(() => document.getElementById('model-select').selectedOptions[0].textContent);
  assert.match(picked, /^Trained in this browser: bahdanau-d2l \(step \d+\)$/);
  // The pair the model's own info gives: the d2l presets translate English to French.
  assert.equal(await demo.inputValue('#source-language'), 'en');
  assert.equal(await demo.inputValue('#target-language'), 'fr');
  assert.ok((await translateOnPage(demo, 'go .', 1)).trim().length > 0);
  assert.match(await page.textContent('#train-translate-note'), /Stored in this browser: open the translator page/);
  // Read from the browser's cache: nothing asked the server for it.
  assert.deepEqual(server.requests.filter((p) => p.includes('/trained/')), []);
  assert.deepEqual(demoErrors, []);

  // Starting again starts the history again: fewer snapshots than the old run's, of earlier steps, the first the
  // new model's step 0. (Back in front: a hidden page draws nothing, its animation frames paused, and draws what it
  // missed once shown.)
  await page.bringToFront();
  const before = { snapshots: await snapshots(), step: await shownStep() };
  assert.ok(before.snapshots > 3 && before.step > 40, JSON.stringify(before));
  await page.click('#train-start');
  await page.waitForFunction((b) => {
    const n = Number(document.getElementById('probe-scrub').dataset.snapshots);
    return n >= 1 && n < b.snapshots && Number(document.getElementById('probe-attention').dataset.step) < b.step;
  }, before, { timeout: 60000 });
  await page.click('#train-pause');
  await page.waitForFunction(() => document.body.dataset.state === 'paused');
  await range.focus();
  await page.keyboard.press('Home');
  assert.equal(await shownStep(), 0);
  assert.match(await readout(), /^step 0 (of 0, following the training|\(live: \d+\))$/);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the demo names a model trained in this browser that is no longer stored, and uses the list\'s', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demoUrl(server, '&trained=bahdanau-d2l'));
  await waitForState(page, 'modelState', 'ready');
  assert.equal(await page.isVisible('#model-notice'), true);
  const notice = await page.textContent('#model-notice');
  assert.match(notice, /The model trained in this browser is no longer stored here: train it again on the training page/);
  assert.match(notice, /“bahdanau-d2l”/);
  assert.match(notice, /is used instead/);
  assert.equal(await page.getAttribute('#model-notice a', 'href'), 'train.html');
  const picked = await page.evaluate(() => document.getElementById('model-select').selectedOptions[0].textContent);
  assert.doesNotMatch(picked, /Trained in this browser/);
  assert.deepEqual(errors, []);
  await page.close();
});

// The page's own tasks while it trains, from a Chromium trace: each task of the renderer's main thread, with its
// wall time and the time it ran on a core. On a machine whose cores the training threads (and whatever else runs
// there) keep busy, a task waits for a core mid-way and its wall time grows with the load; its CPU time is what
// the page's code costs, so that is asserted, and the wall-clock long tasks the browser reports are printed.
async function traceMainThread(page, ms) {
  const file = path.join(artifacts, 'train-main-thread-trace.json');
  await browser.startTracing(page, { path: file, categories: ['toplevel', 'devtools.timeline'] });
  await page.waitForTimeout(ms);
  await browser.stopTracing();
  const events = JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents;
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    .map((e) => `${e.pid}:${e.tid}`));
  // A task is 'ThreadControllerImpl::RunTask' in the 'toplevel' category (older builds: 'RunTask').
  const task = new Set(['ThreadControllerImpl::RunTask', 'RunTask']);
  return events.filter((e) => e.ph === 'X' && task.has(e.name) && main.has(`${e.pid}:${e.tid}`))
    .map((e) => ({ wallMs: e.dur / 1000, cpuMs: e.tdur / 1000 }));
}

test('the demo says when the model trained in this browser is stored but does not load, and uses the list\'s', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/train.html`);
  // Bytes that are no model file, where train.html would have left one.
  await page.evaluate(async () => {
    const { storeModelBytes } = await import('../wasm/attend.js');
    const { trainedModelUrl } = await import('./trained.js');
    await storeModelBytes(trainedModelUrl('bahdanau-d2l'), new TextEncoder().encode('not a model file at all'), { step: 3 });
  });
  await page.goto(demoUrl(server, '&trained=bahdanau-d2l'));
  await waitForState(page, 'modelState', 'ready');
  const notice = await page.textContent('#model-notice');
  assert.match(notice, /The model trained in this browser could not be loaded \(.+\)\. .+ is used instead\./);
  const picked = await page.evaluate(() => document.getElementById('model-select').selectedOptions[0].textContent);
  assert.doesNotMatch(picked, /Trained in this browser|loading/);
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
  await context.close();
});

test('train.html keeps the UI thread free while it trains on 2 threads: no task longer than 50 ms of the page\'s work', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${server.url}/web/train.html?threads=2`);
  await page.fill('#train-pairs', pairs);
  await page.click('#train-start');
  await page.waitForFunction(() => Number(document.body.dataset.step) >= 1, null, { timeout: 120000 });
  assert.equal(Number((await state(page)).threads), 2);
  // Some seconds of training, the loss plot and the followed sentences redrawn all along.
  const from = await page.evaluate(() => performance.now());
  const { step } = await state(page);
  const tasks = await traceMainThread(page, 6000);
  const { long, to } = await page.evaluate(() => ({ long: window.longTasks, to: performance.now() }));
  assert.ok(Number((await state(page)).step) > Number(step), 'it trained while measured');
  const measured = tasks.filter((t) => Number.isFinite(t.cpuMs));
  assert.ok(measured.length >= 50, `${measured.length} of ${tasks.length} main-thread tasks have a CPU time`);
  const worst = measured.reduce((a, t) => (t.cpuMs > a.cpuMs ? t : a));
  const reported = long.filter((t) => t.start + t.duration >= from && t.start <= to);
  console.log(`${((to - from) / 1000).toFixed(1)} s of training: ${measured.length} main-thread tasks, the longest ` +
    `${worst.cpuMs.toFixed(1)} ms on a core (${worst.wallMs.toFixed(1)} ms wall); long tasks (wall) reported: ` +
    `${reported.length}${reported.length ? `, up to ${Math.max(...reported.map((t) => t.duration))} ms` : ''}`);
  const over = measured.filter((t) => t.cpuMs > 50);
  assert.deepEqual(over, [], 'main-thread tasks over 50 ms while training');
  await page.click('#train-pause');
  assert.deepEqual(errors, []);
  await page.close();
});
