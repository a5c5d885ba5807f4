// The package's typings against its modules: each entry of wasm/package.json's exports that names types points at
// a .d.ts that declares every value the module exports, and every public method, static method and instance field
// of its classes (a class's instance fields are read from an instance where one can be made here). No TypeScript
// compiler is installed: the declarations are read as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/paths.mjs';
import { smallModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const pkgDir = path.join(root, 'wasm');
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));

// The members a class body in a .d.ts declares: `name(`, `name?:`, `name:`, `static name(`, `readonly name:`.
function declaredMembers(dts, className) {
  const body = dts.match(new RegExp(`export declare class ${className}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`))?.[1];
  assert.ok(body, `no class ${className} declared`);
  const plain = body.replace(/\/\*\*[\s\S]*?\*\//g, '');
  return new Set([...plain.matchAll(/^\s*(?:static\s+)?(?:readonly\s+)?(\w+)\??\s*[(:<]/gm)].map((m) => m[1]));
}

const runtimeMembers = (cls, instance) => [
  ...Object.getOwnPropertyNames(cls.prototype).filter((n) => n !== 'constructor'),
  ...Object.getOwnPropertyNames(cls).filter((n) => !['length', 'name', 'prototype'].includes(n)),
  ...(instance ? Object.keys(instance) : []),
];

test('every typed export of the package declares what its module exports', async () => {
  const typed = Object.entries(pkg.exports).filter(([, target]) => typeof target === 'object' && target.types);
  assert.deepEqual(typed.map(([name]) => name).sort(), ['.', './lab', './train', './worker']);
  for (const [name, { types, default: file }] of typed) {
    const dts = fs.readFileSync(path.join(pkgDir, types), 'utf8');
    const mod = await import(path.join(pkgDir, file));
    for (const exported of Object.keys(mod)) {
      if (exported === 'default') {
        assert.match(dts, /^export default \w+;/m, `${types}: no default export`);
        continue;
      }
      assert.match(dts, new RegExp(`^export declare (?:class|const|function) ${exported}\\b`, 'm'), `${types} (${name}) does not declare ${exported}`);
    }
  }
});

// Node has no Web Worker: a stand-in that takes messages and does nothing lets the client be constructed, so
// that its instance fields can be listed.
function withStandInWorker(make) {
  const had = 'Worker' in globalThis;
  const saved = globalThis.Worker;
  globalThis.Worker = class { postMessage() {} terminate() {} };
  try {
    return make();
  } finally {
    if (had) globalThis.Worker = saved; else delete globalThis.Worker;
  }
}

test('the classes\' typings declare each public method and field', async () => {
  const { AttendTranslator, AttendLanguageModel } = await import('../../wasm/attend.js');
  const { AttendWorker } = await import('../../wasm/attend-client.js');
  const { AttendLab } = await import('../../wasm/attend-lab.js');
  const { AttendTrainer, AttendLmTrainer } = await import('../../wasm/attend-train.js');
  const trainer = await AttendTrainer.create('bahdanau-d2l', [['go .', 'va !']], { validPairs: 0 });
  const lmTrainer = await AttendTrainer.createLanguageModel('rnn-d2l', 'the time traveller '.repeat(100));
  const translator = await Attend.load(new Uint8Array(fs.readFileSync(smallModel('f32'))));
  const lab = await AttendLab.load();
  const languageModel = await Attend.loadLanguageModel(new Uint8Array(fs.readFileSync(path.join(root, 'web/models/lm/gru-d2l.safetensors'))));
  const cases = [
    ['attend.d.ts', AttendTranslator, translator],
    ['attend.d.ts', AttendLanguageModel, languageModel],
    ['attend-client.d.ts', AttendWorker, withStandInWorker(() => new AttendWorker())],
    ['attend-lab.d.ts', AttendLab, lab],
    ['attend-train.d.ts', AttendTrainer, trainer],
    ['attend-train.d.ts', AttendLmTrainer, lmTrainer],
  ];
  for (const [file, cls, instance] of cases) {
    const declared = declaredMembers(fs.readFileSync(path.join(pkgDir, file), 'utf8'), cls.name);
    const missing = runtimeMembers(cls, instance).filter((n) => !declared.has(n));
    assert.deepEqual(missing, [], `${file}: ${cls.name} members without a declaration`);
  }
  translator.dispose();
  languageModel.dispose();
  trainer.dispose();
  lmTrainer.dispose();
});
