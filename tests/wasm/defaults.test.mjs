// The translation defaults have one source, the core's TranslationOptions (include/attend/translation.h): the
// typings (attend.d.ts), attend.js's own comment and the demo's beam box state the same values, and a translation
// with no options is the one with those values given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/paths.mjs';
import { smallModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
const translator = await Attend.load(new Uint8Array(fs.readFileSync(smallModel('f32'))));
// A field's JavaScript name, as the core's option table gives it (null: not an option of the JavaScript API).
const jsName = Object.fromEntries(translator.optionTable().map((row) => [row.field, row.name]));
translator.dispose();
const camel = (field) => jsName[field] ?? null;

// The fields of TranslationOptions with their initializers, by their JavaScript names (those the API takes).
function coreDefaults() {
  const header = read('include/attend/translation.h');
  const body = header.match(/struct TranslationOptions \{([\s\S]*?)\n\};/)[1];
  const out = {};
  for (const [, , name, value] of body.matchAll(/^\s*(int|float|bool)\s+(\w+)\s*=\s*([^;]+);/gm)) {
    if (!camel(name)) continue;
    out[camel(name)] = value === 'true' ? true : value === 'false' ? false : Number(value.replace(/f$/, ''));
  }
  return out;
}

const core = coreDefaults();
// The option the JavaScript API takes with its own default: attend.js returns the attention maps unless told not
// to, where the core's C++ callers ask for them.
const NOT_IN_JS = new Set(['attention']);

test('the core declares the defaults this test reads', () => {
  assert.equal(core.beam, 5);
  assert.equal(core.lengthPenalty, 0.6);
  assert.ok(Object.keys(core).length >= 10, Object.keys(core).join(', '));
});

test('attend.d.ts states each option\'s default as the core has it', () => {
  const dts = read('wasm/attend.d.ts');
  const options = dts.match(/export interface TranslateOptions \{([\s\S]*?)\n\}/)[1];
  const stated = {};
  for (const [, doc, name] of options.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+)\?:/g)) {
    const m = doc.match(/Default(?::.*?else)?\s+(true|false|-?\d+(?:\.\d+)?)/s);
    if (m) stated[name] = m[1] === 'true' ? true : m[1] === 'false' ? false : Number(m[1]);
  }
  for (const [name, value] of Object.entries(core)) {
    if (NOT_IN_JS.has(name)) continue;
    assert.ok(name in stated, `attend.d.ts states no default for ${name}`);
    assert.equal(stated[name], value, `attend.d.ts: ${name}`);
  }
  assert.equal(stated.attention, true);
});

test('attend.js\'s comment on translate() states the same defaults', () => {
  const js = read('wasm/attend.js');
  const comment = js.match(/\/\/ options \(each optional[\s\S]*?(?=\n\s*async translate\()/)[0].replace(/\n\s*\/\/\s*/g, ' ');
  for (const [name, value] of Object.entries(core)) {
    if (NOT_IN_JS.has(name)) continue;
    const m = comment.match(new RegExp(`\\b${name} \\((?:[^)]*?else )?(true|false|-?\\d+(?:\\.\\d+)?)`));
    assert.ok(m, `attend.js's comment states no default for ${name}`);
    assert.equal(m[1] === 'true' ? true : m[1] === 'false' ? false : Number(m[1]), value, `attend.js: ${name}`);
  }
});

test('the demo\'s beam box starts at the core\'s beam', () => {
  const html = read('web/index.html');
  assert.equal(Number(html.match(/<input id="beam-size"[^>]*\bvalue="(\d+)"/)[1]), core.beam);
});

test('a translation without options is the one with the core\'s defaults given', async () => {
  const t = await Attend.load(new Uint8Array(fs.readFileSync(smallModel('f32'))));
  const given = Object.fromEntries(Object.entries(core).filter(([name]) => !NOT_IN_JS.has(name)));
  // The length penalty is the model's own where its file has one.
  given.lengthPenalty = t.info().decoding.lengthPenaltyFromModel ? t.info().decoding.lengthPenalty : core.lengthPenalty;
  for (const text of ['A dog runs on the beach.', 'Two young men are playing soccer in a park near 42 trees.']) {
    const plain = await t.translate(text);
    const explicit = await t.translate(text, given);
    assert.equal(plain.text, explicit.text, text);
    assert.deepEqual(plain.targetTokens, explicit.targetTokens, text);
    assert.equal(plain.score, explicit.score, text);
    assert.ok(plain.attention?.cross, 'attention is returned by default');
  }
  t.dispose();
});
