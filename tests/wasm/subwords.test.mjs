// A model trained on a raw-text corpus (SentencePiece subwords, any script) in the WebAssembly translator: the
// portable encoder and decoder give native's pieces and text for Chinese input, byte pieces included, and the
// translations and attention maps are native's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/paths.mjs';
import { maxDifference, nativeTranslations } from './lib/native.mjs';
import { subwordModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
const modelFile = subwordModel('f32');
const modelBytes = new Uint8Array(fs.readFileSync(modelFile));
// The public test set's Chinese side (never trained on), one sentence a line (native `attend translate` splits a
// line of two, translate() here reads one), and lines only byte pieces can spell.
const sentences = fs.readFileSync(path.join(dataDir, 'tatoeba', 'test', 'tatoeba-test-v2021-08-07.eng-cmn.tsv'), 'utf8')
  .split('\n').filter((l) => l).map((l) => l.split('\t')[1])
  .filter((s) => !/[。！？][”’」』）]*[^。！？”’」』）]/.test(s)).slice(0, 60)
  .concat(['我喜欢吃鱼', '𠀀𪚥 鱻', 'Ünïcödé and emoji 🐟', '  多个   空格  ']);
const options = { beam: 3, lengthPenalty: 0.6, maxLength: 0 };
const native = nativeTranslations(modelFile, sentences, options);

test('a subword model: wasm reads and writes Chinese exactly as native', async () => {
  const t = await Attend.load(modelBytes);
  const info = t.info();
  assert.equal(info.sourceLanguage, 'zh');
  assert.equal(info.targetLanguage, 'en');
  let worst = 0;
  let bytePieces = 0;
  for (let i = 0; i < sentences.length; i++) {
    const r = await t.translate(sentences[i], { ...options, attention: true });
    assert.deepEqual(r.sourceTokens, native[i].source_tokens, `sentence ${i + 1}: source pieces`);
    assert.deepEqual(r.targetTokens, native[i].target_tokens, `sentence ${i + 1}: target pieces`);
    assert.equal(r.text, native[i].text, `sentence ${i + 1}: text`);
    bytePieces += r.sourceTokens.filter((p) => /^<0x[0-9A-F]{2}>$/.test(p)).length;
    worst = Math.max(worst, maxDifference(native[i].cross, r.attention.cross));
  }
  assert.ok(bytePieces > 0, 'some input was spelt in byte pieces');
  assert.ok(worst <= 1e-5, `attention maps differ from native by ${worst}`);
  t.dispose();
});
