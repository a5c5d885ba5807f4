// Character language models trained in WebAssembly (AttendTrainer.createLanguageModel) against native `attend lm
// train`: gru-d2l on The Time Machine's first 10,000 characters, seed 1, in the SIMD and plain builds. The first
// batch's loss depends only on the seeded initialisation and one forward pass: within 1e-5 of native (relative).
// The later batches' losses and the epochs' perplexities follow native within 1e-4 (the matrix products are Eigen's
// here and OpenBLAS's natively: their rounding differs and SGD carries it on; about 1e-9 is seen on an AVX-512 machine,
// and plain SGD with clipping, unlike Adam, does not magnify it). Over a few epochs the perplexity
// falls. The exported file is one native `attend lm sample` reads, whose first next-character distribution is the
// wasm language model's within 1e-5; text the trainer cannot train on is refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeBin, requireFile, root } from './lib/paths.mjs';
import { AttendTrainer, languageModelPresets, maxLanguageModelText } from '../../wasm/attend-train.js';
import { Attend } from '../../wasm/attend.js';

const attend = requireFile(nativeBin('attend'));
const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const bookFile = requireFile(path.join(dataDir, 'timemachine', 'timemachine.txt'));
const book = fs.readFileSync(bookFile, 'utf8');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-lm-train-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const epochs = 2;
execFileSync(attend, ['lm', 'train', '--preset', 'gru-d2l', '--epochs', String(epochs), '--log-every', '1',
  '--seed', '1', '--data', bookFile, '--out', path.join(tmp, 'native')], { stdio: 'pipe' });
const nativeLog = fs.readFileSync(path.join(tmp, 'native', 'train.jsonl'), 'utf8').trim().split('\n')
  .map((line) => JSON.parse(line));
const nativeLosses = nativeLog.filter((j) => j.event === 'step').map((j) => j.loss);
const nativePerplexities = nativeLog.filter((j) => j.event === 'epoch').map((j) => j.perplexity);
assert.equal(nativePerplexities.length, epochs);

const relative = (a, b) => Math.abs(a - b) / Math.abs(b);

// Trains until `until` epochs are done, a few batches a call as a page would; the losses and epoch perplexities.
function train(lm, until) {
  const losses = [], perplexities = [];
  while (perplexities.length < until) {
    for (const r of lm.step(3)) {
      losses.push(r.loss);
      if (r.epochDone) perplexities.push(r.epochPerplexity);
    }
  }
  return { losses, perplexities };
}

for (const simd of [true, false]) {
  test(`gru-d2l trains in wasm as attend lm train does (${simd ? 'SIMD' : 'plain'} build)`, async () => {
    const lm = await AttendTrainer.createLanguageModel('gru-d2l', book, { seed: 1, simd });
    assert.equal(lm.simd, simd);
    const info = lm.info();
    assert.equal(info.preset, 'gru-d2l');
    assert.equal(info.rnn, 'gru');
    assert.equal(info.hiddenSize, 256);
    assert.equal(info.trainChars, 10000);
    assert.equal(info.vocab.length, 28);  // <unk>, space and the 26 letters, d2l's
    assert.equal(info.vocab[0], '<unk>');
    assert.deepEqual(info.options, { lr: 1, epochs: 500, batch: 32, steps: 35, randomIter: false, seed: 1 });
    assert.equal(info.parameters, 3 * (256 * 28 + 256 * 256 + 2 * 256) + 28 * 256 + 28);

    const { losses, perplexities } = train(lm, epochs);
    const steps = epochs * info.batchesPerEpoch;
    assert.ok(losses.length >= steps);
    assert.equal(nativeLosses.length, steps);
    assert.ok(relative(losses[0], nativeLosses[0]) < 1e-5, `first loss ${losses[0]} vs native ${nativeLosses[0]}`);
    for (let i = 1; i < steps; i++) {
      assert.ok(relative(losses[i], nativeLosses[i]) < 1e-4, `loss ${i + 1}: ${losses[i]} vs native ${nativeLosses[i]}`);
    }
    for (let e = 0; e < epochs; e++) {
      assert.ok(relative(perplexities[e], nativePerplexities[e]) < 1e-4,
        `epoch ${e + 1} perplexity ${perplexities[e]} vs native ${nativePerplexities[e]}`);
    }
    lm.dispose();
    assert.throws(() => lm.step(), /disposed/);
  });
}

test('a language model trained in wasm learns, predicts, and exports a file native attend lm reads', async () => {
  const lm = await AttendTrainer.createLanguageModel('gru-d2l', book, { seed: 3 });
  const before = lm.predict('time traveller', 50);
  assert.ok(before.startsWith('time traveller'));
  const { perplexities } = train(lm, 6);
  assert.ok(perplexities.at(-1) < perplexities[0], `perplexity ${perplexities.join(', ')}`);
  assert.ok(perplexities.at(-1) < 28, 'below a uniform guess over the 28 characters');
  const after = lm.predict('time traveller', 50);
  assert.ok(after.startsWith('time traveller'));
  assert.equal(lm.predict('time traveller', 0), 'time traveller');

  const bytes = lm.exportModel();
  const file = path.join(tmp, 'wasm-gru.safetensors');
  fs.writeFileSync(file, bytes);
  // The translator module reads it and continues as the trainer does (the same core, the same arithmetic).
  const loaded = await Attend.loadLanguageModel(bytes, { simd: lm.simd });
  assert.equal(loaded.info.card.preset, 'gru-d2l');
  assert.equal(loaded.info.card.epochs, 6);
  assert.equal(loaded.generate('time traveller', { length: 50 }).text, after);
  // Native reads it: the first next-character distribution within 1e-5 of the wasm model's.
  const native = JSON.parse(execFileSync(attend, ['lm', 'sample', '-m', file, '--prefix', 'time traveller',
    '--length', '1', '--distribution'], { encoding: 'utf8' }));
  const wasm = loaded.generate('time traveller', { length: 1 });
  assert.deepEqual(native.vocab, lm.info().vocab);
  const a = native.steps[0].distribution, b = wasm.steps[0].distribution;
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-5, `p[${i}] ${a[i]} vs ${b[i]}`);
  const chapter = path.join(tmp, 'chapter.txt');
  fs.writeFileSync(chapter, book.slice(0, 3000));
  const evaluated = execFileSync(attend, ['lm', 'eval', '-m', file, '--text', chapter], { encoding: 'utf8' });
  assert.match(evaluated, /^perplexity \d+\.\d+ over/);
  loaded.dispose();
  lm.dispose();
});

test('the language model trainer refuses what it cannot train on, by name', async () => {
  const create = (text, options = {}, preset = 'rnn-d2l') => AttendTrainer.createLanguageModel(preset, text, options);
  assert.deepEqual([...languageModelPresets], ['rnn-d2l', 'gru-d2l', 'lstm-d2l', 'deep-lstm-d2l', 'birnn-d2l']);
  await assert.rejects(create(book, {}, 'gpt'), /preset must be one of rnn-d2l, gru-d2l/);
  await assert.rejects(create(''), /the text is empty/);
  await assert.rejects(create(new Uint8Array(0)), /the text is empty/);
  await assert.rejects(create(42), /expected a string, a Uint8Array/);
  const invalid = new TextEncoder().encode(book.slice(0, 5000));
  invalid[100] = 0xff;
  await assert.rejects(create(invalid), /invalid UTF-8 at byte 100/);
  await assert.rejects(create(`time \ud800 traveller ${book}`), /lone surrogate/);
  await assert.rejects(create('time traveller'), /too short: 14 characters after cleaning .*need at least 1156/);
  await assert.rejects(create('1984 -- 2001 !'), /no letters/);
  await assert.rejects(create(new Uint8Array(maxLanguageModelText + 1).fill(97)), /more than the 67108864/);
  await assert.rejects(create(book, { epochs: 0 }), /epochs must be a whole number from 1/);
  await assert.rejects(create(book, { seed: -1 }), /seed must be a whole number/);
  await assert.rejects(create(book, { lr: 0 }), /lr must be a positive number/);
  await assert.rejects(create(book, { chars: 1.5 }), /chars must be a whole number/);
  await assert.rejects(create(book, { batch: 64 }), /unknown option 'batch'/);
  // A file read as bytes trains as its text does.
  const lm = await create(new TextEncoder().encode(book), { chars: 2000 });
  assert.equal(lm.info().trainChars, 2000);
  assert.throws(() => lm.predict(''), /prefix is empty/);
  assert.throws(() => lm.predict('a', -1), /length must be a whole number/);
  assert.throws(() => lm.step(0), /steps must be/);
  lm.dispose();
});
