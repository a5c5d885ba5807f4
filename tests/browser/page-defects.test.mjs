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

async function openDemo(viewport, query = '&model=multi30k-en-de-cased') {
  const page = await browser.newPage({ viewport });
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
  const { page, errors } = await openDemo({ width: 390, height: 844 }, '&model=multi30k-en-de-cased');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.tap?.('#translate-button').catch(() => page.click('#translate-button'));
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
