// translate()'s defaults and bounds come from the core: defaultOptions() is the core's TranslationOptions (with the
// model's own length penalty) and the JS API's attention: true; optionBounds() is what translate() enforces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { smallModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const modelBytes = new Uint8Array(fs.readFileSync(smallModel('f32')));

test('defaultOptions() are the core\'s defaults and what translate() uses when an option is left out', async () => {
  const t = await Attend.load(modelBytes);
  const d = t.defaultOptions();
  assert.deepEqual(d, {
    beam: 5, maxLength: 0, maxInputLength: 0, maxLengthRatio: 2, lengthPenalty: t.info().decoding.lengthPenalty,
    noRepeatNgramSize: 4, repetitionPenalty: 1, maxTokenRun: 3, maxPieceRun: 2, noAdjacentRepeatSize: 8, maxCharRun: 4,
    clauseSplitWords: 24, minConfidence: 0, omissionGain: 0, alternatives: 0,
    copyThrough: true, recaseCapitals: true, alignMarkup: true, closeMarks: true, attention: true, neurons: false,
  });
  const text = 'A man in a blue shirt is standing on a ladder.';
  const byDefault = await t.translate(text);
  const given = await t.translate(text, d);
  assert.equal(byDefault.text, given.text);
  assert.deepEqual(byDefault.targetIds, given.targetIds);
  assert.ok(byDefault.attention.cross.layers.length > 0);
  t.dispose();
  assert.throws(() => t.defaultOptions(), /disposed/);
});

test('optionBounds() are the core\'s limits, and translate() refuses a value just outside each', async () => {
  const t = await Attend.load(modelBytes);
  const bounds = t.optionBounds();
  assert.deepEqual(bounds.beam, { min: 1, max: 64, integer: true, aboveMin: false });
  assert.deepEqual(bounds.maxLength, { min: 0, max: 4096, integer: true, aboveMin: false });
  assert.deepEqual(bounds.repetitionPenalty, { min: 0, max: 1e6, integer: false, aboveMin: true });
  assert.deepEqual(Object.keys(bounds), ['beam', 'maxLength', 'maxInputLength', 'maxLengthRatio', 'lengthPenalty',
    'noRepeatNgramSize', 'repetitionPenalty', 'maxTokenRun', 'maxPieceRun', 'noAdjacentRepeatSize', 'maxCharRun',
    'clauseSplitWords', 'minConfidence', 'omissionGain', 'alternatives']);
  for (const [name, { min, max, integer, aboveMin }] of Object.entries(bounds)) {
    const step = integer ? 1 : Math.max(1, Math.abs(max)) * 1e-3;
    await assert.rejects(t.translate('A dog.', { [name]: max + step }), RangeError, name);
    if (aboveMin) await assert.rejects(t.translate('A dog.', { [name]: min }), /must be between above 0 and/);
    else await assert.rejects(t.translate('A dog.', { [name]: min - step }), RangeError, name);
  }
  t.dispose();
});
