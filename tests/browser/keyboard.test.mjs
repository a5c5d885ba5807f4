// The demo by keyboard alone, with a shipped model: Tab reaches the text box, Enter translates, Tab and the arrow
// keys change the layer, the head and the view, and reach the output words and every picture, where the arrow
// keys give a readout. No pointer event reaches the page, so nothing here works only because of a click.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const { server, browser, artifacts } = await startSession(root);

const active = (page) => page.evaluate(() => {
  const e = document.activeElement;
  return e?.id || (e?.classList.contains('word') ? `word:${e.textContent}` : e?.tagName.toLowerCase() ?? '');
});

// Presses Tab (or Shift+Tab) until the focused element matches `selector`; fails when it never does, so that an
// element the keyboard cannot reach fails the test.
async function tabTo(page, selector, { back = false, most = 80 } = {}) {
  for (let i = 0; i < most; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  assert.fail(`${most} presses of ${back ? 'Shift+Tab' : 'Tab'} did not reach ${selector} (focus on ${await active(page)})`);
}

const dataset = (page, id) => page.evaluate((i) => ({ ...document.getElementById(i).dataset }), id);

test('keyboard only: type, translate, change layer, head and view, and read out a selection', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    window.pointerEvents = 0;
    for (const type of ['pointerdown', 'mousedown', 'click']) {
      // A click that a key press makes (Enter on a button) has detail 0; a pointer's has 1 or more.
      window.addEventListener(type, (e) => { if (type !== 'click' || e.detail > 0) window.pointerEvents++; }, true);
    }
  });
  await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
  await waitForState(page, 'modelState', 'ready');

  // The text box, a new sentence, and Enter.
  await tabTo(page, '#source-text');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('A little girl is climbing a wooden staircase.');
  await page.keyboard.press('Enter');
  await waitForState(page, 'translateState', 'done');
  assert.ok((await page.textContent('#output-text')).trim().length > 0);
  const layers = await page.locator('#layer-select option').count();
  assert.ok(layers >= 2);
  let map = await dataset(page, 'heatmap');
  assert.deepEqual([map.layer, map.head], [String(layers - 1), 'mean']);

  // An output word by Tab; Enter keeps it and marks its source words.
  await tabTo(page, '#target-words .word');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-pressed')), 'true');
  assert.ok(await page.locator('#source-words .word.strong').count() >= 1, 'no source word was marked');

  // Layer and head: the arrow keys on the focused menus.
  await tabTo(page, '#layer-select');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction((l) => document.getElementById('heatmap').dataset.layer === String(l), layers - 2);
  const heads = (await page.locator('#head-select option').count()) - 1;   // and the mean, last
  await tabTo(page, '#head-select');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction((h) => document.getElementById('heatmap').dataset.head === String(h), heads - 1);
  map = await dataset(page, 'heatmap');
  assert.deepEqual([map.layer, map.head], [String(layers - 2), String(heads - 1)]);

  // The heatmap: Tab to it; the first arrow key picks the first cell, the next ones move the pick.
  await tabTo(page, '#heatmap');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  const readout = await page.textContent('#heatmap-readout');
  assert.match(readout, /^\S+ → \S+: \d\.\d{3}$/);
  const rowLabels = JSON.parse(map.rowLabels);
  const colLabels = JSON.parse(map.colLabels);
  assert.ok(readout.startsWith(`${rowLabels[1]} → ${colLabels[0]}: `), readout);

  // The views: back to the tab list, the arrow keys move along it (focus follows the selected tab).
  await tabTo(page, '[role="tab"][aria-selected="true"]', { back: true });
  assert.equal(await active(page), 'tab-heatmap');
  await page.keyboard.press('ArrowRight');
  assert.equal(await active(page), 'tab-grid');
  assert.equal(await page.isVisible('#view-grid'), true);
  await page.keyboard.press('ArrowRight');
  assert.equal(await active(page), 'tab-alignment');
  await tabTo(page, '#alignment');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.textContent('#alignment-readout'), new RegExp(`^${rowLabels[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} → `));

  await tabTo(page, '[role="tab"][aria-selected="true"]', { back: true });
  await page.keyboard.press('End');
  assert.equal(await active(page), 'tab-neurons');
  assert.equal(await page.isVisible('#view-neurons'), true);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await active(page), 'tab-heads');
  assert.equal(await page.isVisible('#view-heads'), true);
  // The threshold slider moves by arrow keys; the head view then draws fewer lines.
  const lines = Number((await dataset(page, 'headview')).lines);
  await tabTo(page, '#head-threshold');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await page.textContent('#head-threshold-value'), '0.30');
  assert.ok(Number((await dataset(page, 'headview')).lines) < lines, 'a higher threshold drew as many lines');
  await tabTo(page, '#headview');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.textContent('#headview-readout'), / → head 1: /);
  await page.screenshot({ path: path.join(artifacts, 'web-keyboard-head-view.png') });

  // The pick and the grid panel's Enter: a panel opens in the heatmap, by keyboard too.
  await tabTo(page, '[role="tab"][aria-selected="true"]', { back: true });
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await tabTo(page, '#head-grid .panel-button');
  await page.keyboard.press('Enter');
  assert.equal(await active(page), 'tab-heatmap');
  map = await dataset(page, 'heatmap');
  assert.deepEqual([map.layer, map.head], ['0', '0']);

  assert.equal(await page.evaluate(() => window.pointerEvents), 0, 'a pointer event reached the page');
  assert.deepEqual(errors, []);
  await page.close();
});
