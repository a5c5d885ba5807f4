// web/embed-example.html, a third-party-style page that embeds the module in a few lines: it loads the shipped
// model, translates its sentence, and prints the same text as the demo page's translator (same model, beam 5).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';

requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const artifacts = path.join(root, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const server = await serve(root);
const browser = await launch();
after(async () => { await browser.close(); await server.close(); });

test('the embed example prints the translation the demo page gives', async () => {
  const page = await browser.newPage({ viewport: { width: 800, height: 400 } });
  const errors = watchErrors(page);
  await page.goto(`${server.url}/web/embed-example.html`);
  await page.waitForFunction(() => document.body.dataset.done === 'true', null, { timeout: 120000 });
  const source = (await page.textContent('#source')).trim();
  const embedded = (await page.textContent('#translation')).trim();
  assert.doesNotMatch(embedded, /could not translate|translating…/);
  assert.ok(embedded.length > 3, `embedded translation: "${embedded}"`);
  await page.screenshot({ path: path.join(artifacts, 'embed-example.png') });
  // The page is short: the module is used in about ten lines of script.
  const script = await page.locator('script[type="module"]').textContent();
  const lines = script.split('\n').filter((l) => l.trim()).length;
  assert.ok(lines <= 12, `the embedding script has ${lines} lines`);
  assert.deepEqual(errors, []);

  const demo = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const demoErrors = watchErrors(demo);
  await demo.goto(`${server.url}/web/index.html?sw=0`);
  await demo.waitForFunction(() => document.body.dataset.modelState === 'ready', null, { timeout: 120000 });
  await demo.fill('#source-text', source);
  await demo.fill('#beam-size', '5');
  await demo.click('#translate-button');
  await demo.waitForFunction(() => document.body.dataset.translateState === 'done', null, { timeout: 120000 });
  assert.equal(embedded, (await demo.textContent('#output-text')).trim());
  assert.deepEqual(demoErrors, []);
  await page.close();
  await demo.close();
});
