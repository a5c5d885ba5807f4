// The npm package (wasm/package.json) from a bundler: a tiny app that imports `@attend/translator` by its package
// name is bundled with esbuild (resolved through the package's `exports`), its wasm assets are copied beside the
// bundle as the package ships them (`dist/`), and the bundled app, run in Node, loads a model and translates a
// sentence exactly as the unbundled module does. The browser bundles (main and worker entries) must build too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { dist, requireFile, root } from './lib/paths.mjs';
import { smallModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const pkgDir = path.join(root, 'wasm');
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const shipped = path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors');
const modelFile = fs.existsSync(shipped) ? shipped : smallModel('f32');
const sentence = 'A dog runs on the beach.';
const assets = ['simd', 'nosimd'].flatMap((v) => [`attend-core-${v}.mjs`, `attend-core-${v}.wasm`]);

// An app folder whose node_modules holds the package (a link to wasm/, as `npm install` of a local package makes).
function appFolder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-bundle-'));
  const scope = path.join(dir, 'node_modules', ...pkg.name.split('/').slice(0, -1));
  fs.mkdirSync(scope, { recursive: true });
  fs.symlinkSync(pkgDir, path.join(dir, 'node_modules', pkg.name), 'dir');
  return dir;
}

const app = `
import { Attend } from '${pkg.name}';
import fs from 'node:fs';
const t = await Attend.load(new Uint8Array(fs.readFileSync(process.argv[2])));
const r = await t.translate(process.argv[3], { beam: 1, attention: false });
console.log(JSON.stringify({ text: r.text, targetTokens: r.targetTokens, simd: t.info().simd ?? null }));
t.dispose();
`;

test('the package exports what bundlers resolve: the module, the worker client, the wasm assets', () => {
  assert.equal(pkg.exports['.'].default, './attend.js');
  assert.equal(pkg.exports['./worker'].default, './attend-client.js');
  assert.equal(pkg.exports['./dist/*'], './dist/*');
  for (const f of assets) requireFile(dist(f));
});

test('esbuild bundles an app importing the package; the bundle runs in Node and translates like the module', async () => {
  const dir = appFolder();
  try {
    fs.writeFileSync(path.join(dir, 'app.mjs'), app);
    const outfile = path.join(dir, 'out', 'app.mjs');
    const result = await build({
      absWorkingDir: dir, entryPoints: ['app.mjs'], bundle: true, format: 'esm', platform: 'node', outfile,
      logLevel: 'silent',
    });
    assert.deepEqual(result.errors, []);
    const bundle = fs.readFileSync(outfile, 'utf8');
    assert.ok(!bundle.includes(`from '${pkg.name}'`) && !bundle.includes(`from "${pkg.name}"`),
      'the package is bundled in, not left as an import');
    assert.match(bundle, /attend-core-/, 'the loader names its wasm assets');
    // The loader finds its assets next to the bundle, under dist/, as the package lays them out.
    fs.mkdirSync(path.join(dir, 'out', 'dist'));
    for (const f of assets) fs.copyFileSync(dist(f), path.join(dir, 'out', 'dist', f));
    const out = JSON.parse(execFileSync(process.execPath, [outfile, modelFile, sentence], { encoding: 'utf8' }));

    const t = await Attend.load(new Uint8Array(fs.readFileSync(modelFile)));
    const expected = await t.translate(sentence, { beam: 1, attention: false });
    t.dispose();
    assert.ok(out.text.length > 0);
    assert.equal(out.text, expected.text);
    assert.deepEqual(out.targetTokens, expected.targetTokens);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('esbuild bundles the module and the worker client for browsers', async () => {
  const dir = appFolder();
  try {
    fs.writeFileSync(path.join(dir, 'page.mjs'), `
import { Attend, simdSupported } from '${pkg.name}';
import { AttendWorker } from '${pkg.name}/worker';
globalThis.attend = { Attend, AttendWorker, simd: simdSupported() };
`);
    const result = await build({
      absWorkingDir: dir, entryPoints: ['page.mjs'], bundle: true, format: 'esm', platform: 'browser',
      outdir: path.join(dir, 'out'), logLevel: 'silent',
    });
    assert.deepEqual(result.errors, []);
    const bundle = fs.readFileSync(path.join(dir, 'out', 'page.js'), 'utf8');
    assert.match(bundle, /attend-core-/);
    assert.match(bundle, /attend-worker\.js/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
