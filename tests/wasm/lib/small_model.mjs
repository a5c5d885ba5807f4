// Small but real models for the wasm tests, trained once by the native trainer and exported. Cached in
// build/test-models/ and rebuilt when the attend binary is newer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, nativeBin, requireFile } from './paths.mjs';

const modelDir = path.join(root, 'build', 'test-models');

// Trains `attend train --out RUN ...trainArgs` and exports the newest checkpoint to MODEL, unless MODEL is
// already there and newer than the attend binary.
function cachedModel(runName, modelName, trainArgs, dtype) {
  const attend = requireFile(nativeBin('attend'));
  const run = path.join(modelDir, runName);
  const model = path.join(modelDir, modelName);
  const stale = !fs.existsSync(model) || fs.statSync(model).mtimeMs < fs.statSync(attend).mtimeMs;
  if (stale) {
    fs.rmSync(run, { recursive: true, force: true });
    fs.mkdirSync(modelDir, { recursive: true });
    execFileSync(attend, ['train', '--out', run, ...trainArgs], { stdio: 'pipe' });
    execFileSync(attend, ['export', run, '-o', model, '--dtype', dtype], { stdio: 'pipe' });
  }
  return model;
}

// A transformer trained for a few dozen steps on a slice of Multi30K en-de.
export function smallModel(dtype = 'f32') {
  return cachedModel('small-en-de-run', `small-en-de-${dtype}.safetensors`, ['--max-steps', '40', '--dim', '32',
    '--layers', '2', '--heads', '4', '--ffn', '64', '--bpe', '500', '--max-sentences', '2000', '--max-tokens', '1200',
    '--warmup', '10', '--lr', '0.005', '--dropout', '0', '--log-every', '1000'], dtype);
}

// A training preset run to the end on one thread (bahdanau-d2l: 250 epochs on 600 Tatoeba en-fr pairs, ~20 s).
export function presetModel(preset, dtype = 'f32') {
  const name = dtype === 'f32' ? preset : `${preset}-${dtype}`;
  return cachedModel(`${preset}-run`, `${name}.safetensors`, ['--preset', preset, '--threads', '1'], dtype);
}

// A Chinese -> English transformer on raw-text subwords (SentencePiece unigram, byte fallback), trained for a few
// dozen steps on the first 3,000 pairs of Tatoeba eng-cmn: the any-corpus path, from a TSV to a model file.
export function subwordModel(dtype = 'f32') {
  const dataDir = process.env.ATTEND_DATA || path.join(root, '..', 'shared', 'data');
  const tsv = path.join(modelDir, 'eng-cmn-3000.tsv');
  fs.mkdirSync(modelDir, { recursive: true });
  if (!fs.existsSync(tsv)) {
    const lines = execFileSync('bash', ['-c', `gzip -dc '${path.join(dataDir, 'tatoeba', 'eng-cmn.tsv.gz')}' | head -n 3000`]);
    fs.writeFileSync(tsv, lines);
  }
  return cachedModel('small-zh-en-run', `small-zh-en-${dtype}.safetensors`, ['--source', 'zh', '--target', 'en',
    '--train', `${tsv}:columns=2,1`, '--valid-size', '100', '--vocab-size', '1500', '--character-coverage', '0.99', '--max-steps', '40', '--dim', '32',
    '--layers', '2', '--heads', '4', '--ffn', '64', '--max-tokens', '1200', '--warmup', '10', '--lr', '0.005',
    '--dropout', '0', '--log-every', '1000', '--threads', '1'], dtype);
}

// bahdanau-d2l with a bidirectional encoder GRU (`--bidirectional`), 30 of its 250 epochs on one thread (~5 s).
export function bidirectionalBahdanauModel(dtype = 'f32') {
  return cachedModel('bahdanau-bi-run', `bahdanau-bi-${dtype}.safetensors`, ['--preset', 'bahdanau-d2l',
    '--bidirectional', '--epochs', '30', '--threads', '1'], dtype);
}
