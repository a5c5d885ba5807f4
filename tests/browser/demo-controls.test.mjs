// The demo's beam box takes its range from the module (AttendTranslator.optionBounds(), through the worker), not
// from numbers of its own: once a model is ready the box's min and max are the core's, a beam above the maximum
// is invalid, and the maximum itself is translated with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { root } from '../wasm/lib/paths.mjs';
import { smallModel } from '../wasm/lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';
import { demoUrl, startSession, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

const { server, browser } = await startSession(root);

// The bounds as the module itself reports them here, in Node.
const translator = await Attend.load(new Uint8Array(fs.readFileSync(smallModel('f32'))));
const { beam } = translator.optionBounds();
translator.dispose();

test('the beam box\'s range is the module\'s: above it the box is invalid, at its maximum the page translates', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(demoUrl(server));
  await waitForState(page, 'modelState', 'ready');
  assert.equal(await page.getAttribute('#beam-size', 'min'), String(beam.min));
  assert.equal(await page.getAttribute('#beam-size', 'max'), String(beam.max));
  assert.ok(beam.max > 10, `the core allows beams up to ${beam.max}`);

  // Above the maximum the box is invalid (the form does not submit); at it, the page translates with it.
  await page.fill('#beam-size', String(beam.max + 1));
  assert.equal(await page.$eval('#beam-size', (box) => box.validity.rangeOverflow), true);
  await page.fill('#source-text', 'A dog runs.');
  await page.fill('#beam-size', String(beam.max));
  assert.equal(await page.$eval('#beam-size', (box) => box.validity.valid), true);
  await page.evaluate(() => { document.body.dataset.translateState = 'idle'; });
  await page.click('#translate-button');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.translateState), null, { timeout: 120000 });
  assert.equal(await page.getAttribute('body', 'data-translate-state'), 'done', await page.textContent('#translate-error'));
  assert.match(await page.textContent('#output-timing'), new RegExp(`beam ${beam.max}\\b`));
  assert.deepEqual(errors, []);
  await page.close();
});
