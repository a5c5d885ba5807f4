// The seeds' presets trained to the end in web/train.html (headless Chromium, the page's own Worker, SIMD), on the
// first 800 pairs of d2l's fra.txt (600 train, 200 validate: the page's defaults): seconds from Start to
// "finished", the four followed sentences' translations and the seeds' BLEU as the page shows them, beside the same
// steps in Node (AttendTrainer, no page, no probes) and native `attend train --threads 1` in the same run.
// Prints `name value unit` lines.
//   node bench/train_page_bench.mjs [--presets bahdanau-d2l,transformer-d2l] [--native BIN]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { nativeBin, root } from '../tests/wasm/lib/paths.mjs';
import { serve } from '../tests/browser/lib/server.mjs';
import { launch } from '../tests/browser/lib/browser.mjs';
import { AttendTrainer } from '../wasm/attend-train.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const presets = arg('--presets', 'bahdanau-d2l,transformer-d2l').split(',');
const native = arg('--native', process.env.ATTEND_NATIVE_BIN || nativeBin('attend'));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const pairs = zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'tatoeba', 'd2l', 'fra.txt.gz'))).toString('utf8')
  .split('\n').slice(0, 800).join('\n');
const line = (name, value, unit, extra = '') => console.log(`${name} ${value} ${unit}${extra ? ` (${extra})` : ''}`);

const server = await serve(root);
const browser = await launch();
try {
  for (const preset of presets) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/web/train.html`);
    await page.selectOption('#train-preset', preset);
    await page.fill('#train-pairs', pairs);
    const t0 = Date.now();
    await page.click('#train-start');
    await page.waitForFunction(() => document.body.dataset.state === 'finished', null, { timeout: 900000, polling: 250 });
    const seconds = (Date.now() - t0) / 1000;
    const steps = Number(await page.evaluate(() => document.body.dataset.step));
    const rows = await page.$$eval('#probe-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    line(`page_${preset}_seconds_to_finish`, seconds.toFixed(1), 's', `${steps} steps, probes and validation included`);
    for (const [source, output, , bleu] of rows) console.log(`#   ${source} => ${output}, bleu ${bleu}`);
    console.log(`#   ${await page.textContent('#probe-mean')}`);
    await page.close();

    // The same steps in Node and natively, for the ratios (no page, no probes, no validation).
    const trainer = await AttendTrainer.create(preset, pairs, { simd: true });
    const n0 = performance.now();
    trainer.step(steps);
    const nodeSeconds = (performance.now() - n0) / 1000;
    trainer.dispose();
    line(`node_${preset}_seconds_for_the_same_steps`, nodeSeconds.toFixed(1), 's', `page/node ${(seconds / nodeSeconds).toFixed(2)}`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-bench-page-'));
    const env = { ...process.env, OMP_NUM_THREADS: '1', OMP_WAIT_POLICY: 'passive' };
    const c0 = performance.now();
    execFileSync(native, ['train', '--preset', preset, '--max-steps', String(steps), '--threads', '1', '--data', dataDir,
      '--out', out], { stdio: 'pipe', env });
    const nativeSeconds = (performance.now() - c0) / 1000;
    fs.rmSync(out, { recursive: true, force: true });
    line(`native_${preset}_seconds_for_the_same_steps`, nativeSeconds.toFixed(1), 's',
      `one thread, with its own validation; page/native ${(seconds / nativeSeconds).toFixed(2)}`);
  }
} finally {
  await browser.close();
  await server.close();
}
