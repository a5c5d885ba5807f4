// The demo page as the browser tests drive it: its address, waiting for a state the page announces on <body>, and
// translating a text the way a user does (type it, set the beam, press Translate, wait for the page to say done).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { serve } from './server.mjs';
import { launch } from './browser.mjs';

// A test file's server over `root` and browser, closed when the file's tests end, and the screenshots folder.
export async function startSession(root) {
  const artifacts = path.join(root, 'test-artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  const server = await serve(root);
  const browser = await launch();
  after(async () => { await browser.close(); await server.close(); });
  return { server, browser, artifacts };
}

// ?sw=0: no service worker, so every test sees the files of this checkout.
export const demoUrl = (server, query = '') => `${server.url}/web/index.html?sw=0${query}`;

export const waitForState = (page, key, value, timeout = 120000) =>
  page.waitForFunction(([k, v]) => document.body.dataset[k] === v, [key, value], { timeout });

// The output text as shown (untrimmed).
export async function translateOnPage(page, text, beam = 2) {
  await page.fill('#source-text', text);
  await page.fill('#beam-size', String(beam));
  await page.evaluate(() => { document.body.dataset.translateState = 'idle'; });
  await page.click('#translate-button');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.translateState), null, { timeout: 120000 });
  assert.equal(await page.getAttribute('body', 'data-translate-state'), 'done');
  return page.textContent('#output-text');
}
