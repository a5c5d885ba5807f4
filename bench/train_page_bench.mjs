// The seeds' presets trained to the end in web/train.html (headless Chromium, the page's own Worker, SIMD), on the
// first 800 pairs of d2l's fra.txt (600 train, 200 validate: the page's defaults): seconds from Start to
// "finished", the four followed sentences' translations and the seeds' BLEU as the page shows them, beside the same
// steps in Node (AttendTrainer, no page, no probes) and native `attend train --threads 1` in the same run.
// The page trains twice: on one thread (?threads=1) and on the threads it takes by itself (the cores, at most 4:
// it is cross-origin isolated), and so does Node (threads 1 and --threads N, default 2), with the process's CPU
// time beside the wall time: on a machine shared with other work the wall time alone misleads.
// Prints `name value unit` lines.
//   node bench/train_page_bench.mjs [--presets bahdanau-d2l,transformer-d2l] [--native BIN] [--threads N]
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
const nodeThreads = Number(arg('--threads', '2'));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const pairs = zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'tatoeba', 'd2l', 'fra.txt.gz'))).toString('utf8')
  .split('\n').slice(0, 800).join('\n');
const line = (name, value, unit, extra = '') => console.log(`${name} ${value} ${unit}${extra ? ` (${extra})` : ''}`);

const server = await serve(root);
const browser = await launch();
const cpuSeconds = (u) => (u.user + u.system) / 1e6;
try {
  for (const preset of presets) {
    const page = {};
    for (const query of ['?threads=1', '']) {
      const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await p.goto(`${server.url}/web/train.html${query}`);
      await p.selectOption('#train-preset', preset);
      await p.fill('#train-pairs', pairs);
      const t0 = Date.now();
      await p.click('#train-start');
      await p.waitForFunction(() => document.body.dataset.state === 'finished', null, { timeout: 900000, polling: 250 });
      const seconds = (Date.now() - t0) / 1000;
      const { step, threads, validations } = await p.evaluate(() => ({ ...document.body.dataset }));
      const rows = await p.$$eval('#probe-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
      const ratio = page.one ? `; ${(page.one / seconds).toFixed(2)}x the page on one thread` : '';
      line(`page_${preset}_seconds_to_finish_threads_${threads}`, seconds.toFixed(1), 's',
        `${step} steps, probes and ${validations} validations included${ratio}`);
      for (const [source, output, , bleu] of rows) console.log(`#   ${source} => ${output}, bleu ${bleu}`);
      console.log(`#   ${await p.textContent('#probe-mean')}`);
      await p.close();
      page.steps = Number(step);
      if (threads === '1') page.one = seconds;
      page.last = seconds;
    }
    const steps = page.steps;

    // The same steps in Node and natively, for the ratios (no page, no probes, no validation).
    const node = {};
    for (const threads of [1, nodeThreads]) {
      const trainer = await AttendTrainer.create(preset, pairs, { simd: true, threads });
      const c0 = process.cpuUsage(), n0 = performance.now();
      trainer.step(steps);
      const wall = (performance.now() - n0) / 1000, cpu = cpuSeconds(process.cpuUsage(c0));
      trainer.dispose();
      node[threads] = wall;
      const extra = threads > 1 ? `${(node[1] / wall).toFixed(2)}x one thread` : `page/node ${(page.one / wall).toFixed(2)}`;
      line(`node_${preset}_ms_per_step_threads_${threads}`, (1000 * wall / steps).toFixed(2), 'ms',
        `${steps} steps in ${wall.toFixed(1)} s, CPU ${cpu.toFixed(1)} s; ${extra}`);
    }
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-bench-page-'));
    const env = { ...process.env, OMP_NUM_THREADS: '1', OMP_WAIT_POLICY: 'passive' };
    const c0 = performance.now();
    execFileSync(native, ['train', '--preset', preset, '--max-steps', String(steps), '--threads', '1', '--data', dataDir,
      '--out', out], { stdio: 'pipe', env });
    const nativeSeconds = (performance.now() - c0) / 1000;
    fs.rmSync(out, { recursive: true, force: true });
    line(`native_${preset}_seconds_for_the_same_steps`, nativeSeconds.toFixed(1), 's',
      `one thread, with its own validation; page (threaded)/native ${(page.last / nativeSeconds).toFixed(2)}`);
  }
} finally {
  await browser.close();
  await server.close();
}
