// A training step (one batch of 32 x 35 characters) of the seeds' character language models in WebAssembly
// (AttendTrainer.createLanguageModel in Node, SIMD and plain) beside native `attend lm train` on one thread, on The
// Time Machine's first 10,000 characters (8 batches an epoch). Prints `name value unit` lines; npm run bench:wasm
// runs it after the translator's figures, or alone:
//   node bench/wasm_lm_bench.mjs [--presets rnn-d2l,gru-d2l,...] [--rounds R] [--native BIN]
//
// The machines are shared and drift, so native and wasm take turns: each round trains one epoch natively (the
// second of a two-epoch run, timed inside the process from its train.jsonl, so that start-up does not count) and
// one epoch of each wasm build. Reported: the median round's milliseconds per batch.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeBin, root } from '../tests/wasm/lib/paths.mjs';
import { AttendTrainer, languageModelPresets } from '../wasm/attend-train.js';

const args = process.argv.slice(2);
const arg = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const presets = arg('--presets', 'rnn-d2l,gru-d2l,lstm-d2l').split(',');
for (const p of presets) if (!languageModelPresets.includes(p)) throw new Error(`--presets: unknown preset ${p}`);
const rounds = Number(arg('--rounds', 3));
const native = arg('--native', process.env.ATTEND_NATIVE_BIN || nativeBin('attend'));
const env = { ...process.env, OMP_NUM_THREADS: '1', OMP_WAIT_POLICY: 'passive' };
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const bookFile = path.join(dataDir, 'timemachine', 'timemachine.txt');
const book = fs.readFileSync(bookFile, 'utf8');
const line = (name, value, unit, extra = '') => console.log(`${name} ${value} ${unit}${extra ? ` (${extra})` : ''}`);
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

// Native: ms per batch of a run's second epoch (its first warms the caches and the allocator).
function nativeEpoch(preset) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-bench-lm-'));
  try {
    execFileSync(native, ['lm', 'train', '--preset', preset, '--epochs', '2', '--data', bookFile, '--out', out,
      '--overwrite'], { stdio: 'pipe', env });
    const epochs = fs.readFileSync(path.join(out, 'train.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((j) => j.event === 'epoch');
    const second = epochs[1];
    return (second.tokens / second.tokens_per_s) * 1000 / (second.tokens / (32 * 35));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

for (const preset of presets) {
  const trainers = {
    node_simd: await AttendTrainer.createLanguageModel(preset, book, { simd: true }),
    node_nosimd: await AttendTrainer.createLanguageModel(preset, book, { simd: false }),
  };
  const batches = trainers.node_simd.info().batchesPerEpoch;
  for (const t of Object.values(trainers)) t.step(batches);  // the first epoch, as natively
  const times = { native: [], node_simd: [], node_nosimd: [] };
  for (let r = 0; r < rounds; r++) {
    times.native.push(nativeEpoch(preset));
    for (const [name, t] of Object.entries(trainers)) {
      const start = performance.now();
      t.step(batches);
      times[name].push((performance.now() - start) / batches);
    }
  }
  for (const t of Object.values(trainers)) t.dispose();
  line(`lm_train_${preset}_native_1thread_ms_per_batch_median`, median(times.native).toFixed(1), 'ms');
  for (const name of ['node_simd', 'node_nosimd']) {
    line(`lm_train_${preset}_${name}_ms_per_batch_median`, median(times[name]).toFixed(1), 'ms',
      `${(median(times[name]) / median(times.native)).toFixed(2)}x native`);
  }
}
