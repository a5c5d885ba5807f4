// A model file's own length penalty and confidence threshold (attend.decoding) are the defaults of the WebAssembly
// translator: info() reports the values models.json records for the shipped model's check (and the file's own name
// placeholders), and translate() without
// lengthPenalty is the same translation as translate() given that value. A caller's other value still wins. A model without attend.decoding
// (every shipped one has it, so the small test model, exported without --length-penalty) falls back to the general
// default (0.6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { requireFile, root } from './lib/paths.mjs';
import { smallModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const models = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models;
const cased = models.filter((m) => m.id.endsWith('-cased'));
const sentencesIn = (lang) => zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'multi30k', `test_2016_flickr.${lang}.gz`)))
  .toString('utf8').split('\n').slice(0, 6);
// The file stores the penalty as float32 and the core decodes with it as float32: models.json's 1.8 is the float
// nearest to 1.8, which is exact to compare.
const asStored = (x) => Math.fround(x);
// score = logProb / L^alpha over the generated tokens (<eos> included), computed in float32 by the core.
const expectedScore = (r, alpha) => r.logProb / Math.pow(r.targetIds.length, alpha);
const close = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b));

test('models.json lists the four cased directions, each with source, target and a checked length penalty', () => {
  assert.deepEqual(cased.map((m) => `${m.source}-${m.target}`).sort(), ['de-en', 'en-de', 'en-fr', 'fr-en']);
  for (const m of cased) assert.equal(typeof m.check?.length_penalty, 'number', m.id);
});

// The name placeholders of a file that names none (translate/copy_through.h).
const defaultNames = ['Obama', 'Seattle', 'Miami', 'Boston'];
// info().decoding: camelCase, and the same under the deprecated snake_case names. layers: the model's alignment
// layers, or null for every one of its `every` layers.
const decoding = (lengthPenalty, fromModel, minConfidence, names = defaultNames, layers = null, every = 4) => ({
  lengthPenalty, lengthPenaltyFromModel: fromModel, length_penalty: lengthPenalty, length_penalty_from_model: fromModel,
  minConfidence, min_confidence: minConfidence, namePlaceholders: names, name_placeholders: names,
  alignmentLayers: layers ?? [0, every - 1], alignment_layers: layers ?? [0, every - 1],
  alignmentLayersFromModel: layers !== null, alignment_layers_from_model: layers !== null });
// A model file's attend.decoding as stored (the safetensors header's metadata).
const storedDecoding = (bytes) => {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const metadata = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))).__metadata__;
  return JSON.parse(metadata['attend.decoding'] ?? '{}');
};

for (const entry of cased) {
  for (const simd of [true, false]) {
    test(`${entry.id} (${simd ? 'SIMD' : 'no SIMD'}): its own length penalty ${entry.check.length_penalty} is the default`, async () => {
      const file = requireFile(path.join(root, 'web', 'models', entry.file));
      const bytes = new Uint8Array(fs.readFileSync(file));
      const t = await Attend.load(bytes, { simd });
      const info = t.info();
      assert.equal(info.source_language, entry.source);
      assert.equal(info.target_language, entry.target);
      assert.deepEqual(info.decoding, decoding(asStored(entry.check.length_penalty), true,
        asStored(entry.check.min_confidence), storedDecoding(bytes).name_placeholders ?? defaultNames,
        storedDecoding(bytes).alignment_layers ?? null, info.config.decoder_layers));
      assert.equal(t.defaultOptions().minConfidence, info.decoding.minConfidence);
      const alpha = info.decoding.length_penalty;
      // Another alpha than the model's: 0 (no normalization) where the model's is not 0, else 1.
      const other = alpha === 0 ? 1 : 0;
      for (const text of sentencesIn(entry.source)) {
        const byDefault = await t.translate(text, { beam: 5, attention: false });
        const given = await t.translate(text, { beam: 5, lengthPenalty: entry.check.length_penalty, attention: false });
        assert.equal(byDefault.text, given.text, text);
        assert.deepEqual(byDefault.targetIds, given.targetIds, text);
        assert.equal(byDefault.score, given.score, text);
        assert.ok(close(byDefault.score, expectedScore(byDefault, alpha)),
          `${text}: score ${byDefault.score} is not logProb / L^${alpha} (${expectedScore(byDefault, alpha)})`);
        // The caller's own value is used, not overridden by the model's.
        const mine = await t.translate(text, { beam: 5, lengthPenalty: other, attention: false });
        assert.ok(mine.text.length > 0, text);
        assert.ok(close(mine.score, expectedScore(mine, other)),
          `${text}: with lengthPenalty ${other} the score ${mine.score} is not logProb / L^${other} (${expectedScore(mine, other)})`);
        if (mine.targetIds.length > 1) assert.notEqual(mine.score, byDefault.score, `${text}: lengthPenalty ${other} was ignored`);
        // Its own confidence threshold flags what falls below it, with a warning; 1 flags everything, 0 nothing.
        assert.equal(byDefault.lowConfidence, byDefault.confidence < info.decoding.minConfidence, text);
        assert.equal(byDefault.warnings.some((w) => w.startsWith('low confidence (')), byDefault.lowConfidence, text);
        assert.ok(close(Math.log(byDefault.confidence), byDefault.logProb / byDefault.targetIds.length), text);
        const all = await t.translate(text, { beam: 5, minConfidence: 1, attention: false });
        assert.equal(all.lowConfidence, true, text);
        assert.equal(all.text, byDefault.text, text);
        assert.equal((await t.translate(text, { beam: 5, minConfidence: 0, attention: false })).lowConfidence, false, text);
      }
      t.dispose();
    });
  }
}

test('a model without attend.decoding reports and uses the general default, 0.6', async () => {
  const t = await Attend.load(new Uint8Array(fs.readFileSync(smallModel('f32'))));
  assert.deepEqual(t.info().decoding,
    decoding(asStored(0.6), false, 0, defaultNames, null, t.info().config.decoder_layers));
  const text = sentencesIn(t.info().source_language)[0];
  const byDefault = await t.translate(text, { attention: false });
  const given = await t.translate(text, { lengthPenalty: 0.6, attention: false });
  assert.equal(byDefault.text, given.text);
  assert.equal(byDefault.score, given.score);
  assert.ok(close(byDefault.score, expectedScore(byDefault, 0.6)), `score ${byDefault.score} is not logProb / L^0.6`);
  t.dispose();
});
