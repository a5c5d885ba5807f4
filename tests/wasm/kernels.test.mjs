// The same kernel cases run natively and in WebAssembly (SIMD and non-SIMD builds) must agree.
// tests/wasm/kernel_cases.cpp prints one line per case: `<name> <n> <v0> <v1> ...`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeBin, dist, requireFile } from './lib/paths.mjs';

// Tolerance: |wasm - native| <= 1e-5 * max(|native|, scale), where scale is the largest magnitude in that case.
// The scale floor keeps near-zero entries (e.g. probabilities of 1e-30) from demanding more than float32 gives;
// WebAssembly has no FMA and a different exp, so bit equality is not expected.
const REL_TOL = 1e-5;

function runCases(cmd, args) {
  const out = execFileSync(cmd, args, { maxBuffer: 64 << 20, encoding: 'utf8' });
  const cases = new Map();
  for (const line of out.split('\n')) {
    if (!line.trim()) continue;
    const [name, n, ...values] = line.trim().split(/\s+/);
    assert.equal(values.length, Number(n), `case ${name}: printed ${values.length} values, announced ${n}`);
    cases.set(name, values.map(Number));
  }
  return cases;
}

function compare(native, wasm, label) {
  assert.ok(native.size > 0, 'native kernel_cases printed no case');
  assert.deepEqual([...wasm.keys()], [...native.keys()], `${label}: the case lists differ`);
  let worst = { rel: 0 };
  for (const [name, ref] of native) {
    const got = wasm.get(name);
    assert.equal(got.length, ref.length, `${label} ${name}: length`);
    const scale = ref.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    for (let i = 0; i < ref.length; i++) {
      assert.ok(Number.isFinite(ref[i]), `native ${name}[${i}] is ${ref[i]}`);
      assert.ok(Number.isFinite(got[i]), `${label} ${name}[${i}] is ${got[i]}`);
      const denom = Math.max(Math.abs(ref[i]), scale, 1e-30);
      const rel = Math.abs(got[i] - ref[i]) / denom;
      if (rel > worst.rel) worst = { rel, name, i, ref: ref[i], got: got[i] };
      assert.ok(rel <= REL_TOL,
        `${label} ${name}[${i}]: wasm ${got[i]} vs native ${ref[i]} (relative ${rel.toExponential(2)} > ${REL_TOL})`);
    }
  }
  return worst;
}

const native = runCases(requireFile(nativeBin('kernel_cases')), []);

for (const variant of ['simd', 'nosimd']) {
  test(`wasm ${variant} kernels match native on every case`, () => {
    const wasm = runCases(process.execPath, [requireFile(dist(`kernel_cases_${variant}.cjs`))]);
    const worst = compare(native, wasm, variant);
    console.log(`# ${variant}: ${native.size} cases, worst relative difference ${worst.rel.toExponential(2)}` +
      (worst.name ? ` (${worst.name}[${worst.i}])` : ''));
  });
}

// The .cjs runners embed their wasm as base64 (-sSINGLE_FILE); take it out and disassemble it.
function disassemble(cjsFile) {
  const source = fs.readFileSync(cjsFile, 'utf8');
  const match = source.match(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/);
  assert.ok(match, `${cjsFile} has no embedded wasm`);
  const wasmFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attend-')), 'module.wasm');
  fs.writeFileSync(wasmFile, Buffer.from(match[1], 'base64'));
  return execFileSync('wasm-dis', [wasmFile], { maxBuffer: 256 << 20, encoding: 'utf8' });
}

test('the SIMD build contains f32x4 instructions and the fallback none', () => {
  const simd = (disassemble(requireFile(dist('kernel_cases_simd.cjs'))).match(/f32x4/g) || []).length;
  const plain = (disassemble(requireFile(dist('kernel_cases_nosimd.cjs'))).match(/v128|f32x4/g) || []).length;
  console.log(`# f32x4 instructions: simd build ${simd}, fallback build ${plain} SIMD instructions`);
  assert.ok(simd > 100, `SIMD build has only ${simd} f32x4 instructions`);
  assert.equal(plain, 0, 'the non-SIMD build contains SIMD instructions');
});
