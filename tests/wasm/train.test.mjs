// Training in WebAssembly (attend-train.js) against native `attend train`: the seeds' GRU + Bahdanau model (and the
// small Transformer's losses) on the first 800 pairs of d2l's fra.txt (600 train, 200 validate), the first 50 steps
// (five epochs), in the SIMD and plain builds. The first step's loss depends only on the seeded initialisation and
// one forward pass: within 1e-5 of native. The matrix products are the core's SIMD GEMM or Eigen's here and
// OpenBLAS's natively, so their rounding differs and Adam carries it on: the GRU's later losses follow native's
// within 1e-5 (2e-8 measured on AVX-512), the Transformer's within 1e-3 for 12 steps and 0.1 by step 50 (Adam
// divides each gradient by its own running size, so a weight whose gradient is nearly 0 moves a full step in a
// direction that rounding decides; measured: 2e-4 by step 12, 3e-2 by 50, the plain build as far). The exported
// model is one that native `attend translate` reads and that the translator module translates with as the trainer
// does; the seeds' table scores each translation with d2l's bleu (k = 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { nativeBin, requireFile, root } from './lib/paths.mjs';
import { AttendTrainer, trainablePresets } from '../../wasm/attend-train.js';
import { Attend } from '../../wasm/attend.js';

const attend = requireFile(nativeBin('attend'));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const fra = requireFile(path.join(dataDir, 'tatoeba', 'd2l', 'fra.txt.gz'));
const tsv = zlib.gunzipSync(fs.readFileSync(fra)).toString('utf8').split('\n').slice(0, 800).join('\n');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-train-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const steps = 50;
execFileSync(attend, ['train', '--preset', 'bahdanau-d2l', '--max-steps', String(steps), '--log-every', '1',
  '--data', dataDir, '--out', path.join(tmp, 'native'), '--threads', '1'], { stdio: 'pipe' });
const nativeLosses = fs.readFileSync(path.join(tmp, 'native', 'train.jsonl'), 'utf8').trim().split('\n')
  .map((line) => JSON.parse(line)).filter((j) => j.event === 'step').map((j) => j.loss);
assert.equal(nativeLosses.length, steps);

const transformerLosses = (() => {
  execFileSync(attend, ['train', '--preset', 'transformer-d2l', '--max-steps', String(steps), '--log-every', '1',
    '--data', dataDir, '--out', path.join(tmp, 'native-transformer'), '--threads', '1'], { stdio: 'pipe' });
  return fs.readFileSync(path.join(tmp, 'native-transformer', 'train.jsonl'), 'utf8').trim().split('\n')
    .map((line) => JSON.parse(line)).filter((j) => j.event === 'step').map((j) => j.loss);
})();

const relative = (a, b) => Math.abs(a - b) / Math.abs(b);
// d2l's bleu (the seeds' table), with a precision over no n-grams counted as 0 as the core does.
function seedsBleu(pred, label, k) {
  const p = pred.split(' '), l = label.split(' ');
  let score = Math.exp(Math.min(0, 1 - l.length / p.length));
  for (let n = 1; n <= k; n++) {
    const subs = new Map();
    for (let i = 0; i + n <= l.length; i++) {
      const g = l.slice(i, i + n).join(' ');
      subs.set(g, (subs.get(g) ?? 0) + 1);
    }
    let matches = 0;
    for (let i = 0; i + n <= p.length; i++) {
      const g = p.slice(i, i + n).join(' ');
      if (subs.get(g) > 0) { matches++; subs.set(g, subs.get(g) - 1); }
    }
    const total = p.length - n + 1;
    score *= total > 0 ? (matches / total) ** (0.5 ** n) : 0;
  }
  return score;
}
const seedsTable = [['go .', 'va !'], ['i lost .', "j'ai perdu ."], ["he's calm .", 'il est calme .'],
  ["i'm home .", 'je suis chez moi .']];

for (const simd of [true, false]) {
  test(`bahdanau-d2l trains in wasm as natively (${simd ? 'SIMD' : 'plain'} build)`, async () => {
    const trainer = await AttendTrainer.create('bahdanau-d2l', tsv, { simd });
    const info = trainer.info();
    assert.equal(info.trainPairs, 600);
    assert.equal(info.validPairs, 200);
    assert.equal(info.architecture, 'bahdanau');
    const records = [...trainer.step(5), ...trainer.step(steps - 5)];
    assert.deepEqual(records.map((r) => r.step), Array.from({ length: steps }, (_, i) => i + 1));
    const losses = records.map((r) => r.loss);
    losses.forEach((l, i) => assert.ok(relative(l, nativeLosses[i]) < 1e-5, `step ${i + 1}: ${l} vs ${nativeLosses[i]}`));
    const ends = records.filter((r) => r.epochDone);
    assert.equal(ends.length, 5, 'ten batches of 64 make an epoch');
    for (const end of ends) assert.ok(end.epochLoss > 0 && Number.isFinite(end.epochLoss));

    const v = trainer.validate();
    assert.ok(Number.isFinite(v.valLoss) && v.valLoss > 0);
    assert.ok(v.valBleu >= 0 && v.valBleu <= 100);

    const t = trainer.translate('go .');
    const { layers, heads, rows, cols, weights } = t.attention;
    assert.equal(weights.length, layers * heads * rows * cols);
    assert.equal(rows, t.targetTokens.length, 'a row per target token (<eos> included)');
    assert.equal(cols, t.sourceTokens.length, 'a column per source token (<eos> included)');
    for (let r = 0; r < rows; r++) {  // each row of cross attention is a distribution over the source
      const sum = weights.subarray(r * cols, (r + 1) * cols).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-4, `row ${r} sums to ${sum}`);
    }

    // The exported model: native `attend translate` reads it; the translator module (the same arithmetic as this
    // one) translates with it as the trainer does.
    const file = path.join(tmp, `exported-${simd}.safetensors`);
    const bytes = trainer.exportModel();
    fs.writeFileSync(file, bytes);
    const native = execFileSync(attend, ['translate', '-m', file, '-b', '1', '-t', 'go .'], { encoding: 'utf8' });
    assert.equal(native.trim().split('\n').length, 1);
    const translator = await Attend.load(bytes, { simd });
    assert.equal((await translator.translate('go .', { beam: 1 })).text, t.text);
    translator.dispose();

    // The seeds' four-sentence table after more training: each bleu is the seeds' formula (k = 2) on the
    // translation's words; native `attend eval` prints the table for the exported weights too.
    trainer.step(150);
    fs.writeFileSync(file, trainer.exportModel());
    const table = execFileSync(attend, ['eval', '-m', file], { encoding: 'utf8' }).split('\n')
      .filter((l) => / => .*bleu \d\.\d{3}$/.test(l));
    assert.equal(table.length, seedsTable.length);
    for (const [source, reference] of seedsTable) {
      const r = trainer.translate(source, { reference });
      const words = r.targetTokens.filter((w) => w !== '<eos>').join(' ');
      assert.ok(Math.abs(r.bleu - seedsBleu(words, reference, 2)) < 1e-12, `${source}: ${r.bleu}`);
    }
    assert.equal(trainer.translate('go .').bleu, undefined);
    trainer.dispose();
    assert.throws(() => trainer.step(), /disposed/);
  });
}

for (const simd of [true, false]) {
  // The small Transformer: the tolerances the header gives.
  test(`transformer-d2l trains in wasm as natively (${simd ? 'SIMD' : 'plain'} build)`, async () => {
    const trainer = await AttendTrainer.create('transformer-d2l', tsv, { simd });
    assert.equal(trainer.info().architecture, 'transformer');
    const losses = trainer.step(steps).map((r) => r.loss);
    assert.equal(transformerLosses.length, steps);
    assert.ok(relative(losses[0], transformerLosses[0]) < 1e-5, `step 1: ${losses[0]} vs native ${transformerLosses[0]}`);
    losses.forEach((l, i) => assert.ok(relative(l, transformerLosses[i]) < (i < 12 ? 1e-3 : 0.1),
      `step ${i + 1}: ${l} vs ${transformerLosses[i]}`));
    trainer.dispose();
  });
}

test('the trainer refuses what it cannot train, naming it', async () => {
  assert.deepEqual(trainablePresets, ['bahdanau-d2l', 'transformer-d2l']);
  await assert.rejects(AttendTrainer.create('transformer-tiny', tsv), /preset must be one of/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', 'go .\nva !'), /line 1 has no tab/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', ''), /no sentence pairs/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', [['go .', 'va\t!']]), /tab or a line break/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', tsv, { lr: -1 }), /lr must be a positive number/);
  await assert.rejects(AttendTrainer.create('bahdanau-d2l', tsv, { epochs: 0 }), /epochs must be 1 to 100000/);
  const short = await AttendTrainer.create('bahdanau-d2l', tsv, { epochs: 3 });
  assert.equal(short.info().options.epochs, 3);
  short.dispose();
  const trainer = await AttendTrainer.create('transformer-d2l', [['go .', 'va !'], ['i lost .', "j'ai perdu ."]],
    { validPairs: 0 });
  assert.throws(() => trainer.step(0), /steps must be a whole number/);
  assert.equal(trainer.step(3).length, 3);
  assert.throws(() => trainer.translate('a\0b'), /NUL/);
  assert.throws(() => trainer.translate('go .', { reference: 7 }), /reference must be a string/);
  trainer.dispose();
});
