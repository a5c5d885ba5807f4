// Native `attend translate` as the reference for the wasm translator, and the comparison of attention maps.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeBin, requireFile } from './paths.mjs';

// Translates SENTENCES with `attend translate --attention` and returns the JSON's per-sentence records
// ({ text, source_tokens, target_tokens, cross, encoder_self, decoder_self }), in input order.
export function nativeTranslations(modelFile, sentences, { beam = 5, lengthPenalty = 0.6, maxLength = 0, threads } = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-native-'));
  try {
    const input = path.join(tmp, 'input.txt');
    const maps = path.join(tmp, 'attention.json');
    fs.writeFileSync(input, sentences.join('\n') + '\n');
    const args = ['translate', '-m', modelFile, '-i', input, '-b', String(beam), '--length-penalty', String(lengthPenalty),
      '--attention', maps];
    if (maxLength) args.push('--max-length', String(maxLength));
    if (threads) args.push('--threads', String(threads));
    execFileSync(requireFile(nativeBin('attend')), args, { stdio: 'pipe' });
    const out = JSON.parse(fs.readFileSync(maps, 'utf8')).sentences;
    assert.equal(out.length, sentences.length, 'native translated every sentence');
    return out;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// Largest absolute difference between a native map ({ layers, heads, rows, cols, data }) and a wasm one
// ({ shape, data }), after checking that they have the same shape.
export function maxDifference(native, wasm) {
  assert.equal(wasm.data.length, native.data.length);
  assert.deepEqual(wasm.shape, [native.layers, native.heads, native.rows, native.cols]);
  let worst = 0;
  for (let i = 0; i < native.data.length; i++) worst = Math.max(worst, Math.abs(native.data[i] - wasm.data[i]));
  return worst;
}
