// The hostile inputs (tests/data/hostile_inputs.txt) through every shipped model in WebAssembly give exactly the
// tokens native `attend translate` gives, with the default options (the repetition and length limits included).
// `attend translate` splits each line into sentences, so the wasm side is translateDocument of the line;
// tests/native/test_hostile_inputs.cpp checks that those outputs never run away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nativeBin, requireFile, root } from './lib/paths.mjs';
import { Attend } from '../../wasm/attend.js';

const inputFile = path.join(root, 'tests', 'data', 'hostile_inputs.txt');
const inputs = fs.readFileSync(inputFile, 'utf8').split('\n').slice(0, -1);
const models = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models;

for (const entry of models) {
  test(`${entry.id}: ${inputs.length} hostile inputs, the same tokens in WebAssembly as natively`, async () => {
    const file = path.join(root, 'web', 'models', entry.file);
    const run = spawnSync(requireFile(nativeBin('attend')), ['translate', '-m', file, '-i', inputFile, '--json'],
      { env: { ...process.env, OMP_WAIT_POLICY: 'passive' }, maxBuffer: 1 << 26 });
    const native = run.stdout.toString('utf8').split('\n').slice(0, -1).map((l) => JSON.parse(l));
    assert.equal(native.length, inputs.length);
    // Exit status 3: some line was truncated (the 300-word ones) or cut, each named in a warning.
    assert.equal(run.status, native.some((r) => r.warnings.length > 0) ? 3 : 0, run.stderr.toString());
    const t = await Attend.load(new Uint8Array(fs.readFileSync(file)));
    for (let i = 0; i < inputs.length; i++) {
      const d = await t.translateDocument(inputs[i], { attention: false });
      const several = d.sentences.length > 1;  // then the CLI names the sentence of each warning
      assert.deepEqual(d.sentences.flatMap((s) => s.targetTokens), native[i].tokens, `line ${i + 1}: ${inputs[i]}`);
      assert.equal(d.text, native[i].text, `line ${i + 1}`);
      assert.deepEqual(d.sentences.flatMap((s, k) => s.warnings.map((w) => (several ? `sentence ${k + 1}: ${w}` : w))),
        native[i].warnings, `line ${i + 1}`);
    }
    t.dispose();
  });
}
