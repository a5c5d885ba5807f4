// The demo page as a user meets it, with the shipped models: labels show characters (not the tokenizer's
// escapes); the attention view opens on the last layer, mean of heads, and a pick survives a change of layer or
// head, recomputed; a new sentence, another model or a blank input leave nothing stale on screen; a tap does what a
// hover does; a map wider than a phone says it scrolls; a link restores a translation; the translation can be
// copied and the maps saved (PNG, SVG, and JSON in the schema of `attend translate --attention`).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeBin, requireFile, root } from '../wasm/lib/paths.mjs';
import { serve } from './lib/server.mjs';
import { demoUrl, translateOnPage, waitForState } from './lib/demo.mjs';
import { launch, watchErrors } from './lib/browser.mjs';
import { tokenLabels, unescapeMoses, wordsOf } from '../../web/tokens.js';

const deModel = requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const frModel = requireFile(path.join(root, 'web', 'models', 'multi30k-en-fr-cased.safetensors'));
const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const attend = requireFile(nativeBin('attend'));

const server = await serve(root);
const browser = await launch();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-usability-'));
after(async () => { await browser.close(); await server.close(); fs.rmSync(tmp, { recursive: true, force: true }); });

const demo = (query) => demoUrl(server, query);
const state = waitForState;
const shot = (page, name, fullPage = true) => page.screenshot({ path: path.join(artifacts, `web-${name}.png`), fullPage });

const translate = async (page, text, beam) => (await translateOnPage(page, text, beam)).trim();

// The centre of heatmap cell (row, col) in the canvas's own coordinates.
async function cellAt(page, row, col) {
  const d = await page.evaluate(() => ({ ...document.getElementById('heatmap').dataset }));
  return { x: Number(d.gridLeft) + (col + 0.5) * Number(d.cell), y: Number(d.gridTop) + (row + 0.5) * Number(d.cell) };
}

// Native attend, for the reference tokens and the JSON schema.
function nativeAttention(model, text, beam) {
  const file = path.join(tmp, `maps-${path.basename(model)}-${beam}.json`);
  execFileSync(attend, ['translate', '-m', model, '-t', text, '-b', String(beam), '--attention', file], { encoding: 'utf8' });
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// A French translation with elisions: "l'eau" and "d'un" come out of the tokenizer as "l&apos;eau", "d&apos;un".
const elision = 'A man is looking at the water from the edge of a boat.';

test('escapes are undone for display, and only in one pass', () => {
  assert.equal(unescapeMoses('l&apos;eau &quot;x&quot; &#91;a&#93; &#124; &lt;b&gt; &amp;'), 'l\'eau "x" [a] | <b> &');
  assert.equal(unescapeMoses('&amp;lt;'), '&lt;');   // a literal "&lt;" in the text
  const words = wordsOf(['d&ap@@', 'os;un', 'chat', '<eos>']);
  assert.deepEqual(words.map((w) => w.text), ["d'un", 'chat']);
  assert.deepEqual(words.map((w) => w.tokens), [[0, 1], [2]]);
});

test('words and map labels show apostrophes and angle brackets, not Moses escapes', async () => {
  const native = nativeAttention(frModel, elision, 2).sentences[0];
  assert.ok(native.target_tokens.some((t) => t.includes('&apos;')), `no elision in ${native.target_tokens.join(' ')}`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demo('&model=multi30k-en-fr-cased'));
  await state(page, 'modelState', 'ready');
  const text = await translate(page, elision);
  assert.ok(text.includes("'"), text);
  const chips = await page.locator('#target-words .word').allTextContents();
  assert.ok(chips.some((w) => w.includes("'")), chips.join(' '));
  assert.ok(chips.every((w) => !/&[a-z#0-9]+;/.test(w)), chips.join(' '));
  const labels = JSON.parse(await page.getAttribute('#heatmap', 'data-row-labels'));
  assert.deepEqual(labels, tokenLabels(native.target_tokens));
  assert.ok(labels.some((l) => l.includes("'")) && labels.every((l) => !l.includes('&apos;')), labels.join(' '));
  await page.click('#tab-alignment');
  assert.deepEqual(JSON.parse(await page.getAttribute('#alignment', 'data-row-labels')), labels);
  await shot(page, 'elision-alignment');

  // Markup-like input that is not a tag: the source chips show "<" and "&".
  await page.click('#tab-heatmap');
  await translate(page, 'A dog < a cat & a bird.');
  const source = (await page.locator('#source-words .word').allTextContents()).join(' ');
  assert.match(source, /</);
  assert.match(source, /&/);
  assert.doesNotMatch(source, /&(lt|gt|amp);/);
  assert.ok(JSON.parse(await page.getAttribute('#heatmap', 'data-col-labels')).includes('&'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a name the model would garble is in the translation, the word chips and the map labels', async () => {
  const sentence = 'A woman in a red dress is dancing with Carlos.';
  const native = nativeAttention(deModel, sentence, 5).sentences[0];
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demo('&model=multi30k-en-de-cased'));
  await state(page, 'modelState', 'ready');
  const text = await translate(page, sentence, 5);
  assert.match(text, /\bCarlos\b/);
  assert.doesNotMatch(text, /Obama|China|America|London|Seattle|Miami|Boston/);
  for (const side of ['source', 'target']) {
    const chips = await page.locator(`#${side}-words .word`).allTextContents();
    assert.ok(chips.some((w) => w.trim() === 'Carlos'), `${side}: ${chips.join(' ')}`);
    assert.ok(chips.every((w) => !/Obama|Ob@@|ama/.test(w)), `${side}: ${chips.join(' ')}`);
  }
  assert.deepEqual(JSON.parse(await page.getAttribute('#heatmap', 'data-row-labels')), tokenLabels(native.target_tokens));
  assert.deepEqual(JSON.parse(await page.getAttribute('#heatmap', 'data-col-labels')), tokenLabels(native.source_tokens));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the view opens on the last layer, mean of heads; a pick survives layer and head changes; a new sentence clears it', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demo('&model=multi30k-en-de-cased'));
  await state(page, 'modelState', 'ready');
  await translate(page, 'A man in an orange hat starring at something.');
  const layers = await page.locator('#layer-select option').count();
  assert.equal(await page.inputValue('#layer-select'), String(layers - 1));
  assert.equal(await page.inputValue('#head-select'), 'mean');
  assert.equal(await page.getAttribute('#heatmap', 'data-head'), 'mean');
  await shot(page, 'default-view');

  // Pick cell (1, 1) by a click, then change the head and the layer: the readout follows the new weights, the
  // same as a fresh hover over that cell gives.
  const cell = await cellAt(page, 1, 1);
  await page.click('#heatmap', { position: cell });
  await page.mouse.move(5, 5);   // the pointer leaves; the pick stays
  const picked = await page.textContent('#heatmap-readout');
  assert.match(picked, /^\S+ → \S+: \d\.\d{3}$/);
  assert.equal(await page.isVisible('#heatmap-tooltip'), true);
  for (const [select, value] of [['#head-select', '0'], ['#layer-select', '0'], ['#head-select', '2']]) {
    await page.selectOption(select, value);
    const kept = await page.textContent('#heatmap-readout');
    assert.equal(kept.split(':')[0], picked.split(':')[0], `${select} ${value}: the pick was lost`);
    assert.equal(await page.textContent('#heatmap-tooltip'), kept);
    await page.hover('#heatmap', { position: cell });
    assert.equal(await page.textContent('#heatmap-readout'), kept, `${select} ${value}: the readout is stale`);
    await page.mouse.move(5, 5);
  }

  // A picked output word: its source marks are worked out again on another layer.
  await page.click('#target-words .word >> nth=0');
  await page.mouse.move(5, 5);
  assert.equal(await page.getAttribute('#target-words .word >> nth=0', 'aria-pressed'), 'true');
  const weights = () => page.$$eval('#source-words .word', (s) => s.map((e) => e.style.getPropertyValue('--w')));
  await page.selectOption('#layer-select', String(layers - 1));
  await page.selectOption('#head-select', 'mean');
  const onLast = await weights();
  await page.hover('#target-words .word >> nth=0');
  assert.deepEqual(await weights(), onLast, 'the picked word shows weights of another layer');
  await page.selectOption('#layer-select', '0');
  await page.selectOption('#head-select', '0');
  await page.hover('#target-words .word >> nth=0');
  const onFirst = await weights();
  await page.mouse.move(5, 5);
  assert.deepEqual(await weights(), onFirst);

  // A new sentence: no readout, tooltip or pick of the old one.
  await page.click('#tab-alignment');
  await page.focus('#alignment');
  await page.keyboard.press('ArrowDown');
  assert.notEqual(await page.textContent('#alignment-readout'), '');
  await page.click('#tab-heatmap');
  await page.click('#heatmap', { position: cell });
  await translate(page, 'Two young men are playing soccer in a park.');
  assert.equal(await page.textContent('#heatmap-readout'), '');
  assert.equal(await page.isVisible('#heatmap-tooltip'), false);
  await page.click('#tab-alignment');
  assert.equal(await page.textContent('#alignment-readout'), '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('another model, or a blank input, clears the old result; the BLEU score is in the details, not the menu', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demo());
  await state(page, 'modelState', 'ready');
  for (const option of await page.locator('#model-select option').allTextContents()) assert.doesNotMatch(option, /BLEU/);
  assert.match(await page.textContent('#model-details'), /^[^·]*· BLEU \d+\.\d/);
  assert.match(await page.textContent('#model-knows'), /trained on 29,000 image captions/);
  assert.equal(await page.isVisible('#model-knows'), true);

  await translate(page, 'A dog runs on the beach.');
  await page.selectOption('#model-select', 'multi30k-en-fr-cased');
  assert.equal(await page.isVisible('#output'), false, 'the German result stays under the French model');
  assert.equal(await page.isVisible('#attention-panel'), false);
  await state(page, 'modelState', 'ready');
  assert.equal(await page.isVisible('#output'), false);
  assert.equal(await page.textContent('#translate-status'), '');

  await translate(page, 'A dog runs on the beach.');
  await page.fill('#source-text', '   ');
  await page.click('#translate-button');
  assert.equal(await page.isVisible('#translate-error'), true);
  assert.equal(await page.isVisible('#output'), false);
  assert.equal(await page.isVisible('#attention-panel'), false);
  assert.doesNotMatch(await page.textContent('#translate-status'), /done/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a touch phone a tap shows what a hover shows, and a wide map says it scrolls', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(demo('&model=multi30k-en-de-cased'));
  await state(page, 'modelState', 'ready');
  const long = 'A man in a blue shirt and a woman in a red dress are standing next to a large white dog on a busy street '
    + 'while two young children play with a ball in front of an old church.';
  await translate(page, long);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);

  // The heatmap is wider than the screen: a fade and a hint, gone at the right end.
  assert.equal(await page.getAttribute('#heatmap-scroll', 'data-overflow'), 'true');
  assert.equal(await page.getAttribute('#heatmap-scroll', 'data-more'), 'right');
  assert.equal(await page.isVisible('#heatmap-scroll .scroll-hint'), true);
  await page.locator('#heatmap').scrollIntoViewIfNeeded();
  await shot(page, 'phone-heatmap-scroll', false);

  // Tap a cell: the tooltip and the readout, as a hover gives them.
  await page.tap('#heatmap', { position: await cellAt(page, 0, 0) });
  assert.equal(await page.isVisible('#heatmap-tooltip'), true);
  assert.match(await page.textContent('#heatmap-readout'), / → .*: \d\.\d{3}$/);
  await page.$eval('#heatmap-scroll .scroller', (s) => { s.scrollLeft = s.scrollWidth; });
  await page.waitForFunction(() => document.getElementById('heatmap-scroll').dataset.more === '');
  assert.equal(await page.isVisible('#heatmap-scroll .scroll-hint'), false);

  // Tap an output word: its source words are marked and stay marked.
  await page.tap('#target-words .word >> nth=1');
  assert.ok(await page.locator('#source-words .word.strong').count() >= 1);
  assert.equal(await page.getAttribute('#target-words .word >> nth=1', 'aria-pressed'), 'true');

  // The alignment of a long sentence: only strong links (at most four per query row, each row summing to 1).
  await page.tap('#tab-alignment');
  const a = await page.evaluate(() => ({ ...document.getElementById('alignment').dataset }));
  assert.equal(a.crowded, 'true');
  assert.ok(Number(a.lines) > 0 && Number(a.lines) <= 4 * Number(a.rows), `${a.lines} lines for ${a.rows} rows`);
  await page.locator('#alignment').scrollIntoViewIfNeeded();
  await shot(page, 'phone-alignment-long', false);
  const box = await page.locator('#alignment').boundingBox();
  await page.touchscreen.tap(box.x + 20, box.y + 30);
  assert.match(await page.textContent('#alignment-readout'), / → /);

  // The head view: a tap on a token keeps only its lines.
  await page.tap('#tab-heads');
  const all = Number(await page.getAttribute('#headview', 'data-lines'));
  await page.locator('#headview').scrollIntoViewIfNeeded();
  const hv = await page.locator('#headview').boundingBox();
  await page.touchscreen.tap(hv.x + 20, hv.y + 20);
  assert.match(await page.textContent('#headview-readout'), / → head 1: /);
  assert.ok(Number(await page.getAttribute('#headview', 'data-lines')) < all);
  await shot(page, 'phone-head-view', false);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link restores a translation; the translation copies; the maps save as PNG, SVG and JSON', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const text = 'A little girl is climbing a wooden staircase.';
  await page.goto(demo(`&model=multi30k-en-fr-cased&beam=3&text=${encodeURIComponent(text)}`));
  await state(page, 'translateState', 'done');
  assert.equal(await page.inputValue('#model-select'), 'multi30k-en-fr-cased');
  assert.equal(await page.inputValue('#source-text'), text);
  assert.equal(await page.inputValue('#beam-size'), '3');
  const output = (await page.textContent('#output-text')).trim();
  assert.match(await page.textContent('#output-timing'), /beam 3/);

  // The address follows the page: another sentence, then the link opens it again.
  const other = 'Two dogs play in the snow.';
  const translated = await translate(page, other, 2);
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('text'), other);
  assert.equal(link.searchParams.get('beam'), '2');
  assert.equal(link.searchParams.get('model'), 'multi30k-en-fr-cased');
  assert.equal(await page.getAttribute('#share-link', 'href'), page.url());
  const page2 = await context.newPage();
  await page2.goto(link.href);
  await state(page2, 'translateState', 'done');
  assert.equal((await page2.textContent('#output-text')).trim(), translated);
  await page2.close();
  await translate(page, text, 3);
  assert.equal((await page.textContent('#output-text')).trim(), output);

  await page.click('#copy-text');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), output);
  await page.click('#copy-link');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());

  const save = async (id) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    return { name: download.suggestedFilename(), bytes: fs.readFileSync(await download.path()) };
  };
  const dims = await page.evaluate(() => ({ ...document.getElementById('heatmap').dataset }));
  const layers = await page.locator('#layer-select option').count();
  const png = await save('#download-png');
  assert.equal(png.name, `attention-cross-layer${layers}-mean.png`);
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const svg = await save('#download-svg');
  assert.equal(svg.name, `attention-cross-layer${layers}-mean.svg`);
  const svgText = svg.bytes.toString('utf8');
  assert.match(svgText, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  // One square per weight (each with its own <title>), plus the background and the colour bar.
  assert.equal(svgText.match(/<rect /g).length, Number(dims.rows) * Number(dims.cols) + 2);
  for (const label of JSON.parse(dims.colLabels)) assert.ok(svgText.includes(`>${label.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</text>`), label);

  const json = await save('#download-json');
  assert.equal(json.name, 'attention.json');
  const saved = JSON.parse(json.bytes.toString('utf8'));
  const native = nativeAttention(frModel, text, 3);
  // The native file's schema, key for key.
  const keys = (o) => (o && typeof o === 'object' && !Array.isArray(o)
    ? Object.fromEntries(Object.keys(o).sort().map((k) => [k, keys(o[k])])) : Array.isArray(o) ? 'array' : typeof o);
  assert.deepEqual(keys({ ...saved, sentences: saved.sentences[0] }), keys({ ...native, sentences: native.sentences[0] }));
  assert.equal(saved.format, native.format);
  assert.equal(saved.note, native.note);
  const s = saved.sentences[0];
  assert.equal(s.text, output);
  // Every map in [layers, heads, rows, cols], each row a distribution.
  for (const [kind, rows, cols] of [['cross', s.target_tokens.length, s.source_tokens.length],
    ['encoder_self', s.source_tokens.length, s.source_tokens.length], ['decoder_self', s.target_tokens.length, s.target_tokens.length]]) {
    const m = s[kind];
    assert.equal(m.rows, rows, kind);
    assert.equal(m.cols, cols, kind);
    assert.equal(m.layers, native.sentences[0][kind].layers, kind);
    assert.equal(m.heads, native.sentences[0][kind].heads, kind);
    assert.equal(m.data.length, m.layers * m.heads * rows * cols, kind);
    for (let r = 0; r < m.layers * m.heads * rows; r++) {
      const sum = m.data.slice(r * cols, (r + 1) * cols).reduce((a, v) => a + v, 0);
      assert.ok(Math.abs(sum - 1) < 1e-3, `${kind} row ${r} sums to ${sum}`);
    }
  }

  // The head view: every head of one layer, lines over the threshold only, for each kind of map. The number of
  // lines drawn is the number of weights at or over the threshold in the saved maps (float32 values, exact).
  await page.click('#tab-heads');
  for (const [kind, key] of [['cross', 'cross'], ['encoderSelf', 'encoder_self'], ['decoderSelf', 'decoder_self']]) {
    await page.selectOption('#map-kind', kind);
    const m = s[key];
    for (const layer of [0, m.layers - 1]) {
      await page.selectOption('#layer-select', String(layer));
      for (const threshold of ['0.1', '0.5']) {
        await page.$eval('#head-threshold', (el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }, threshold);
        const seen = await page.evaluate(() => ({ ...document.getElementById('headview').dataset }));
        let want = 0;
        const size = m.rows * m.cols;
        for (let h = 0; h < m.heads; h++) {
          for (let k = 0; k < size; k++) {
            const w = Math.fround(m.data[(layer * m.heads + h) * size + k]);
            if (w >= Number(threshold) && w > 0) want++;
          }
        }
        assert.equal(Number(seen.heads), m.heads);
        assert.equal(Number(seen.lines), want, `${kind}, layer ${layer + 1}, threshold ${threshold}`);
      }
    }
  }
  // Heads can be hidden; a picked token keeps only its lines.
  await page.selectOption('#map-kind', 'cross');
  await page.uncheck('#head-toggle-0');
  assert.doesNotMatch(await page.getAttribute('#headview', 'data-shown-heads'), /^0/);
  const all = Number(await page.getAttribute('#headview', 'data-lines'));
  await page.focus('#headview');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.textContent('#headview-readout'), /→ head 2: /);
  assert.ok(Number(await page.getAttribute('#headview', 'data-lines')) < all);
  await page.locator('#attention-panel').screenshot({ path: path.join(artifacts, 'web-head-view.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
