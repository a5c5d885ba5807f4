// npm run bench:wasm — ms per sentence of the WebAssembly translator in Node and in headless Chromium, beside
// native `attend translate` on one thread, on the same sentences and model; load time of module + model; the
// gzipped size of .wasm + .js. Prints `name value unit` lines.
//   node bench/wasm_bench.mjs [--model FILE] [--sentences N] [--beam B] [--native BIN (default build/bin/attend,
//                             or $ATTEND_NATIVE_BIN)]
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
const shipped = path.join(root, 'web', 'models', 'multi30k-en-de.safetensors');
const modelFile = path.resolve(arg('--model', fs.existsSync(shipped) ? shipped : smallModel('f32')));
const count = Number(arg('--sentences', 100));
const beam = Number(arg('--beam', 1));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const sentences = zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'multi30k', 'test_2016_flickr.en.gz')))
  .toString('utf8').split('\n').slice(0, count);
const line = (name, value, unit, extra = '') => console.log(`${name} ${value} ${unit}${extra ? ` (${extra})` : ''}`);
console.log(`# model ${path.relative(root, modelFile)}, ${sentences.length} test2016 sentences, beam ${beam}`);

// Native, one thread: `attend bench translate` times translate() alone (same sentences, warmed up), so the
// ratios compare the same work; the whole `attend translate` process (start, model load) is printed beside it.
const native = arg('--native', process.env.ATTEND_NATIVE_BIN || nativeBin('attend'));
const env = { ...process.env, OMP_NUM_THREADS: '1', OMP_WAIT_POLICY: 'passive' };
const benchOut = execFileSync(native, ['bench', 'translate', '--model', modelFile, '--sentences', String(sentences.length),
  '--beam', String(beam), '--threads', '1', '--no-torch'], { encoding: 'utf8', env });
const figure = (name) => {
  const m = benchOut.match(new RegExp(`^${name} ([0-9.]+)`, 'm'));
  if (!m) throw new Error(`attend bench translate printed no ${name}:\n${benchOut}`);
  return Number(m[1]);
};
const nativeMs = figure(`translate_${beam === 1 ? 'greedy' : `beam${beam}`}_ms_per_sentence`);
line('native_1thread_ms_per_sentence', nativeMs.toFixed(2), 'ms', `${native}: attend bench translate`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-bench-'));
fs.writeFileSync(path.join(tmp, 'in.txt'), sentences.join('\n') + '\n');
const t0 = performance.now();
execFileSync(native, ['translate', '-m', modelFile, '-i', path.join(tmp, 'in.txt'), '-b', String(beam), '--threads', '1'],
  { stdio: 'pipe', env });
line('native_1thread_process_ms_per_sentence', ((performance.now() - t0) / sentences.length).toFixed(2), 'ms',
  'attend translate: includes process start and model load');
fs.rmSync(tmp, { recursive: true, force: true });

// Node.
const bytes = new Uint8Array(fs.readFileSync(modelFile));
for (const simd of [true, false]) {
  const l0 = performance.now();
  const t = await Attend.load(bytes, { simd });
  const loadMs = performance.now() - l0;
  await t.translate(sentences[0], { beam, attention: false });  // warm-up: the engine's tier-up
  const s0 = performance.now();
  for (const s of sentences) await t.translate(s, { beam, attention: false });
  const ms = (performance.now() - s0) / sentences.length;
  const v = simd ? 'simd' : 'nosimd';
  line(`node_${v}_ms_per_sentence`, ms.toFixed(2), 'ms', `${(ms / nativeMs).toFixed(2)}x native`);
  line(`node_${v}_load_ms`, loadMs.toFixed(0), 'ms', 'module + model');
  t.dispose();
}

// Chromium.
const server = await serve(root);
const browser = await launch();
try {
  const page = await browser.newPage();
  const pageStart = performance.now();
  await page.goto(`${server.url}/tests/browser/pages/worker.html`);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'ready');
  const out = await page.evaluate(([url, s, b]) => window.runTranslations(url, s, { beam: b, attention: false }),
    ['/' + path.relative(root, modelFile), sentences, beam]);
  const ms = out.times.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, out.times.length - 1);
  line('chromium_worker_ms_per_sentence', ms.toFixed(2), 'ms', `${(ms / nativeMs).toFixed(2)}x native`);
  line('chromium_load_ms', out.loadedMs.toFixed(0), 'ms', 'worker + module + model');
  line('chromium_first_translation_after_page_load_ms', (out.loadedMs + out.times[0]).toFixed(0), 'ms');
  void pageStart;
} finally {
  await browser.close();
  await server.close();
}

for (const variant of ['simd', 'nosimd']) {
  const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(root, 'wasm', f)), { level: 9 }).length;
  const kb = (gz(`dist/attend-core-${variant}.wasm`) + gz(`dist/attend-core-${variant}.mjs`) + gz('attend.js')) / 1024;
  line(`module_${variant}_gzipped_kb`, kb.toFixed(0), 'KB', '.wasm + glue + attend.js');
}
