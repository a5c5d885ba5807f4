// What a new user meets on the demo page, at a phone's and a desktop's size: the translation in view after
// Translate, no tokenizer escapes or subword marks anywhere, a long paste translated whole, an unknown model id
// said, controls that match the view, and a shared link that restores what was shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const { server, browser, artifacts } = await startSession(root);
const shot = (page, name) => page.screenshot({ path: path.join(artifacts, `defects-${name}.png`) });

async function openDemo(viewport, query = '&model=multi30k-en-de-cased', touch = false) {
  const page = await browser.newPage({ viewport, hasTouch: touch, isMobile: touch });
  const errors = watchErrors(page);
  await page.goto(demoUrl(server, query));
  await waitForState(page, 'modelState', 'ready');
  return { page, errors };
}

// Where an element is, relative to the window: fully in view or not.
const inView = (page, selector) => page.evaluate((s) => {
  const r = document.querySelector(s).getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, height: innerHeight, visible: r.top >= 0 && r.bottom <= innerHeight && r.height > 0 };
}, selector);

test('on a phone the translation is in view after tapping Translate, without scrolling', async () => {
  const { page, errors } = await openDemo({ width: 390, height: 844 }, '&model=multi30k-en-de-cased', true);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.tap('#translate-button');
  await waitForState(page, 'translateState', 'done');
  // Any scrolling the page does is over within a moment.
  await page.waitForTimeout(600);
  const where = await inView(page, '#output-text');
  assert.ok(where.visible, `the translation is at ${where.top.toFixed(0)}–${where.bottom.toFixed(0)} px of a ${where.height} px window`);
  await shot(page, 'phone-translated');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a desktop the translation comes before the example chips and is in view', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 800 });
  await translateOnPage(page, 'A dog runs on the beach.');
  await page.waitForTimeout(600);
  const where = await inView(page, '#output-text');
  assert.ok(where.visible, `the translation is at ${where.top.toFixed(0)}–${where.bottom.toFixed(0)} px of a ${where.height} px window`);
  const order = await page.evaluate(() => {
    const out = document.getElementById('output').getBoundingClientRect().top;
    const ex = document.querySelector('.examples').getBoundingClientRect().top;
    return { out, ex };
  });
  assert.ok(order.out < order.ex, `output at ${order.out}, examples at ${order.ex}`);
  assert.deepEqual(errors, []);
  await page.close();
});

// Every label of every attention view, and the output, free of the tokenizer's marks.
const RAW = /@@|\u2581|<0x[0-9A-F]{2}>|&(?:amp|#124|lt|gt|apos|quot|#91|#93);/;
async function viewLabels(page) {
  const out = {};
  for (const [tab, canvas] of [['heatmap', 'heatmap'], ['alignment', 'alignment'], ['heads', 'headview']]) {
    await page.click(`#tab-${tab}`);
    const d = await page.evaluate((id) => ({ ...document.getElementById(id).dataset }), canvas);
    out[tab] = [...JSON.parse(d.rowLabels), ...JSON.parse(d.colLabels)];
  }
  await page.click('#tab-heatmap');
  return out;
}

test('Moses escapes and BPE marks do not reach the output, the word chips or any view\'s labels', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 });
  const amp = await translateOnPage(page, 'A boy & a girl play in the park.');
  assert.ok(amp.includes('&') && !/amp|&\s*;/.test(amp), amp);
  // A bracket is read as punctuation the model knows, not as five pieces of "&#91;".
  await translateOnPage(page, 'A man waves [smiling].');
  const source = JSON.parse(await page.getAttribute('#heatmap', 'data-col-labels'));
  assert.ok(source.every((l) => !/[&#]/.test(l)), source.join(' '));
  assert.ok(source.length <= 8, `${source.length} source tokens: ${source.join(' ')}`);
  await translateOnPage(page, 'A grandmother and her granddaughter are baking cookies.');
  const chips = await page.locator('#target-words .word').allTextContents();
  const labels = await viewLabels(page);
  const tokens = await page.evaluate(() => document.getElementById('heatmap').dataset.rows);
  assert.ok(Number(tokens) > chips.length, `a word in pieces: ${chips.join(' ')}`);
  for (const [view, list] of Object.entries(labels)) {
    assert.ok(list.every((l) => !RAW.test(l)), `${view}: ${list.join(' ')}`);
    // The pieces of a word joined read as the word chip.
    const words = JSON.parse(await page.getAttribute('#heatmap', 'data-row-labels')).join(' ').replaceAll('· ', '');
    for (const chip of chips) assert.ok(words.includes(chip), `${chip} in ${words}`);
  }
  for (const chip of chips) assert.ok(!RAW.test(chip), chip);
  assert.deepEqual(errors, []);
  await page.close();
});

// Seed 003's sentence through the shipped zh→en model: Chinese in, the labels of every view in plain characters (no
// "▁" or byte pieces), and what the model leaves to itself said beside the text box; and back, English to Chinese.
// (Where "fish" looks is checked on the model natively and in wasm: tests/wasm/chinese.test.mjs.)
test('Chinese: 我喜欢吃鱼 in the page, every view\'s labels in plain characters, and back from English', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 }, '&model=tatoeba-zh-en');
  assert.equal(await page.inputValue('#source-language'), 'zh');
  assert.match(await page.textContent('#model-knows'), /not copied/);
  const out = await translateOnPage(page, '我喜欢吃鱼', 5);
  assert.match(out, /like/);
  assert.match(out, /fish/);
  const labels = await viewLabels(page);
  for (const [view, list] of Object.entries(labels)) assert.ok(list.every((l) => !RAW.test(l)), `${view}: ${list.join(' ')}`);
  const cols = JSON.parse(await page.getAttribute('#heatmap', 'data-col-labels'));
  assert.ok(cols.includes('鱼'), cols.join(' '));
  await page.selectOption('#source-language', 'en');
  await page.selectOption('#target-language', 'zh');
  await waitForState(page, 'modelState', 'ready');
  assert.equal(await page.inputValue('#model-select'), 'tatoeba-en-zh');
  const zh = await translateOnPage(page, 'I like to eat fish.', 5);
  assert.match(zh, /鱼/);
  assert.deepEqual(errors, []);
  await page.close();
});

const SCENES = ['A dog runs on the beach.', 'Two young men are playing soccer in a park.',
  'A woman in a red dress is walking down the street.', 'A little girl is climbing a wooden staircase.',
  'A man is riding a bicycle on a dirt road.', 'People are sitting at tables outside a restaurant.'];

test('a long paste is translated whole, sentence by sentence, past 2,000 characters', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 });
  const sentences = Array.from({ length: 60 }, (_, i) => SCENES[i % SCENES.length]);
  sentences.push('A cat sleeps on the sofa.');
  const text = sentences.join(' ');
  assert.ok(text.length > 2500);
  await page.fill('#source-text', text);
  assert.equal((await page.inputValue('#source-text')).length, text.length, 'the text box keeps the whole paste');
  await page.click('#translate-button');
  await waitForState(page, 'translateState', 'done');
  assert.equal(await page.locator('#sentence-select option').count(), sentences.length);
  const out = (await page.textContent('#output-text')).trim();
  assert.match(out, /Katze/, out.slice(-200));
  assert.ok(await page.locator('#output-note').isHidden(), 'no note when all is translated');
  assert.match(await page.textContent('label[for="source-text"]'), /10,000 characters/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a paste over the limit says what was left out, and is cut at a sentence end', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 });
  const sentences = Array.from({ length: 260 }, (_, i) => SCENES[i % SCENES.length]);
  const text = sentences.join(' ');
  assert.ok(text.length > 10000);
  await page.fill('#source-text', text);
  // Said before Translate too, beside the text box.
  const before = await page.textContent('#length-note');
  assert.match(before, /10,000/);
  await page.fill('#beam-size', '1');
  await page.click('#translate-button');
  await waitForState(page, 'translateState', 'done');
  const note = page.locator('#output-note');
  assert.ok(await note.isVisible());
  const said = await note.textContent();
  const kept = Number((await page.getAttribute('#output-note', 'data-translated-chars')));
  assert.ok(kept <= 10000 && kept > 9000, `${kept} characters translated`);
  assert.ok(/[.!?]$/.test(text.slice(0, kept).trim()), `cut at ${JSON.stringify(text.slice(kept - 20, kept + 5))}`);
  assert.match(said, new RegExp(`${(text.length - kept).toLocaleString('en-US')} characters`));
  const translatedSentences = await page.locator('#sentence-select option').count();
  assert.equal(translatedSentences, text.slice(0, kept).trim().split(/(?<=\.)\s+/).length);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an unknown ?model= id is said, with the model used instead', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 }, '&model=multi30k-en-xx-nope');
  const notice = page.locator('#model-notice');
  assert.ok(await notice.isVisible(), 'a notice is shown');
  const said = await notice.textContent();
  assert.match(said, /multi30k-en-xx-nope/);
  // The first model of the list is used: English → German.
  assert.equal(await page.inputValue('#model-select'), 'multi30k-en-de-cased');
  assert.match(said, /English.*German/);
  // Choosing a model is an answer: the notice goes.
  const other = await page.evaluate(() => [...document.getElementById('model-select').options].map((o) => o.value)
    .find((v) => v !== document.getElementById('model-select').value));
  await page.selectOption('#model-select', other);
  await waitForState(page, 'modelState', 'ready');
  assert.ok(await notice.isHidden());
  assert.deepEqual(errors, []);
  await page.close();
});

// A PNG's size in pixels, from its header.
const pngSize = (bytes) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

test('controls match the view: the head menu, "save the map shown", and status messages that do not linger', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 });
  await translateOnPage(page, 'A dog runs on the beach.');
  const visible = (s) => page.locator(s).isVisible();
  const enabled = (s) => page.locator(s).isEnabled();
  assert.ok(await visible('#head-select') && await visible('#layer-select'));

  await page.click('#tab-grid');
  assert.ok(!(await visible('#head-select')), 'no head menu over every head');
  assert.ok(!(await visible('#layer-select')), 'no layer menu over every layer');
  assert.ok(!(await enabled('#download-png')) && !(await enabled('#download-svg')), 'the grid is no map to save');

  await page.click('#tab-heads');
  assert.ok(!(await visible('#head-select')), 'the head view shows every head: no head menu');
  assert.ok(await visible('#layer-select'));
  // Its PNG is the picture shown, the head view's, not the heatmap's; it has no SVG.
  assert.ok(await enabled('#download-png'));
  assert.ok(!(await enabled('#download-svg')));
  let [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
  assert.match(download.suggestedFilename(), /^heads-/);
  const fs = await import('node:fs');
  let size = pngSize(fs.readFileSync(await download.path()));
  let canvas = await page.evaluate(() => ({ width: document.getElementById('headview').width, height: document.getElementById('headview').height }));
  assert.deepEqual(size, canvas);

  await page.click('#tab-alignment');
  assert.ok(await visible('#head-select'));
  [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
  assert.match(download.suggestedFilename(), /^alignment-/);
  size = pngSize(fs.readFileSync(await download.path()));
  canvas = await page.evaluate(() => ({ width: document.getElementById('alignment').width, height: document.getElementById('alignment').height }));
  assert.deepEqual(size, canvas);

  await page.click('#tab-heatmap');
  assert.ok(await enabled('#download-png') && await enabled('#download-svg'));

  // "The link is on the clipboard." (or the copy fallback's advice) goes at the next action.
  const said = () => page.waitForFunction(() => document.getElementById('share-status').textContent.trim() !== '');
  await page.click('#copy-link');
  await said();
  await page.click('#tab-alignment');
  assert.equal((await page.textContent('#share-status')).trim(), '');
  await page.click('#copy-text');
  await said();
  await translateOnPage(page, 'A cat sleeps on the sofa.');
  assert.equal((await page.textContent('#share-status')).trim(), '');
  assert.ok(await page.locator('#copy-fallback').isHidden());
  assert.deepEqual(errors, []);
  await page.close();
});

test('lab: encoding dimension 7 names the columns it has and fits its captions; the decoder state sets the scores at once', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/lab.html`);
  await page.waitForFunction(() => document.body.dataset.labState === 'ready', null, { timeout: 60000 });
  await page.fill('#pe-dim', '7');
  const caption = await page.textContent('#pe-plot-caption');
  assert.match(caption, /\bcolumn 6\b/i);
  assert.doesNotMatch(caption, /[789]/);
  assert.equal(await page.getAttribute('#pe-plot', 'data-series'), '1');
  // Every caption of the map lies inside its canvas.
  for (const dim of ['7', '1', '2']) {
    await page.fill('#pe-dim', dim);
    const m = await page.evaluate(() => {
      const c = document.getElementById('pe-map');
      return { ...c.dataset, width: parseFloat(c.style.width), height: parseFloat(c.style.height) };
    });
    assert.ok(Number(m.xLabelLeft) >= 0 && Number(m.xLabelRight) <= m.width, `dimension ${dim}: x caption ${m.xLabelLeft}–${m.xLabelRight} of ${m.width}`);
    assert.ok(Number(m.yLabelTop) >= 0 && Number(m.yLabelBottom) <= m.height, `dimension ${dim}: y caption ${m.yLabelTop}–${m.yLabelBottom} of ${m.height}`);
  }
  await page.fill('#pe-length', '2');
  const m = await page.evaluate(() => ({ ...document.getElementById('pe-map').dataset, height: parseFloat(document.getElementById('pe-map').style.height) }));
  assert.ok(Number(m.yLabelTop) >= 0 && Number(m.yLabelBottom) <= m.height, `2 positions: y caption ${m.yLabelTop}–${m.yLabelBottom} of ${m.height}`);

  // The decoder state's scores, e_i = s · h_i, without pressing the button.
  await page.fill('#bd-s-0', '0');
  await page.fill('#bd-s-1', '1');
  assert.deepEqual(await Promise.all([0, 1, 2, 3].map((i) => page.inputValue(`#bd-e-${i}`))), ['0.1', '0.3', '0.8', '0.9']);
  // An encoder state edited: its score follows too.
  await page.fill('#bd-h-0-1', '0.5');
  assert.equal(await page.inputValue('#bd-e-0'), '0.5');
  // A score typed by hand stays until the decoder state changes again.
  await page.fill('#bd-e-1', '2');
  await page.fill('#bd-h-1-1', '0.6');
  assert.equal(await page.inputValue('#bd-e-1'), '2');
  assert.deepEqual(errors, []);
  await page.close();
});

test('runs.html opens on the shipped models\' runs, one to choose per model, the first plotted', async () => {
  const fs = await import('node:fs');
  const models = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models;
  const languageModels = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'lm', 'models.json'), 'utf8')).models;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/runs.html`);
  await page.waitForFunction(() => document.body.dataset.runState === 'ready', null, { timeout: 30000 });
  const options = await page.$$eval('#run-shipped option', (os) => os.map((o) => ({ value: o.value, text: o.textContent })));
  // The translators' runs, then the language models'.
  assert.deepEqual(options.map((o) => o.value), [
    ...models.map((m) => `models/${m.file.replace(/\.safetensors$/, '')}.train.jsonl`),
    ...languageModels.map((m) => `models/lm/${m.file.replace(/\.safetensors$/, '')}.train.jsonl`)]);
  assert.ok(models.every((m, i) => options[i].text.includes(m.pair)), options.map((o) => o.text).join(' | '));
  assert.match(await page.textContent('#run-summary'), new RegExp(`^${models[0].file.replace(/\.safetensors$/, '')}\\.train\\.jsonl`));
  assert.ok(Number(await page.getAttribute('#chart-bleu', 'data-points')) > 0);
  await page.selectOption('#run-shipped', options[1].value);
  await page.waitForFunction((name) => document.getElementById('run-summary').textContent.startsWith(name),
    options[1].value.split('/').pop());
  assert.deepEqual(errors, []);
  await page.close();
});

test('the picker: languages first (from, to, swap), then the model in plain words, its figures behind "details"; a link keeps it all', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 }, '');
  const values = (s) => page.$$eval(`${s} option:not([disabled])`, (os) => os.map((o) => o.value));
  assert.equal(await page.inputValue('#source-language'), 'en');
  assert.equal(await page.inputValue('#target-language'), 'de');
  assert.deepEqual((await values('#source-language')).sort(), ['de', 'en', 'fr', 'zh']);
  assert.deepEqual((await values('#target-language')).sort(), ['de', 'fr', 'zh']);
  // The languages come before the model in the page.
  const order = await page.evaluate(() => ['source-language', 'target-language', 'model-select']
    .map((id) => document.getElementById(id).getBoundingClientRect()).map((r) => [r.top, r.left]));
  assert.ok(order[0][0] < order[2][0] || (order[0][0] === order[2][0] && order[0][1] < order[2][1]));
  // Plain words in the menu; the figures behind a closed "details".
  for (const text of await page.locator('#model-select option').allTextContents()) {
    assert.doesNotMatch(text, /BLEU|param|\bd \d|\bI8\b|\d\s*[kM]B|13a/, text);
    assert.match(text, /scene|caption|everyday/i, text);
  }
  assert.match(await page.textContent('#model-purpose'), /scene|caption/i);
  // No jargon in what shows without opening the details (the progress line included).
  assert.doesNotMatch(await page.textContent('#model-progress'), /\bI8\b|F32|F16/);
  assert.equal(await page.getAttribute('#model-figures', 'open'), null);
  assert.ok(!(await page.locator('#model-details').isVisible()));
  await page.click('#model-figures summary');
  assert.match(await page.textContent('#model-details'), /BLEU/);

  // To French: the English → French model.
  await page.selectOption('#target-language', 'fr');
  await waitForState(page, 'modelState', 'ready');
  assert.equal(await page.inputValue('#model-select'), 'multi30k-en-fr-cased');
  // From German: only English is offered as the target, and the German → English model is loaded.
  await page.selectOption('#source-language', 'de');
  await waitForState(page, 'modelState', 'ready');
  assert.deepEqual(await values('#target-language'), ['en']);
  assert.equal(await page.inputValue('#model-select'), 'multi30k-de-en-cased');
  // The swap turns the pickers round.
  await page.click('#swap-languages');
  await waitForState(page, 'modelState', 'ready');
  assert.equal(await page.inputValue('#source-language'), 'en');
  assert.equal(await page.inputValue('#target-language'), 'de');

  // A link keeps the languages, the model, the text and the view.
  await page.selectOption('#target-language', 'fr');
  await waitForState(page, 'modelState', 'ready');
  const text = 'Two dogs play in the snow.';
  const out = await translateOnPage(page, text);
  await page.click('#tab-alignment');
  await page.selectOption('#layer-select', '1');
  const link = await page.getAttribute('#share-link', 'href');
  const url = new URL(link);
  assert.equal(url.searchParams.get('model'), 'multi30k-en-fr-cased');
  assert.equal(url.searchParams.get('from'), 'en');
  assert.equal(url.searchParams.get('to'), 'fr');
  assert.equal(url.searchParams.get('text'), text);
  assert.equal(url.searchParams.get('view'), 'alignment');
  assert.equal(page.url(), link);
  const again = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await again.goto(link);
  await waitForState(again, 'translateState', 'done');
  assert.equal(await again.inputValue('#source-language'), 'en');
  assert.equal(await again.inputValue('#target-language'), 'fr');
  assert.equal(await again.inputValue('#model-select'), 'multi30k-en-fr-cased');
  assert.equal(await again.inputValue('#source-text'), text);
  assert.equal(await again.textContent('#output-text'), out);
  assert.equal(await again.getAttribute('#tab-alignment', 'aria-selected'), 'true');
  assert.equal(await again.inputValue('#layer-select'), '1');
  // A link to a pair whose model id is gone still opens on that pair.
  await again.goto(demoUrl(server, '&model=gone&from=de&to=en'));
  await waitForState(again, 'modelState', 'ready');
  assert.equal(await again.inputValue('#model-select'), 'multi30k-de-en-cased');
  await again.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('translation as you type: a pause translates, a newer text cancels the older, a stale result never shows', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  // The worker's answer for the dog sentence is held back 1.5 s: it arrives after the cat sentence's.
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    const slow = new Set();
    Worker.prototype.postMessage = function (message, ...rest) {
      if (typeof message?.text === 'string' && message.text.includes('dog')) slow.add(message.id);
      return post.call(this, message, ...rest);
    };
    const onmessage = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
    Object.defineProperty(Worker.prototype, 'onmessage', {
      get() { return onmessage.get.call(this); },
      set(handler) {
        onmessage.set.call(this, (event) => {
          if (slow.has(event.data?.id)) {
            window.heldBack = (window.heldBack ?? 0) + 1;
            setTimeout(() => { handler.call(this, event); window.delivered = (window.delivered ?? 0) + 1; }, 1500);
          } else handler.call(this, event);
        });
      },
    });
  });
  await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
  await waitForState(page, 'modelState', 'ready');
  await page.check('#live-translate');
  await page.fill('#source-text', '');
  // Typed, key by key: one translation after the last key, of the whole text.
  const typed = 'A man is riding a bicycle on a dirt road.';
  await page.locator('#source-text').pressSequentially(typed, { delay: 30 });
  const lastKey = Date.now();
  await page.waitForFunction((t) => document.body.dataset.shownText === t && document.body.dataset.translateState === 'done', typed);
  const ms = Date.now() - lastKey;
  console.log(`translate as you type: the translation of a ${typed.split(' ').length}-word sentence shows ${ms} ms after the last key (180 ms of it the pause)`);
  assert.match(await page.textContent('#output-text'), /Fahrrad/);

  await page.fill('#source-text', 'A dog runs on the beach.');
  // The dog sentence's translation is asked for (and held back) before the text changes again.
  await page.waitForFunction(() => document.body.dataset.translateState === 'busy');
  await page.fill('#source-text', 'A cat sleeps on the sofa.');
  await page.waitForFunction(() => document.body.dataset.shownText === 'A cat sleeps on the sofa.' && document.body.dataset.translateState === 'done');
  const cat = await page.textContent('#output-text');
  assert.match(cat, /Katze/);
  // The held-back answer arrives, and changes nothing.
  await page.waitForFunction(() => window.heldBack >= 1, null, { timeout: 10000 });
  await page.waitForTimeout(1800);
  assert.equal(await page.textContent('#output-text'), cat);
  assert.equal(await page.evaluate(() => document.body.dataset.shownText), 'A cat sleeps on the sofa.');
  // The box off: typing translates nothing.
  await page.uncheck('#live-translate');
  await page.fill('#source-text', 'Two dogs play in the snow.');
  await page.waitForTimeout(600);
  assert.equal(await page.textContent('#output-text'), cat);
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a wide screen the source and the translation sit side by side; on a phone one above the other', async () => {
  for (const [width, sideBySide] of [[1280, true], [390, false]]) {
    const { page, errors } = await openDemo({ width, height: 900 });
    await translateOnPage(page, 'A dog runs on the beach.');
    const [text, out, form] = await page.evaluate(() => ['source-text', 'output-text', 'translate-form']
      .map((id) => document.getElementById(id).getBoundingClientRect()).map((r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom })));
    if (sideBySide) {
      assert.ok(out.left >= text.right, `output at ${out.left}, text box ends at ${text.right}`);
      assert.ok(Math.abs(out.top - form.top) < 40, `output top ${out.top}, form top ${form.top}`);
    } else {
      assert.ok(out.top >= text.bottom, `output top ${out.top}, text box bottom ${text.bottom}`);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${width} px: ${overflow} px too wide`);
    await shot(page, `side-by-side-${width}`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
