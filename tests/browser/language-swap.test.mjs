// The demo's language swap (⇄ between the source and target language): it loads the model that translates the
// other way (one of the same family first: cased for cased), puts the translation into the text box and translates
// it back; the address follows; nothing of the old model's result stays on screen. Without a reverse model in the
// list the button is disabled and says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

const shippedList = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models;
const shipped = (id) => {
  const entry = shippedList.find((m) => m.id === id);
  assert.ok(entry, `models.json lists no ${id}`);
  requireFile(path.join(root, 'web', 'models', entry.file));
  return entry;
};
const { server, browser, artifacts } = await startSession(root);

const demo = (query) => demoUrl(server, query);
const state = waitForState;
const swapButton = (page) => page.evaluate(() => {
  const b = document.getElementById('swap-languages');
  return { disabled: b.disabled, title: b.title, label: b.getAttribute('aria-label'), text: b.textContent.trim() };
});
const direction = (page) => page.evaluate(() => ['source-language', 'target-language']
  .map((id) => document.getElementById(id).selectedOptions[0]?.textContent));

const translate = async (page, text, beam) => (await translateOnPage(page, text, beam)).trim();

// After a swap: the reverse model is loaded and has translated what the box holds.
async function swappedAndTranslated(page) {
  await state(page, 'modelState', 'ready');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.translateState), null, { timeout: 120000 });
  assert.equal(await page.getAttribute('body', 'data-translate-state'), 'done', await page.textContent('#translate-error'));
  return (await page.textContent('#output-text')).trim();
}

// A models.json served by the test under /web/models/ (so that its relative file names resolve to the shipped files).
async function pageWithList(name, models) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = watchErrors(page);
  await page.route((url) => url.pathname === `/web/models/${name}`, (route) => route.fulfill({ json: { models } }));
  return { page, errors, url: (query = '') => demo(`&models=/web/models/${name}${query}`) };
}

test('swap: en→de cased, then ⇄ (keyboard) loads de→en cased, translates the German back, and the link follows', async () => {
  shipped('multi30k-en-de-cased');
  shipped('multi30k-de-en-cased');
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demo('&model=multi30k-en-de-cased'));
  await state(page, 'modelState', 'ready');
  assert.deepEqual(await direction(page), ['English', 'German']);
  assert.equal(await page.textContent('#source-text-lang'), 'English');
  const before = await swapButton(page);
  assert.equal(before.disabled, false);
  assert.equal(before.text, '⇄');
  assert.match(before.label, /^Swap languages: translate from German to English$/);

  const english = 'Two young men are playing soccer in a park.';
  const german = await translate(page, english);
  assert.ok(german.length > 0 && german !== english, german);
  assert.equal(new URL(page.url()).searchParams.get('model'), 'multi30k-en-de-cased');

  await page.focus('#swap-languages');
  await page.keyboard.press('Enter');
  // At once: the German model's result and maps are gone, and the reverse model is chosen.
  assert.equal(await page.isVisible('#output'), false, 'the en→de output stays while de→en loads');
  assert.equal(await page.isVisible('#attention-panel'), false, 'the en→de maps stay while de→en loads');
  assert.equal(await page.inputValue('#model-select'), 'multi30k-de-en-cased');
  assert.equal(await page.inputValue('#source-text'), german);
  const back = await swappedAndTranslated(page);
  assert.ok(back.length > 0, 'no English translation');
  assert.notEqual(back, german);
  assert.deepEqual(await direction(page), ['German', 'English']);
  assert.equal(await page.textContent('#source-text-lang'), 'German');
  assert.equal(await page.getAttribute('#output-text', 'lang'), 'en');
  assert.equal(await page.getAttribute('#source-text', 'lang'), 'de');
  // The maps are of this sentence: the source labels are the German input's tokens.
  assert.equal(await page.isVisible('#attention-panel'), true);
  const sourceWords = (await page.locator('#source-words .word').allTextContents()).join(' ');
  assert.equal(sourceWords.replace(/\s+/g, ''), german.replace(/\s+/g, ''));
  const link = new URL(page.url());
  assert.equal(link.searchParams.get('model'), 'multi30k-de-en-cased');
  assert.equal(link.searchParams.get('text'), german);
  assert.equal(await page.getAttribute('#share-link', 'href'), page.url());
  // The same engine on the same text and beam: pressing Translate again gives the same English.
  assert.equal(await translate(page, german), back);
  await page.screenshot({ path: path.join(artifacts, 'web-language-swap.png') });

  // And back again, by a click: en→de cased translates the English.
  assert.equal((await swapButton(page)).label, 'Swap languages: translate from English to German');
  await page.click('#swap-languages');
  assert.equal(await page.inputValue('#model-select'), 'multi30k-en-de-cased');
  assert.equal(await page.inputValue('#source-text'), back);
  assert.ok((await swappedAndTranslated(page)).length > 0);
  assert.equal(new URL(page.url()).searchParams.get('model'), 'multi30k-en-de-cased');
  assert.deepEqual(errors, []);
  await page.close();
});

test('swap prefers a reverse model of the same family; without a translation the text stays', async () => {
  const enDe = shipped('multi30k-en-de-cased');
  const deEn = shipped('multi30k-de-en-cased');
  // Two German → English entries: a lowercase one listed first, and a cased one that gives only its pair.
  const models = [
    { ...enDe, id: 'en-de-cased' },
    { ...deEn, id: 'de-en-lower', name: 'Transformer 4+4, d 128, lowercase' },
    { id: 'de-en-cased-big', pair: 'German → English', name: 'Transformer 6+6, d 512, cased', file: deEn.file, size: deEn.size },
  ];
  const { page, errors, url } = await pageWithList('swap-family.json', models);
  await page.goto(url('&model=en-de-cased'));
  await state(page, 'modelState', 'ready');
  assert.equal((await swapButton(page)).disabled, false);
  assert.match((await swapButton(page)).title, /Transformer 6\+6, d 512, cased/);
  const text = 'Ein Hund rennt über eine Wiese.';
  await page.fill('#source-text', text);
  await page.click('#swap-languages');
  assert.equal(await page.inputValue('#model-select'), 'de-en-cased-big');
  assert.equal(await page.inputValue('#source-text'), text);
  assert.ok((await swappedAndTranslated(page)).length > 0);
  assert.deepEqual(await direction(page), ['German', 'English']);
  assert.equal(new URL(page.url()).searchParams.get('model'), 'de-en-cased-big');

  // From the lowercase one there is no lowercase way back: the only English → German model is taken.
  await page.selectOption('#model-select', 'de-en-lower');
  await state(page, 'modelState', 'ready');
  await page.click('#swap-languages');
  assert.equal(await page.inputValue('#model-select'), 'en-de-cased');
  await swappedAndTranslated(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('without a reverse model in the list the swap button is disabled and says why', async () => {
  const models = [shipped('multi30k-en-de-cased'), shipped('multi30k-en-fr-cased')];
  const { page, errors, url } = await pageWithList('swap-none.json', models);
  await page.goto(url());
  await state(page, 'modelState', 'ready');
  let b = await swapButton(page);
  assert.equal(b.disabled, true);
  assert.equal(b.title, 'No German → English model is listed');
  assert.match(b.label, /No German → English model is listed/);
  await translate(page, 'A dog runs on the beach.');
  // A disabled button takes no click: the model and the result stay.
  await page.locator('#swap-languages').dispatchEvent('click');
  assert.equal(await page.inputValue('#model-select'), 'multi30k-en-de-cased');
  assert.equal(await page.isVisible('#output'), true);

  await page.selectOption('#model-select', 'multi30k-en-fr-cased');
  await state(page, 'modelState', 'ready');
  b = await swapButton(page);
  assert.equal(b.disabled, true);
  assert.equal(b.title, 'No French → English model is listed');
  assert.deepEqual(await direction(page), ['English', 'French']);
  await page.locator('.lang-row').screenshot({ path: path.join(artifacts, 'web-swap-disabled.png') });
  assert.deepEqual(errors, []);
  await page.close();
});
