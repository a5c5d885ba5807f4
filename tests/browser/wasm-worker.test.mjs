// The WebAssembly translator in headless Chromium, inside a Web Worker: the same tokens as native
// `attend translate`, progress reported while the model downloads, errors as Error messages, no console errors.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { nativeBin, requireFile, root } from '../wasm/lib/paths.mjs';
import { smallModel } from '../wasm/lib/small_model.mjs';
import { serve } from './lib/server.mjs';
import { launch, watchErrors } from './lib/browser.mjs';

const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const sentences = zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'multi30k', 'test_2016_flickr.en.gz')))
  .toString('utf8').split('\n').slice(0, 20);
const modelFile = smallModel('f32');

const server = await serve(root);
const browser = await launch();
after(async () => { await browser.close(); await server.close(); });

test('a Web Worker translates test2016 sentences exactly as native attend translate', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-browser-'));
  fs.writeFileSync(path.join(tmp, 'in.txt'), sentences.join('\n') + '\n');
  const mapsFile = path.join(tmp, 'maps.json');
  execFileSync(requireFile(nativeBin('attend')), ['translate', '-m', modelFile, '-i', path.join(tmp, 'in.txt'), '-b', '2',
    '--attention', mapsFile], { stdio: 'pipe' });
  const native = JSON.parse(fs.readFileSync(mapsFile, 'utf8')).sentences;

  const page = await browser.newPage();
  const errors = watchErrors(page);
  await page.goto(`${server.url}/tests/browser/pages/worker.html`);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'ready');
  const modelUrl = '/' + path.relative(root, modelFile);
  const out = await page.evaluate(([url, s]) => window.runTranslations(url, s, { beam: 2, attention: true }),
    [modelUrl, sentences]);
  for (let i = 0; i < sentences.length; i++) {
    assert.deepEqual(out.results[i].targetTokens, native[i].target_tokens, `sentence ${i + 1}`);
    assert.equal(out.results[i].text, native[i].text);
    const worst = Math.max(...native[i].cross.data.map((v, j) => Math.abs(v - out.results[i].cross[j])));
    assert.ok(worst <= 1e-5, `sentence ${i + 1}: cross attention differs by ${worst}`);
  }
  assert.ok(out.progressCalls >= 1, 'onProgress was never called');
  assert.equal(out.info.target_language, 'de');
  assert.match(out.error, /empty/);
  const mean = out.times.reduce((a, b) => a + b, 0) / out.times.length;
  console.log(`# chromium worker: model loaded in ${out.loadedMs.toFixed(0)} ms, ${mean.toFixed(1)} ms per sentence (beam 2, small model)`);
  assert.match(await page.evaluate(() => window.loadBroken()), /header|bytes|truncated/i);
  assert.deepEqual(errors, []);
  await page.close();
});
