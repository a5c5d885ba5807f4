// The check for source words a translation left out (omissionGain: contrastive conditioning, translate/omissions.h)
// with the shipped models and the thresholds models.json gives them (chosen on Multi30K val and Tatoeba val; the
// figures are on the model cards): "The man's dog is running." comes out of en→de as "Der Hund rennt." and the check
// names "man"; the model's own translations of the first Multi30K val sentences are seldom flagged (the bound has a
// wide margin over the rate measured on 200 val sentences); omissionGain 0 checks nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { requireFile, root } from './lib/paths.mjs';
import { Attend } from '../../wasm/attend.js';

const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const models = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models;
const load = async (id) => Attend.load(new Uint8Array(fs.readFileSync(requireFile(path.join(root, 'web', 'models', `${id}.safetensors`)))));
const gainOf = (id) => models.find((m) => m.id === id).omission_gain;
const valSentences = (lang, n) => zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'multi30k', `val.${lang}.gz`)))
  .toString('utf8').split('\n').slice(0, n);

test('every shipped model has an omission threshold', () => {
  for (const m of models) assert.ok(Number.isFinite(m.omission_gain) && m.omission_gain > 0, m.id);
});

test('omissions: en→de leaves out the man of "The man\'s dog is running." and the check names him', async () => {
  const t = await load('multi30k-en-de-cased');
  const r = await t.translate("The man's dog is running.", { omissionGain: gainOf('multi30k-en-de-cased') });
  assert.ok(!/Mann/.test(r.text), `the translation this test is about: ${r.text}`);
  assert.ok(r.omittedWords.includes('man'), `named: ${r.omittedWords.join(', ')}`);
  assert.ok(r.warnings.some((w) => w.includes('may have left out "man"')), r.warnings.join('; '));
  const words = r.sourceWordGains.map((g) => g.word);
  // Closed-class words ("The", "'s", "is") are not checked: translations rightly fold them into other words.
  assert.deepEqual(words, ['man', 'dog', 'running']);
  // A translation that says the man has no such word, and 0 checks nothing.
  const whole = await t.translate("The man's dog is running in the park.", { omissionGain: gainOf('multi30k-en-de-cased') });
  assert.ok(/Mann/.test(whole.text) || whole.omittedWords.includes('man'), `${whole.text}: ${whole.omittedWords}`);
  const off = await t.translate("The man's dog is running.", { omissionGain: 0 });
  assert.deepEqual(off.omittedWords, []);
  assert.equal(off.sourceWordGains, undefined);
  t.dispose();
});

test('omissions: the caption models\' own translations of Multi30K val are seldom flagged', async () => {
  const N = 30;
  for (const [id, lang] of [['multi30k-en-de-cased', 'en'], ['multi30k-de-en-cased', 'de'], ['multi30k-en-fr-cased', 'en'],
    ['multi30k-fr-en-cased', 'fr']]) {
    const t = await load(id);
    let flagged = 0;
    for (const text of valSentences(lang, N)) {
      const r = await t.translate(text, { omissionGain: gainOf(id), attention: false });
      if (r.omittedWords.length) flagged++;
    }
    // Measured on the first 200 val sentences: at most 6% flagged for any of the four (model cards); on 30 the
    // bound allows 5 (17%).
    assert.ok(flagged <= 5, `${id}: ${flagged} of ${N} val translations flagged`);
    t.dispose();
  }
});
