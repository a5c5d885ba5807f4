// Seed 003's sentence in the page's translator: 我喜欢吃鱼 ("I like eating fish", in no line of eng-cmn) through the
// shipped zh→en model in WebAssembly (SIMD and plain) says it likes fish, and "fish" attends most to 鱼, in the last
// layer's mean over heads and in the mean of every layer and head (what the page draws first); the tokens are the
// native CLI's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { nativeBin, requireFile, root } from './lib/paths.mjs';
import { Attend } from '../../wasm/attend.js';

const file = path.join(root, 'web', 'models', 'tatoeba-zh-en.safetensors');
const sentence = '我喜欢吃鱼';

// The source token with the largest mean weight from `row` over the layers from `firstLayer` on.
function strongest(maps, sourceTokens, row, firstLayer) {
  const [layers, heads, rows, cols] = maps.shape;
  const mean = new Array(cols).fill(0);
  for (let l = firstLayer; l < layers; l++)
    for (let h = 0; h < heads; h++)
      for (let c = 0; c < cols; c++) mean[c] += maps.data[((l * heads + h) * rows + row) * cols + c];
  return sourceTokens[mean.indexOf(Math.max(...mean))];
}

for (const simd of [true, false]) {
  test(`tatoeba-zh-en (${simd ? 'SIMD' : 'plain'}): ${sentence} likes fish, "fish" attends to 鱼, tokens as native`, async () => {
    const t = await Attend.load(new Uint8Array(fs.readFileSync(requireFile(file))), { simd });
    for (const beam of [1, 5]) {
      const r = await t.translate(sentence, { beam });
      assert.match(r.text, /like/, r.text);
      assert.match(r.text, /fish/, r.text);
      const row = r.targetTokens.findIndex((tok) => tok.includes('fish'));
      assert.ok(row >= 0, r.targetTokens.join(' '));
      const cross = r.attention.cross;
      assert.equal(cross.shape[2], r.targetTokens.length);
      assert.equal(cross.shape[3], r.sourceTokens.length);
      assert.equal(strongest(cross, r.sourceTokens, row, cross.shape[0] - 1), '鱼');
      assert.equal(strongest(cross, r.sourceTokens, row, 0), '鱼');
      const run = spawnSync(requireFile(nativeBin('attend')), ['translate', '-m', file, '-b', String(beam), '--json'],
        { input: `${sentence}\n`, env: { ...process.env, OMP_WAIT_POLICY: 'passive' } });
      assert.equal(run.status, 0, run.stderr.toString());
      assert.deepEqual(r.targetTokens, JSON.parse(run.stdout.toString()).tokens);
    }
    t.dispose?.();
  });
}
