// Training on threads in WebAssembly (attend-train.js with { threads }, the module built with -pthread): the seeds'
// models trained on 2 data-parallel ranks, one per thread (Node's worker_threads), against the single-thread SIMD
// module on the same batches. The ranks' gradients are summed after each rank's matrix products over its half of
// the batch, one thread sums the same terms inside one product: the two differ by float rounding, which Adam
// carries on but keeps relative, so every step's loss agrees to 1e-5 (natively the same comparison holds to 1e-6:
// tests/native/test_thread_ranks.cpp). Dropout is on: each rank draws, for its rows, the masks one thread draws for
// them. The trained model is one the translator module reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { dist, requireFile, root } from './lib/paths.mjs';
import { AttendTrainer, defaultTrainerThreads, maxTrainerThreads, threadsSupported } from '../../wasm/attend-train.js';
import { Attend } from '../../wasm/attend.js';

for (const f of ['attend-train-simd-mt.mjs', 'attend-train-simd-mt.wasm', 'attend-train-simd-mt.worker.js']) {
  requireFile(dist(f));
}
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const fra = requireFile(path.join(dataDir, 'tatoeba', 'd2l', 'fra.txt.gz'));
const tsv = zlib.gunzipSync(fs.readFileSync(fra)).toString('utf8').split('\n').slice(0, 800).join('\n');

const relative = (a, b) => Math.abs(a - b) / Math.abs(b);

test('Node shares memory between threads, and a trainer there takes one thread unless asked', () => {
  assert.equal(threadsSupported(), true);
  assert.equal(defaultTrainerThreads(), 1);  // not a cross-origin isolated page
  assert.equal(maxTrainerThreads, 4);
});

for (const [preset, steps] of [['transformer-d2l', 8], ['bahdanau-d2l', 12]]) {
  test(`${preset} on 2 threads trains what it trains on one (losses within 1e-5)`, async () => {
    const one = await AttendTrainer.create(preset, tsv, { simd: true, threads: 1 });
    const two = await AttendTrainer.create(preset, tsv, { threads: 2 });
    assert.equal(one.threads, 1);
    assert.equal(two.threads, 2);
    assert.equal(two.info().threads, 2);
    assert.equal(two.info().parameters, one.info().parameters);
    const a = [...one.step(2), ...one.step(steps - 2)];
    const b = [...two.step(2), ...two.step(steps - 2)];
    assert.deepEqual(b.map((r) => [r.step, r.epoch, r.batch]), a.map((r) => [r.step, r.epoch, r.batch]));
    b.forEach((r, i) => assert.ok(relative(r.loss, a[i].loss) < 1e-5, `step ${i + 1}: ${r.loss} vs ${a[i].loss}`));
    assert.ok(b.at(-1).loss < b[0].loss, `the loss falls: ${b[0].loss} -> ${b.at(-1).loss}`);

    const v1 = one.validate(), v2 = two.validate();
    assert.ok(relative(v2.valLoss, v1.valLoss) < 1e-4, `validation loss ${v2.valLoss} vs ${v1.valLoss}`);

    // The threaded trainer's model, exported, translates in the translator module as the trainer translates.
    const t = two.translate('go .');
    const { rows, cols, weights } = t.attention;
    for (let r = 0; r < rows; r++) {
      const sum = weights.subarray(r * cols, (r + 1) * cols).reduce((x, y) => x + y, 0);
      assert.ok(Math.abs(sum - 1) < 1e-4, `row ${r} sums to ${sum}`);
    }
    const translator = await Attend.load(two.exportModel(), { simd: true });
    assert.equal((await translator.translate('go .', { beam: 1 })).text, t.text);
    translator.dispose();
    one.dispose();
    two.dispose();
    assert.throws(() => two.step(), /disposed/);
  });
}

test('threads the trainer cannot have are refused by name', async () => {
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', tsv, { threads: 0 }), /threads must be a whole number from 1 to 4/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', tsv, { threads: 5 }), /threads must be a whole number from 1 to 4/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', tsv, { threads: 1.5 }), /threads must be a whole number/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', tsv, { threads: 2, simd: false }),
    /the module with threads is the SIMD build/);
  // The module's trainers share its threads: the first to ask chose 2.
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', tsv, { threads: 3 }),
    /this module's trainers train on 2 threads .*not 3/);
  // An error inside the core still reaches the caller on the threaded module (its C++ exceptions are caught).
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', 'go .\nva !', { threads: 2 }), /line 1 has no tab/);
  const trainer = await AttendTrainer.create('transformer-d2l', [['go .', 'va !'], ['i lost .', "j'ai perdu ."]],
    { validPairs: 0, threads: 2 });
  assert.equal(trainer.threads, 2);
  assert.equal(trainer.step(3).length, 3);  // a batch of 2 rows: one each
  trainer.dispose();
});
