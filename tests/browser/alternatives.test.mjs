// A picked output word lists the words the model weighed there, with their probabilities, and choosing one
// translates the sentence again from it: the words before it and the chosen word stay, the rest is the model's.
// With the mouse on a desktop (a sentence of a two-sentence text, the other sentence untouched) and with the
// keyboard on a phone's width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const { server, browser, artifacts } = await startSession(root);
const shot = (page, name) => page.screenshot({ path: path.join(artifacts, `alternatives-${name}.png`) });

const RAW = /@@|\u2581|<0x[0-9A-F]{2}>|&(?:amp|#124|lt|gt|apos|quot|#91|#93);/;

async function openDemo(viewport, touch = false) {
  const page = await browser.newPage({ viewport, hasTouch: touch, isMobile: touch });
  const errors = watchErrors(page);
  await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
  await waitForState(page, 'modelState', 'ready');
  return { page, errors };
}

const chips = (page) => page.locator('#target-words .word').allTextContents();

// The list as shown: each alternative's token, label, probability and state.
const listed = (page) => page.$$eval('#alternatives-list button', (buttons) => buttons.map((b) => ({
  token: b.dataset.token,
  label: b.firstElementChild.textContent,
  // '<0.1%': a probability too small to show in tenths, not none.
  percent: b.lastElementChild.textContent === '<0.1%' ? 0.05 : Number(b.lastElementChild.textContent.replace('%', '')),
  current: b.getAttribute('aria-current') === 'true',
  disabled: b.disabled,
})));

// An alternative that is a whole word (no piece that goes on) other than the word shown: its index in the list.
const wholeWord = (list) => list.findIndex((a) => !a.disabled && !a.token.endsWith('@@') && !a.current);

test('click a word: its five likeliest words with probabilities; choosing one translates again and keeps it', async () => {
  const { page, errors } = await openDemo({ width: 1280, height: 900 });
  await translateOnPage(page, 'A dog runs on the beach. Two young girls are playing in the park.', 1);
  const spans = () => page.locator('#output-text .sentence').allTextContents();
  const [firstSentence] = await spans();
  await page.selectOption('#sentence-select', '1');
  const before = await chips(page);
  assert.ok(before.length >= 4, before.join(' '));
  assert.equal(await page.isVisible('#alternatives'), false, 'no list before a word is picked');

  // The third word of the second sentence.
  await page.click('#target-words .word >> nth=2');
  assert.ok(await page.isVisible('#alternatives'));
  const list = await listed(page);
  assert.equal(list.length, 5);
  for (const a of list) {
    assert.ok(a.percent > 0 && a.percent <= 100, `${a.label}: ${a.percent}%`);
    assert.doesNotMatch(a.label, RAW);
  }
  for (let j = 1; j < list.length; j++) assert.ok(list[j].percent <= list[j - 1].percent, 'most probable first');
  assert.ok(list.reduce((s, a) => s + a.percent, 0) <= 100.5, 'the five together are no more than the whole');
  // Greedy search wrote the likeliest one: it is the word shown, marked as such.
  assert.ok(list[0].current, 'the word the translation has comes first');
  assert.equal(list.filter((a) => a.current).length, 1);
  assert.match(await page.textContent('#alternatives-title'), new RegExp(`^“${before[2].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}”: \\d`));
  await shot(page, 'desktop-list');

  const j = wholeWord(list);
  assert.ok(j > 0, `no whole word among ${list.map((a) => a.token).join(' ')}`);
  const chosen = list[j].label;
  await page.evaluate(() => { document.body.dataset.translateState = 'idle'; });
  await page.click(`#alternatives-list button >> nth=${j}`);
  await waitForState(page, 'translateState', 'done');
  const after = await chips(page);
  assert.deepEqual(after.slice(0, 3), [...before.slice(0, 2), chosen], `${before.join(' ')} -> ${after.join(' ')}`);
  assert.equal(await page.inputValue('#sentence-select'), '1', 'the same sentence stays shown');
  const [first, second] = await spans();
  assert.equal(first, firstSentence, 'the other sentence is as it was');
  assert.ok(second.includes(chosen), `${second} lacks ${chosen}`);
  assert.ok((await page.textContent('#output-text')).includes(chosen));
  assert.equal(await page.isVisible('#alternatives'), false, 'the list closes with the new translation');
  // The new translation's words have their own alternatives.
  await page.click('#target-words .word >> nth=2');
  const again = await listed(page);
  assert.equal(again.find((a) => a.current)?.label, chosen);
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone, by keyboard: Enter picks a word, ↓ reaches its list, Enter re-translates, Escape closes', async () => {
  const { page, errors } = await openDemo({ width: 390, height: 844 }, true);
  await translateOnPage(page, 'A man in a red jacket rides a bicycle down the street.', 2);
  const before = await chips(page);
  await page.focus('#target-words .word >> nth=1');
  await page.keyboard.press('Enter');
  assert.ok(await page.isVisible('#alternatives'));
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-pressed')), 'true');
  // The list fits the phone's width.
  const fit = await page.evaluate(() => ({
    box: document.getElementById('alternatives').getBoundingClientRect().right,
    page: document.documentElement.scrollWidth,
  }));
  assert.ok(fit.box <= 390 && fit.page <= 390, `the list ends at ${fit.box} px, the page is ${fit.page} px wide`);
  await shot(page, 'phone-list');

  // Escape from inside the list closes it and gives the focus back to the word.
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'alternative');
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('#alternatives'), false);
  assert.equal(await page.evaluate(() => document.activeElement.textContent), before[1]);

  // Again, down to a whole word other than the one shown, and Enter.
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowDown');
  const list = await listed(page);
  const target = list[wholeWord(list)];
  assert.ok(target, `no whole word among ${list.map((a) => a.token).join(' ')}`);
  for (let k = 0; k < list.length && await page.evaluate(() => document.activeElement.dataset.token) !== target.token; k++) {
    await page.keyboard.press('ArrowDown');
  }
  assert.equal(await page.evaluate(() => document.activeElement.dataset.token), target.token);
  await page.evaluate(() => { document.body.dataset.translateState = 'idle'; });
  await page.keyboard.press('Enter');
  await waitForState(page, 'translateState', 'done');
  const after = await chips(page);
  assert.deepEqual(after.slice(0, 2), [before[0], target.label], `${before.join(' ')} -> ${after.join(' ')}`);
  // The focus is on the chosen word in the new translation.
  assert.equal(await page.evaluate(() => document.activeElement.textContent), target.label);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390));
  await shot(page, 'phone-again');
  assert.deepEqual(errors, []);
  await page.close();
});
