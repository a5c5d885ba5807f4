// npm run bench:wasm — ms per sentence of the WebAssembly translator in Node and in headless Chromium, beside
// native `attend translate` on one thread, on the same sentences and model; load time of module + model; the
// gzipped size of .wasm + .js; a training step of the seeds' presets, translators and character language models
// (bench/wasm_lm_bench.mjs), wasm beside native. Prints `name value unit` lines.
//   node bench/wasm_bench.mjs [--model FILE] [--sentences N] [--beam B] [--rounds R] [--native BIN (default
//                             build/bin/attend, or $ATTEND_NATIVE_BIN)]
//
// The machines this runs on are shared and their speed drifts by tens of percent within a minute, so the
// contestants take turns: each round times native, Node SIMD, Node without SIMD and Chromium once each, on the
// same sentences. Each is reported as its best round and its median round; the ratios to native are taken
// between the same statistics.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { nativeBin, root } from '../tests/wasm/lib/paths.mjs';
import { smallModel } from '../tests/wasm/lib/small_model.mjs';
import { serve } from '../tests/browser/lib/server.mjs';
import { launch } from '../tests/browser/lib/browser.mjs';
import { Attend } from '../wasm/attend.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const shipped = path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors');
const modelFile = path.resolve(arg('--model', fs.existsSync(shipped) ? shipped : smallModel('f32')));
const count = Number(arg('--sentences', 100));
const beam = Number(arg('--beam', 1));
const rounds = Number(arg('--rounds', 5));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const sentences = zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'multi30k', 'test_2016_flickr.en.gz')))
  .toString('utf8').split('\n').slice(0, count);
const line = (name, value, unit, extra = '') => console.log(`${name} ${value} ${unit}${extra ? ` (${extra})` : ''}`);
console.log(`# model ${path.relative(root, modelFile)}, ${sentences.length} test2016 sentences, beam ${beam}, ` +
  `${rounds} rounds taken in turns`);

// Native, one thread: `attend bench translate` times translate() alone (same sentences, warmed up), so the
// ratios compare the same work.
const native = arg('--native', process.env.ATTEND_NATIVE_BIN || nativeBin('attend'));
const env = { ...process.env, OMP_NUM_THREADS: '1', OMP_WAIT_POLICY: 'passive' };
function nativeRound() {
  const out = execFileSync(native, ['bench', 'translate', '--model', modelFile, '--sentences', String(sentences.length),
    '--beam', String(beam), '--threads', '1', '--no-torch'], { encoding: 'utf8', env });
  const name = `translate_${beam === 1 ? 'greedy' : `beam${beam}`}_ms_per_sentence`;
  const m = out.match(new RegExp(`^${name} ([0-9.]+)`, 'm'));
  if (!m) throw new Error(`attend bench translate printed no ${name}:\n${out}`);
  return Number(m[1]);
}

// Node: both builds, loaded once and warmed up (the engine tiers hot functions up after their first calls).
const bytes = new Uint8Array(fs.readFileSync(modelFile));
const node = {};
for (const simd of [true, false]) {
  const l0 = performance.now();
  const t = await Attend.load(bytes, { simd });
  line(`node_${simd ? 'simd' : 'nosimd'}_load_ms`, (performance.now() - l0).toFixed(0), 'ms', 'module + model');
  for (const s of sentences.slice(0, 5)) await t.translate(s, { beam, attention: false });
  node[simd ? 'simd' : 'nosimd'] = t;
}
async function nodeRound(t) {
  const s0 = performance.now();
  for (const s of sentences) await t.translate(s, { beam, attention: false });
  return (performance.now() - s0) / sentences.length;
}

// Chromium: the worker wrapper (what pages use), loaded once in one page.
const server = await serve(root);
const browser = await launch();
const results = { native: [], node_simd: [], node_nosimd: [], chromium_worker: [] };
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/tests/browser/pages/worker.html`);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'ready');
  const loaded = await page.evaluate(async ([url, first, b]) => {
    const { AttendWorker } = await import('/wasm/attend-client.js');
    const started = performance.now();
    window.benchTranslator = await AttendWorker.load(url);
    const loadedMs = performance.now() - started;
    const t0 = performance.now();
    await window.benchTranslator.translate(first, { beam: b, attention: false });
    return { loadedMs, firstMs: performance.now() - t0 };
  }, ['/' + path.relative(root, modelFile), sentences[0], beam]);
  line('chromium_load_ms', loaded.loadedMs.toFixed(0), 'ms', 'worker + module + model');
  line('chromium_first_translation_after_page_load_ms', (loaded.loadedMs + loaded.firstMs).toFixed(0), 'ms');
  await page.evaluate(async ([s, b]) => { for (const x of s) await window.benchTranslator.translate(x, { beam: b, attention: false }); },
    [sentences.slice(0, 5), beam]);
  const chromiumRound = () => page.evaluate(async ([s, b]) => {
    const t0 = performance.now();
    for (const x of s) await window.benchTranslator.translate(x, { beam: b, attention: false });
    return (performance.now() - t0) / s.length;
  }, [sentences, beam]);

  for (let r = 0; r < rounds; r++) {
    results.native.push(nativeRound());
    results.node_simd.push(await nodeRound(node.simd));
    results.node_nosimd.push(await nodeRound(node.nosimd));
    results.chromium_worker.push(await chromiumRound());
  }
  await page.evaluate(() => window.benchTranslator.dispose());
} finally {
  await browser.close();
  await server.close();
  node.simd.dispose();
  node.nosimd.dispose();
}

const best = (v) => Math.min(...v);
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
for (const [name, v] of Object.entries(results)) {
  const label = name === 'native' ? 'native_1thread' : name;
  const versus = (stat) => name === 'native' ? '' : `, ${(stat(v) / stat(results.native)).toFixed(2)}x native`;
  line(`${label}_ms_per_sentence_best`, best(v).toFixed(2), 'ms', `best of ${v.length} rounds${versus(best)}`);
  line(`${label}_ms_per_sentence_median`, median(v).toFixed(2), 'ms', `median round${versus(median)}`);
}
console.log(`# rounds (ms per sentence): ${Object.entries(results).map(([k, v]) => `${k} ${v.map((x) => x.toFixed(2)).join(' ')}`).join('; ')}`);

// The whole native process, for scale: start, model load and translation.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-bench-'));
fs.writeFileSync(path.join(tmp, 'in.txt'), sentences.join('\n') + '\n');
const t0 = performance.now();
execFileSync(native, ['translate', '-m', modelFile, '-i', path.join(tmp, 'in.txt'), '-b', String(beam), '--threads', '1'],
  { stdio: 'pipe', env });
line('native_1thread_process_ms_per_sentence', ((performance.now() - t0) / sentences.length).toFixed(2), 'ms',
  'attend translate: includes process start and model load');
fs.rmSync(tmp, { recursive: true, force: true });

for (const variant of ['simd', 'nosimd']) {
  const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(root, 'wasm', f)), { level: 9 }).length;
  const kb = (gz(`dist/attend-core-${variant}.wasm`) + gz(`dist/attend-core-${variant}.mjs`) + gz('attend.js')) / 1024;
  line(`module_${variant}_gzipped_kb`, kb.toFixed(0), 'KB', '.wasm + glue + attend.js');
}

// Training: one step of the seeds' presets on the first 800 pairs of d2l's fra.txt, native `attend train` on one
// thread against AttendTrainer in Node (SIMD), in turns. A native step is the difference between a run of 10 + S
// steps and one of 10 (process start, data and the first steps cancel); the wasm one, S steps of a trainer that
// has already taken 10.
const { AttendTrainer } = await import('../wasm/attend-train.js');
const pairs = zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'tatoeba', 'd2l', 'fra.txt.gz'))).toString('utf8')
  .split('\n').slice(0, 800).join('\n');
const trainSteps = 100;
for (const preset of ['bahdanau-d2l', 'transformer-d2l']) {
  const nativeRun = (steps) => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-bench-train-'));
    const t = performance.now();
    execFileSync(native, ['train', '--preset', preset, '--max-steps', String(steps), '--threads', '1', '--data', dataDir,
      '--out', out], { stdio: 'pipe', env });
    fs.rmSync(out, { recursive: true, force: true });
    return performance.now() - t;
  };
  const trainer = await AttendTrainer.create(preset, pairs, { simd: true });
  trainer.step(10);
  const times = { native: [], node_simd: [] };
  for (let r = 0; r < rounds; r++) {
    times.native.push((nativeRun(10 + trainSteps) - nativeRun(10)) / trainSteps);
    const t = performance.now();
    trainer.step(trainSteps);
    times.node_simd.push((performance.now() - t) / trainSteps);
  }
  trainer.dispose();
  line(`train_${preset}_native_1thread_ms_per_step_median`, median(times.native).toFixed(2), 'ms');
  line(`train_${preset}_node_simd_ms_per_step_median`, median(times.node_simd).toFixed(2), 'ms',
    `${(median(times.node_simd) / median(times.native)).toFixed(2)}x native`);
}

// The character language models' training step, wasm beside native (bench/wasm_lm_bench.mjs).
await import('./wasm_lm_bench.mjs');
