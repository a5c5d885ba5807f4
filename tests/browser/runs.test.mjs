// web/runs.html plots a training run's train.jsonl (the line formats of native/train/trainer.cpp): from ?run=URL,
// from the file picker and from a dropped file; loss, validation BLEU, learning rate and tokens/s against steps or
// epochs; a malformed line is an error naming the line. Screenshots: test-artifacts/runs-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root } from '../wasm/lib/paths.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';

const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const server = await serve(root);
const browser = await launch();
after(async () => { await browser.close(); await server.close(); });

// Three epochs of 100 steps, a step line every 10 steps, validation after each epoch.
const lines = [];
for (let epoch = 1; epoch <= 3; epoch++) {
  for (let s = 10; s <= 100; s += 10) {
    const step = (epoch - 1) * 100 + s;
    lines.push({ event: 'step', step, epoch, loss: 9 / Math.sqrt(step), lr: 1e-3 * Math.min(1, step / 50),
      target_tokens_per_s: 5000 + step, elapsed_s: step / 10 });
  }
  lines.push({ event: 'epoch', epoch, step: epoch * 100, train_loss: 3 - epoch / 2, val_loss: 3.2 - epoch / 2,
    val_bleu: 10 * epoch, elapsed_s: epoch * 10 });
}
const jsonl = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const state = (page, value) => page.waitForFunction((v) => document.body.dataset.runState === v, value);
const points = (page) => page.$$eval('canvas', (cs) => Object.fromEntries(cs.map((c) => [c.id, Number(c.dataset.points)])));

test('runs.html plots a train.jsonl from a link, the file picker and a drop', async () => {
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.route((url) => url.pathname === '/runs/test/train.jsonl', (route) => route.fulfill({ body: jsonl }));
    await page.goto(`${server.url}/web/runs.html?run=/runs/test/train.jsonl`);
    await state(page, 'ready');
    // Loss: 30 step points, 3 epoch training losses, 3 validation losses; BLEU 3; rate and speed 30 each.
    assert.deepEqual(await points(page), { 'chart-loss': 36, 'chart-bleu': 3, 'chart-lr': 30, 'chart-speed': 30 });
    assert.match(await page.textContent('#run-summary'), /30 step lines, 3 epoch lines.*best validation BLEU 30\.00 \(epoch 3\)/);
    assert.equal(await page.getAttribute('#chart-loss', 'data-series'), '3');
    await page.screenshot({ path: path.join(artifacts, `runs-${width}.png`), fullPage: true });
    await page.selectOption('#run-x', 'epoch');
    assert.deepEqual(await points(page), { 'chart-loss': 36, 'chart-bleu': 3, 'chart-lr': 30, 'chart-speed': 30 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than ${width} px`);
    assert.deepEqual(errors, []);
    await page.close();
  }

  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/runs.html`);
  await page.setInputFiles('#run-file', { name: 'train.jsonl', mimeType: 'application/json', buffer: Buffer.from(jsonl) });
  // The page opens on a shipped model's run: the file's is the one that says its name.
  await page.waitForFunction(() => document.getElementById('run-summary').textContent.startsWith('train.jsonl:'));
  await state(page, 'ready');
  assert.equal((await points(page))['chart-bleu'], 3);
  // A dropped file with a broken line: the error names it, nothing else is plotted from it.
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'broken.jsonl'));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, jsonl.split('\n').slice(0, 5).join('\n') + '\n{"event": "step", oops\n');
  await state(page, 'error');
  assert.match(await page.textContent('#run-error'), /broken\.jsonl, line 6 is not JSON/);
  // And a good dropped file plots.
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'good.jsonl'));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, jsonl);
  await state(page, 'ready');
  assert.match(await page.textContent('#run-summary'), /^good\.jsonl/);
  assert.equal(await page.isVisible('#run-error'), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test('each shipped model ships its training log, its card links it, and runs.html plots that log', async () => {
  const modelDir = path.join(root, 'web', 'models');
  const models = JSON.parse(fs.readFileSync(path.join(modelDir, 'models.json'), 'utf8')).models;
  assert.ok(models.length >= 1, 'models.json lists no model');
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  for (const { id, file } of models) {
    const base = file.replace(/\.safetensors$/, '');
    const log = `${base}.train.jsonl`;
    const card = path.join(modelDir, `${base}.md`);
    assert.ok(fs.existsSync(card), `${id} has no model card`);
    assert.ok(fs.existsSync(path.join(modelDir, log)), `${id} ships no training log ${log}`);
    const text = fs.readFileSync(card, 'utf8');
    assert.ok(text.includes(`](${log})`), `${path.basename(card)} does not link ${log}`);
    assert.ok(text.includes(`runs.html?run=models/${log}`), `${path.basename(card)} does not link ${log}'s curves`);
    const lines = fs.readFileSync(path.join(modelDir, log), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const epochs = lines.filter((l) => l.event === 'epoch' && l.val_bleu !== undefined).length;
    await page.goto(`${server.url}/web/runs.html?run=models/${log}`);
    await state(page, 'ready');
    const plotted = await points(page);
    assert.equal(plotted['chart-bleu'], epochs, `${log}: validation BLEU points`);
    assert.ok(plotted['chart-loss'] > epochs, `${log}: ${plotted['chart-loss']} loss points`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('runs.html plots a language model run as perplexity per epoch, and offers the shipped ones in its picker', async () => {
  const lmDir = path.join(root, 'web', 'models', 'lm');
  const lms = JSON.parse(fs.readFileSync(path.join(lmDir, 'models.json'), 'utf8')).models;
  assert.ok(lms.length >= 1, 'models/lm/models.json lists no model');
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${server.url}/web/runs.html`);
    await state(page, 'ready');
    await page.waitForFunction(() => !document.getElementById('run-shipped').disabled);
    for (const m of (width === 1280 ? lms : lms.slice(0, 1))) {
      const value = `models/lm/${m.log}`;
      const card = fs.readFileSync(path.join(lmDir, `${m.id}.md`), 'utf8');
      assert.ok(card.includes(`runs.html?run=${value}`), `${m.id}.md does not link its curves`);
      const lines = fs.readFileSync(path.join(lmDir, m.log), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const epochs = lines.filter((l) => l.event === 'epoch');
      const held = epochs.filter((l) => l.held_out_perplexity !== undefined).length
        + epochs.filter((l) => l.held_out_perplexity_left_to_right !== undefined).length;
      // Chosen from the picker, in its language-model group.
      assert.equal(await page.locator(`optgroup[label^="Language models"] option[value="${value}"]`).count(), 1, value);
      await page.selectOption('#run-shipped', value);
      await page.waitForFunction((n) => document.getElementById('run-summary').textContent.startsWith(n), m.log);
      await state(page, 'ready');
      assert.equal(await page.evaluate(() => document.body.dataset.runKind), 'language-model');
      assert.deepEqual(await points(page), { 'chart-loss': epochs.length, 'chart-bleu': held,
        'chart-lr': epochs.length, 'chart-speed': epochs.length });
      assert.equal(await page.textContent('#chart-loss >> xpath=ancestor::figure//figcaption'), 'Training perplexity');
      assert.equal(await page.isVisible('#chart-bleu'), held > 0);
      const summary = await page.textContent('#run-summary');
      assert.ok(summary.includes(`training perplexity ${epochs.at(-1).perplexity.toFixed(4)} (epoch ${m.epochs})`), summary);
      // Epochs only: the "along steps" choice is off.
      assert.equal(await page.inputValue('#run-x'), 'epoch');
      assert.equal(await page.isDisabled('#run-x'), true);
    }
    await page.screenshot({ path: path.join(artifacts, `runs-lm-${width}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than ${width} px`);
    // Back to a translator's run: its charts and captions, and steps may be chosen again.
    const translator = await page.$eval('optgroup[label="Translators"] option', (o) => o.value);
    await page.selectOption('#run-shipped', translator);
    await page.waitForFunction(() => document.body.dataset.runKind === 'translator' && document.body.dataset.runState === 'ready');
    assert.equal(await page.textContent('#chart-loss >> xpath=ancestor::figure//figcaption'), 'Loss');
    assert.equal(await page.isDisabled('#run-x'), false);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
