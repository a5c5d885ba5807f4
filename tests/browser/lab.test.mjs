// The attention lab (web/lab.html) in headless Chromium: every view renders from the wasm core (canvases drawn,
// the expected numbers shown), the controls change the results, Nadaraya-Watson training lowers the loss, the page
// works by keyboard and fits a phone, and nothing is logged as an error. Screenshots: test-artifacts/lab-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { dist, requireFile, root } from '../wasm/lib/paths.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';

for (const v of ['simd', 'nosimd']) requireFile(dist(`attend-lab-${v}.wasm`));
const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });

const server = await serve(root);
const browser = await launch();
after(async () => { await browser.close(); await server.close(); });

const shot = (locator, name) => locator.screenshot({ path: path.join(artifacts, `lab-${name}.png`) });
const dataset = (page, id) => page.evaluate((i) => ({ ...document.getElementById(i).dataset }), id);

// How much a canvas shows: its size, how many distinct colours (in steps of 8 levels) and the share of pixels
// that are not the white background.
const canvasStats = (page, id) => page.evaluate((i) => {
  const c = document.getElementById(i);
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const colours = new Set();
  let ink = 0;
  for (let p = 0; p < data.length; p += 4) {
    colours.add(((data[p] >> 3) << 10) | ((data[p + 1] >> 3) << 5) | (data[p + 2] >> 3));
    if (data[p] < 240 || data[p + 1] < 240 || data[p + 2] < 240) ink++;
  }
  return { width: c.width, height: c.height, colours: colours.size, ink: ink / (data.length / 4), url: c.toDataURL() };
}, id);

function assertDrawn(stats, what, minColours) {
  assert.ok(stats.width > 50 && stats.height > 30, `${what}: canvas is ${stats.width} x ${stats.height}`);
  assert.ok(stats.colours >= minColours, `${what}: only ${stats.colours} colours drawn`);
  assert.ok(stats.ink > 0.02, `${what}: only ${(stats.ink * 100).toFixed(1)}% of the canvas is drawn`);
}

async function openLab(viewport = { width: 1200, height: 900 }) {
  const page = await browser.newPage({ viewport });
  const errors = watchErrors(page);
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname); });
  await page.goto(`${server.url}/web/lab.html`);
  await page.waitForFunction(() => document.body.dataset.labState === 'ready', null, { timeout: 60000 });
  for (const id of ['nw', 'masked', 'scoring', 'pe', 'bahdanau']) {
    assert.equal((await dataset(page, id)).ready, 'true', `the ${id} view did not render`);
  }
  // The numbers come from the lab's WebAssembly core (Chromium has SIMD), loaded by the page itself (the
  // language-model view loads the translator's module beside it: tests/browser/lab-lm.test.mjs).
  assert.deepEqual(wasm.filter((p) => p.includes('attend-lab')), ['/wasm/dist/attend-lab-simd.wasm']);
  return { page, errors };
}

test('the lab page: every view renders from the wasm core and reacts to its controls', async (t) => {
  const { page, errors } = await openLab();
  await shot(page, 'page');   // the top of the page

  await t.test('Nadaraya-Watson: plots, the 50 x 50 attention map, and training lowers the loss', async () => {
    assertDrawn(await canvasStats(page, 'nw-plot'), 'regression plot', 8);
    const map = await canvasStats(page, 'nw-map');
    assertDrawn(map, 'attention heatmap', 20);
    const m = await dataset(page, 'nw-map');
    assert.deepEqual([Number(m.rows), Number(m.cols)], [50, 50]);
    const before = await dataset(page, 'nw');
    assert.equal(before.epochs, '0');
    // The non-parametric estimate is closer to the truth than average pooling (the seed's point).
    const err = async (id) => Number(await page.textContent(`#${id}`));
    assert.ok(await err('nw-err-np') < await err('nw-err-mean'), 'kernel regression is not better than the mean');

    await page.focus('#nw-train');
    await page.keyboard.press('Enter');     // keyboard: "Train 5 epochs"
    await page.waitForFunction(() => document.getElementById('nw').dataset.training === 'true');
    await page.waitForFunction(() => {
      const d = document.getElementById('nw').dataset;
      return d.epochs === '5' && d.training === 'false';
    }, null, { timeout: 20000 });
    const after5 = await dataset(page, 'nw');
    const losses = JSON.parse(after5.losses);
    assert.equal(losses.length, 5);
    for (let i = 1; i < 5; i++) assert.ok(losses[i] < losses[i - 1], `epoch ${i + 1}: loss ${losses[i]} >= ${losses[i - 1]}`);
    assert.notEqual(after5.w, before.w, 'w did not change');
    assert.equal(await page.locator('#nw-losses li').count(), 5);
    assert.match(await page.textContent('#nw-losses li >> nth=0'), /^epoch 1, loss \d+\.\d{6}$/);
    assert.equal(await page.textContent('#nw-epochs'), '5');
    assertDrawn(await canvasStats(page, 'nw-loss'), 'loss curve', 3);
    // The parametric model's map differs from the non-parametric one.
    await page.selectOption('#nw-map-model', 'p');
    const parametric = await canvasStats(page, 'nw-map');
    assert.notEqual(parametric.url, map.url, 'the parametric attention map looks like the non-parametric one');
    // The heatmap reads out by keyboard.
    await page.focus('#nw-map');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    assert.match(await page.textContent('#nw-map-readout'), /^test x = 0\.1, training x = \d\.\d{3}: weight 0\.\d{4}$/);
    await shot(page.locator('#nw'), 'nadaraya-watson');
    // Reset returns to the untrained w.
    await page.click('#nw-reset');
    assert.equal((await dataset(page, 'nw')).epochs, '0');
    assert.equal((await dataset(page, 'nw')).w, before.w);
  });

  await t.test('masked softmax: zeros beyond each valid length, rows summing to 1, editable lengths', async () => {
    const weights = async () => JSON.parse((await dataset(page, 'masked')).weights);
    const rowsOf = (w) => [0, 1, 2, 3].map((r) => w.slice(r * 4, r * 4 + 4));
    const check = (w, lens) => rowsOf(w).forEach((row, r) => {
      row.forEach((v, k) => (k >= lens[r] ? assert.equal(v, 0, `row ${r} key ${k}`) : assert.ok(v > 0, `row ${r} key ${k}`)));
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    });
    check(await weights(), [2, 2, 3, 3]);                 // valid_lens = [2, 3]
    assert.equal(await page.locator('#masked-table td.masked').count(), 6);
    assert.deepEqual(await page.locator('#masked-table td.masked').allTextContents(), new Array(6).fill('0.0000'));
    await page.fill('#masked-len-0', '1');
    check(await weights(), [1, 1, 3, 3]);
    assert.equal(await page.locator('#masked-table td.masked').count(), 8);
    await page.selectOption('#masked-mode', 'query');     // 2-D valid lengths [[1, 3], [2, 4]]
    check(await weights(), [1, 3, 2, 4]);
    await page.fill('#masked-len-3', '0');                // a row with no valid key is all zeros
    assert.deepEqual(rowsOf(await weights())[3], [0, 0, 0, 0]);
    const map = await dataset(page, 'masked-map');
    assert.deepEqual([Number(map.rows), Number(map.cols)], [4, 4]);
    assertDrawn(await canvasStats(page, 'masked-map'), 'masked softmax heatmap', 3);
    await page.fill('#masked-len-3', '5');                // out of range: an error, not a result
    assert.match(await page.textContent('#masked-error'), /Valid length 4: “5” is not a whole number from 0 to 4/);
    assert.equal(await page.getAttribute('#masked-len-3', 'aria-invalid'), 'true');
    await page.fill('#masked-len-3', '4');
    assert.equal(await page.isVisible('#masked-error'), false);
    await shot(page.locator('#masked'), 'masked-softmax');
  });

  await t.test('additive vs dot product: the seed outputs for identical keys, different weights for random keys', async () => {
    let d = await dataset(page, 'scoring');
    const seedOutput = [2, 3, 4, 5, 10, 11, 12, 13];
    const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) < 1e-4);
    assert.ok(near(JSON.parse(d.outputs).additive, seedOutput), d.outputs);
    assert.ok(near(JSON.parse(d.outputs).dot, seedOutput), d.outputs);
    for (const id of ['scoring-additive-map', 'scoring-dot-map']) {
      const m = await dataset(page, id);
      assert.deepEqual([Number(m.rows), Number(m.cols)], [2, 10]);
      assertDrawn(await canvasStats(page, id), id, 2);
    }
    await page.selectOption('#scoring-keys', 'random');
    await page.fill('#scoring-len-0', '4');
    d = await dataset(page, 'scoring');
    const w = JSON.parse(d.weights);
    assert.ok(!near(w.additive, w.dot), 'additive and dot-product weights are the same for random keys');
    for (const kind of ['additive', 'dot']) {
      assert.deepEqual(w[kind].slice(4, 10), [0, 0, 0, 0, 0, 0], `${kind}: keys beyond valid length 4`);
      assert.deepEqual(w[kind].slice(16, 20), [0, 0, 0, 0], `${kind}: keys beyond valid length 6`);
    }
    assert.equal(await page.locator('#scoring-table td.masked').count(), 2 * (6 + 4));
    await shot(page.locator('#scoring'), 'scoring');
  });

  await t.test('positional encoding: the heatmap has positions x dimensions and the sin/cos values', async () => {
    let m = await dataset(page, 'pe-map');
    assert.deepEqual([Number(m.rows), Number(m.cols)], [60, 32]);
    assertDrawn(await canvasStats(page, 'pe-map'), 'positional encoding heatmap', 20);
    assertDrawn(await canvasStats(page, 'pe-plot'), 'positional encoding columns', 4);
    assert.equal(Number((await dataset(page, 'pe-plot')).series), 4);
    await page.fill('#pe-length', '20');
    await page.fill('#pe-dim', '16');
    m = await dataset(page, 'pe-map');
    assert.deepEqual([Number(m.rows), Number(m.cols)], [20, 16]);
    const first = JSON.parse((await dataset(page, 'pe')).firstRows);
    assert.deepEqual(first.slice(0, 16), Array.from({ length: 16 }, (_, c) => (c % 2 ? 1 : 0)));   // t = 0
    assert.ok(Math.abs(first[16] - Math.sin(1)) < 1e-5 && Math.abs(first[17] - Math.cos(1)) < 1e-5);
    await page.focus('#pe-map');
    await page.keyboard.press('ArrowDown');   // the cursor starts at (0, 0)
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.textContent('#pe-readout'), `position 1, dimension 0: P = ${Math.sin(1).toFixed(4)}`);
    await shot(page.locator('#pe'), 'positional-encoding');
    await page.fill('#pe-length', '60');
    await page.fill('#pe-dim', '32');
  });

  await t.test('the Bahdanau step: the article weights, the context vector, editable scores and states', async () => {
    const weights = () => page.locator('#bahdanau td.weight').allTextContents();
    assert.deepEqual(await weights(), ['0.272', '0.261', '0.236', '0.231']);
    assert.equal(await page.textContent('#bd-context'), '[0.4974, 0.5026]');
    assert.equal(await page.textContent('#bd-sum'), 'Σ α = 1.000');
    await page.fill('#bd-e-2', '2');          // make 吃 stand out
    const w = (await weights()).map(Number);
    assert.deepEqual(w.map((v) => v.toFixed(3)), ["0.144", "0.138", "0.595", "0.123"]);   // e^2 / (e^0.58 + e^0.54 + e^2 + e^0.42)
    assert.ok(Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 0.002);
    // Scores from the decoder state: s . h_i.
    await page.click('#bd-reset');
    await page.fill('#bd-s-0', '0');
    await page.fill('#bd-s-1', '1');
    await page.click('#bd-dot');
    assert.deepEqual(await Promise.all([0, 1, 2, 3].map((i) => page.inputValue(`#bd-e-${i}`))), ['0.1', '0.3', '0.8', '0.9']);
    await page.fill('#bd-h-0-0', '');         // no number: an error names the field
    assert.match(await page.textContent('#bd-error'), /^Encoder state of 我: “” is not a number$/);
    await page.click('#bd-reset');
    assert.deepEqual(await weights(), ['0.272', '0.261', '0.236', '0.231']);
    assert.equal(await page.isVisible('#bd-error'), false);
    await shot(page.locator('#bahdanau'), 'bahdanau');
  });

  assert.deepEqual(errors, []);
  await page.close();
});

test('the lab fits a 390 px phone screen and links back to the translator', async () => {
  const { page, errors } = await openLab({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
  for (const id of ['nw-plot', 'nw-map', 'pe-map']) {
    const box = await page.locator(`#${id}`).boundingBox();
    assert.ok(box.width <= 390, `${id} is ${box.width} px wide`);
  }
  await page.screenshot({ path: path.join(artifacts, 'lab-phone.png'), fullPage: true });
  assert.equal(await page.getAttribute('a[href="./"]', 'href'), './');
  assert.deepEqual(errors, []);
  await page.close();

  // The translator links to the lab.
  const main = await browser.newPage();
  await main.goto(`${server.url}/web/index.html?sw=0`);
  assert.equal(await main.locator('a[href="lab.html"]').count(), 1);
  await main.close();
});

test('at 1280 and 390 px no lab table is cut off, maps number like their tables, and labels stay apart', async () => {
  for (const width of [1280, 390]) {
    const { page, errors } = await openLab({ width, height: 900 });
    // Every table fits its box: nothing to scroll to, nothing hidden on the right.
    const clipped = await page.$$eval('table.numbers', (tables) => tables.map((t) => {
      const box = t.closest('.table-wrap') ?? t.parentElement;
      return { id: t.id, over: Math.round(t.getBoundingClientRect().right - box.getBoundingClientRect().right), scroll: box.scrollWidth - box.clientWidth };
    }).filter((t) => t.over > 0 || t.scroll > 0));
    assert.deepEqual(clipped, [], `${width} px: tables cut off`);
    // The masked-softmax and scoring maps count keys and queries from 1, as their tables do, and have a colour scale.
    for (const id of ['masked-map', 'scoring-additive-map', 'scoring-dot-map']) assert.equal((await dataset(page, id)).firstTick, '1', id);
    assert.equal(await page.locator('#masked-legend .legend-bar').count(), 1);
    // 512 encoding dimensions: column labels at least a label's width apart.
    await page.fill('#pe-dim', '512');
    const pe = await dataset(page, 'pe-map');
    assert.equal(pe.cols, '512');
    const room = await page.evaluate(() => {
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
      return ctx.measureText('511').width;
    });
    assert.ok(Number(pe.colTickStep) * Number(pe.cellW) >= room + 4, `${width} px: ticks every ${pe.colTickStep} columns of ${pe.cellW} px`);
    // The Nadaraya-Watson legend sits above the plot, not over the curves.
    const nw = await dataset(page, 'nw-plot');
    assert.ok(Number(nw.legendBottom) <= Number(nw.plotTop), `legend to ${nw.legendBottom} px, plot from ${nw.plotTop} px`);
    for (const id of ['masked', 'scoring', 'pe', 'nw']) await shot(page.locator(`#${id}`), `${id}-${width}`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
