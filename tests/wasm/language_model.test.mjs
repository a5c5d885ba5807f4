// The WebAssembly character language model against native `attend lm sample`: a GRU language model trained by the
// native CLI for one epoch on the book's first 2,000 characters (gru-d2l's sizes), continued from "time traveller"
// greedily and by seeded sampling, in the SIMD and plain builds: each step's next-character distribution within
// 1e-5 of native, and the same characters. A greedy step whose two best characters are closer than float rounding
// can split differently on another instruction set: where the characters differ, that step must be such a near
// tie, and the comparison ends there. Each loader refuses the other kind of file by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeBin, requireFile, root } from './lib/paths.mjs';
import { Attend } from '../../wasm/attend.js';

const attend = requireFile(nativeBin('attend'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-lm-'));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
execFileSync(attend, ['lm', 'train', '--preset', 'gru-d2l', '--epochs', '1', '--chars', '2000', '--out', tmp,
  '--overwrite', '--data', requireFile(path.join(dataDir, 'timemachine', 'timemachine.txt'))],
{ stdio: 'pipe', env: { ...process.env, OMP_NUM_THREADS: '1' } });
const modelFile = path.join(tmp, 'model.safetensors');
const modelBytes = new Uint8Array(fs.readFileSync(modelFile));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function nativeSample(prefix, args) {
  const out = execFileSync(attend, ['lm', 'sample', '-m', modelFile, '--prefix', prefix, '--distribution', ...args],
    { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' } });
  return JSON.parse(out);
}

const runs = {
  greedy: { native: ['--length', '40'], wasm: { length: 40 } },
  'temperature 0.8, top-k 5, seed 7': {
    native: ['--length', '40', '--temperature', '0.8', '--top-k', '5', '--seed', '7'],
    wasm: { length: 40, temperature: 0.8, topK: 5, seed: 7 },
  },
};

for (const simd of [true, false]) {
  for (const [name, { native: nativeArgs, wasm: options }] of Object.entries(runs)) {
    test(`wasm (${simd ? 'SIMD' : 'no SIMD'}) language model, ${name}: native's characters and distributions`, async () => {
      const prefix = 'time traveller';
      const ref = nativeSample(prefix, nativeArgs);
      const lm = await Attend.loadLanguageModel(modelBytes, { simd, name: 'gru.safetensors' });
      try {
        assert.equal(lm.info.config.rnn, 'gru');
        assert.deepEqual(lm.info.vocab, ref.vocab);
        const got = lm.generate(prefix, options);
        assert.equal(got.steps.length, 40);
        assert.ok(got.text.startsWith(prefix));
        for (let i = 0; i < ref.steps.length; i++) {
          const p = got.steps[i].distribution, q = ref.steps[i].distribution;
          let diff = 0, sum = 0;
          for (let v = 0; v < q.length; v++) {
            diff = Math.max(diff, Math.abs(p[v] - q[v]));
            sum += p[v];
          }
          assert.ok(diff <= 1e-5, `step ${i}: distributions differ by ${diff}`);
          assert.ok(Math.abs(sum - 1) <= 1e-5, `step ${i}: the distribution sums to ${sum}`);
          if (got.steps[i].token !== ref.steps[i].token) {
            const sorted = [...q].sort((a, b) => b - a);
            assert.ok(options.temperature || sorted[0] - sorted[1] <= 1e-5,
              `step ${i}: ${got.steps[i].token} here, ${ref.steps[i].token} natively, not a near tie`);
            return;  // the continuations part here; what follows reads different text
          }
        }
        assert.equal(got.text, ref.text);
        // The same seed draws the same characters again.
        assert.equal(lm.generate(prefix, options).text, got.text);
      } finally {
        lm.dispose();
      }
    });
  }
}

test('the language model loader refuses a translator file, and the translator loader a language model', async () => {
  const translator = fs.readdirSync(path.join(root, 'web', 'models')).find((f) => f.endsWith('.safetensors'));
  const translatorBytes = new Uint8Array(fs.readFileSync(path.join(root, 'web', 'models', translator)));
  await assert.rejects(Attend.loadLanguageModel(translatorBytes, { name: translator }), /this is a translator/);
  await assert.rejects(Attend.load(modelBytes, { name: 'lm.safetensors' }), /lm\.safetensors: this is a language model/);
  const lm = await Attend.loadLanguageModel(modelBytes);
  assert.throws(() => lm.generate(''), /prefix must be a non-empty string/);
  assert.throws(() => lm.generate('time', { topK: 1.5 }), /topK must be a whole number/);
  lm.dispose();
  assert.throws(() => lm.generate('time'), /disposed/);
});
