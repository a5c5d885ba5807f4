// Alternatives and a target prefix in the WebAssembly translator: the same as native `attend translate --json
// --alternatives --prefix` on a shipped model (tokens exactly, probabilities within float rounding), the prefix at
// the start of the translation, and every bad prefix refused with an error that names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nativeBin, requireFile, root } from './lib/paths.mjs';
import { Attend } from '../../wasm/attend.js';

const modelFile = path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors');
const modelBytes = new Uint8Array(fs.readFileSync(modelFile));
const sentences = ['A dog runs on the beach.', 'Two young girls are playing in the park.'];

function native(text, args) {
  const r = spawnSync(requireFile(nativeBin('attend')), ['translate', '-m', modelFile, '-t', text, '--json', ...args],
    { env: { ...process.env, OMP_WAIT_POLICY: 'passive' } });
  assert.equal(r.status, 0, r.stderr.toString());
  return JSON.parse(r.stdout.toString('utf8'));
}

// Native and wasm alternatives: the same tokens, probabilities within what another instruction set rounds.
function assertSameAlternatives(wasm, nat, where) {
  assert.equal(wasm.length, nat.length, `${where}: positions`);
  wasm.forEach((a, t) => {
    assert.equal(a.token, nat[t].token, `${where}: token ${t}`);
    assert.deepEqual(a.tokens, nat[t].tokens, `${where}: alternatives of token ${t}`);
    assert.ok(Math.abs(a.probability - nat[t].probability) <= 1e-5, `${where}: probability of token ${t}`);
    a.probabilities.forEach((p, j) => assert.ok(Math.abs(p - nat[t].probabilities[j]) <= 1e-5,
      `${where}: probability of alternative ${j} of token ${t}: ${p} vs ${nat[t].probabilities[j]}`));
  });
}

for (const beam of [1, 5]) {
  test(`beam ${beam}: wasm gives native's alternatives, and its translation from a chosen one`, async () => {
    const t = await Attend.load(modelBytes);
    for (const text of sentences) {
      const first = await t.translate(text, { beam, alternatives: 5, attention: false });
      const nat = native(text, ['-b', String(beam), '--alternatives', '5']);
      assert.deepEqual(first.targetTokens, nat.tokens);
      assertSameAlternatives(first.alternatives, nat.alternatives, text);
      for (const a of first.alternatives) {
        assert.equal(a.tokens.length, 5);
        assert.ok(a.probabilities.every((p, j) => p > 0 && p <= 1 && (j === 0 || p <= a.probabilities[j - 1])));
        assert.ok(a.probabilities.reduce((s, p) => s + p, 0) <= 1 + 1e-5);
        if (beam === 1) assert.equal(a.tokens[0], a.token, 'greedy search writes the most probable token');
      }

      // The user keeps the first two tokens and picks the second alternative of the third.
      const choice = first.alternatives[2].tokens.find((x, j) => j > 0 && x !== '<eos>');
      const targetPrefix = [first.alternatives[0].token, first.alternatives[1].token, choice];
      const again = await t.translate(text, { beam, alternatives: 5, targetPrefix, attention: false });
      assert.deepEqual(again.targetTokens.slice(0, 3), targetPrefix, `${text}: the translation keeps the prefix`);
      const natAgain = native(text, ['-b', String(beam), '--alternatives', '5', '--prefix', targetPrefix.join(' ')]);
      assert.deepEqual(again.targetTokens, natAgain.tokens);
      assert.equal(again.text, natAgain.text);
      assertSameAlternatives(again.alternatives, natAgain.alternatives, `${text} from ${choice}`);
    }
    t.dispose();
  });
}

test('translateDocument begins the first sentence with the prefix; the others are translated as they are', async () => {
  const t = await Attend.load(modelBytes);
  const doc = await t.translateDocument(sentences.join(' '), { beam: 5, targetPrefix: ['Zwei', 'Hunde'], attention: false });
  assert.equal(doc.sentences.length, 2);
  assert.deepEqual(doc.sentences[0].targetTokens.slice(0, 2), ['Zwei', 'Hunde']);
  assert.match(doc.text, /^Zwei Hunde /);
  const second = await t.translate(sentences[1], { beam: 5, attention: false });
  assert.deepEqual(doc.sentences[1].targetTokens, second.targetTokens);
  assert.equal(doc.sentences[0].alternatives, undefined, 'no alternatives unless asked for');
  t.dispose();
});

test('a bad prefix or alternatives count is refused with an error that names it', async () => {
  const t = await Attend.load(modelBytes);
  const text = sentences[0];
  await assert.rejects(t.translate(text, { targetPrefix: 'Ein Hund' }), { name: 'TypeError', message: /option targetPrefix must be an array of target tokens/ });
  await assert.rejects(t.translate(text, { targetPrefix: ['Ein', 7] }), { name: 'TypeError', message: /option targetPrefix\[1\] must be a target token/ });
  await assert.rejects(t.translate(text, { targetPrefix: ['Ein', ''] }), { name: 'TypeError', message: /option targetPrefix\[1\] must be a target token/ });
  await assert.rejects(t.translate(text, { targetPrefix: ['Ein', 'Hu\uD800nd'] }), /option targetPrefix\[1\] is not well-formed Unicode: a lone surrogate U\+D800 at index 2/);
  await assert.rejects(t.translate(text, { targetPrefix: ['Ein', 'Hnudxq'] }), /target prefix token 2, "Hnudxq", is not in the model's target vocabulary/);
  await assert.rejects(t.translate(text, { targetPrefix: ['Ein', '<eos>'] }), /target prefix token 2 is <eos>, which ends a translation/);
  await assert.rejects(t.translate(text, { targetPrefix: new Array(40).fill('Hund') }), /the target prefix is 40 tokens long; this translation may be at most \d+ tokens long/);
  await assert.rejects(t.translate(text, { targetPrefix: new Array(5000).fill('Hund') }), /the target prefix is 5000 tokens long; at most 4095 are allowed/);
  await assert.rejects(t.translate(text, { alternatives: 101 }), { name: 'RangeError', message: 'option alternatives must be between 0 and 100, got 101' });
  await assert.rejects(t.translate(text, { alternatives: 2.5 }), { name: 'RangeError', message: 'option alternatives must be a whole number, got 2.5' });
  // A prefix that is fine still translates after all that.
  const r = await t.translate(text, { beam: 1, targetPrefix: ['Ein'], attention: false });
  assert.equal(r.targetTokens[0], 'Ein');
  t.dispose();
});

test('attend translate refuses a prefix the model cannot write before it translates anything', () => {
  for (const prefix of ['Ein Hnudxq', 'Ein <eos>']) {
    const r = spawnSync(requireFile(nativeBin('attend')), ['translate', '-m', modelFile, '--prefix', prefix],
      { input: `${sentences.join('\n')}\n`, env: { ...process.env, OMP_WAIT_POLICY: 'passive' } });
    assert.equal(r.status, 1, r.stderr.toString());
    assert.equal(r.stdout.toString(), '');
    assert.match(r.stderr.toString(), /--prefix: token 2, "(Hnudxq|<eos>)", is not a token the model's target vocabulary can begin a translation with/);
  }
  const r = spawnSync(requireFile(nativeBin('attend')), ['translate', '-m', modelFile, '--alternatives', '101', '-t', 'A dog.']);
  assert.equal(r.status, 1);
  assert.match(r.stderr.toString(), /alternatives must be between 0 and 100, got 101/);
});
