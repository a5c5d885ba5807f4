// attend.d.ts against the core's option table as the module reports it (optionTable(); core/translate/
// option_table.cpp, the table `attend translate` and `attend eval` take their flags from): every TranslateOptions
// member is a row, with the documented default, range and type the row's; optionBounds() and defaultOptions() are
// the table's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib/paths.mjs';
import { smallModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const NUMBER = String.raw`-?\d+(?:\.\d+)?(?:e[+-]?\d+)?`;

// TranslateOptions' members as attend.d.ts documents them: { name: { type, default, range } }.
function documentedOptions() {
  const dts = fs.readFileSync(path.join(root, 'wasm/attend.d.ts'), 'utf8');
  const body = dts.match(/export interface TranslateOptions \{([\s\S]*?)\n\}/)[1];
  const out = {};
  for (const [, doc, name, type] of body.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+)\?:\s*([^;]+);/g)) {
    const text = doc.replace(/\n\s*\*/g, ' ');
    const byDefault = text.match(new RegExp(`Default(?::.*?else)?\\s+(true|false|${NUMBER})`, 's'));
    const range = text.match(new RegExp(`Range (above )?(${NUMBER})\\.\\.(${NUMBER})\\.`));
    out[name] = {
      type: type.trim(),
      default: byDefault ? (byDefault[1] === 'true' ? true : byDefault[1] === 'false' ? false : Number(byDefault[1])) : undefined,
      modelDefault: /Default: the model's own/.test(text),
      range: range ? { min: Number(range[2]), max: Number(range[3]), aboveMin: Boolean(range[1]) } : undefined,
    };
  }
  return out;
}

const documented = documentedOptions();
const t = await Attend.load(new Uint8Array(fs.readFileSync(smallModel('f32'))));
const table = t.optionTable();

test('the module reports the option table: each row named, typed and bounded', () => {
  assert.ok(table.length >= 19, `${table.length} rows`);
  for (const row of table) {
    assert.match(row.name, /^[a-z][A-Za-z]+$/);
    assert.match(row.field, /^[a-z_]+$/);
    assert.ok(['integer', 'number', 'boolean'].includes(row.type), row.name);
    assert.ok(row.help.length > 10, row.name);
    if (row.type === 'boolean') {
      assert.equal(typeof row.default, 'boolean', row.name);
      continue;
    }
    assert.ok(row.min < row.max, row.name);
    assert.ok(row.default <= row.max && (row.aboveMin ? row.default > row.min : row.default >= row.min), row.name);
  }
  assert.equal(table.find((r) => r.name === 'beam').flag, '--beam');
  assert.equal(table.find((r) => r.name === 'attention').flag, null);
});

test('attend.d.ts documents every option of the table and no other', () => {
  const names = Object.keys(documented).filter((n) => n !== 'signal' && n !== 'targetPrefix');
  assert.deepEqual(new Set(names), new Set(table.map((r) => r.name)));
});

test('attend.d.ts states each option\'s default, range and type as the table has them', () => {
  for (const row of table) {
    const doc = documented[row.name];
    assert.ok(doc, `attend.d.ts has no ${row.name}`);
    assert.equal(doc.type, row.type === 'boolean' ? 'boolean' : 'number', `${row.name}: type`);
    assert.notEqual(doc.default, undefined, `${row.name}: attend.d.ts states no default`);
    // A float's default is as float stores it (0.6 as 0.6000000238...).
    assert.equal(row.type === 'number' ? Math.fround(doc.default) : doc.default, row.default, `${row.name}: default`);
    assert.equal(doc.modelDefault, row.modelDefault, `${row.name}: the model's own default`);
    if (row.type === 'boolean') {
      assert.equal(doc.range, undefined, `${row.name}: a boolean has no range`);
      continue;
    }
    assert.deepEqual(doc.range, { min: row.min, max: row.max, aboveMin: row.aboveMin }, `${row.name}: range`);
  }
});

test('optionBounds() and defaultOptions() are the table\'s', () => {
  const numbers = table.filter((r) => r.type !== 'boolean');
  assert.deepEqual(t.optionBounds(), Object.fromEntries(numbers.map((r) =>
    [r.name, { min: r.min, max: r.max, integer: r.type === 'integer', aboveMin: r.aboveMin }])));
  const defaults = t.defaultOptions();
  assert.deepEqual(new Set(Object.keys(defaults)), new Set(table.map((r) => r.name)));
  for (const row of table) {
    if (row.modelDefault) continue;  // the model file's own where it names one
    assert.equal(defaults[row.name], row.default, row.name);
  }
  // The table is the module's own: a copy the caller changes does not change it.
  t.optionTable()[0].max = -1;
  assert.equal(t.optionTable()[0].max, table[0].max);
});

test('a boolean option of the table takes only true or false', async () => {
  for (const row of table.filter((r) => r.type === 'boolean')) {
    await assert.rejects(t.translate('A dog.', { [row.name]: 1 }), new RegExp(`option ${row.name} must be true or false`));
  }
});
