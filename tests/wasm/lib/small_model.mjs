// A small but real model for the wasm tests: trained for a few dozen steps by the native trainer on a slice of
// Multi30K en-de, then exported. Cached in build/test-models/ and rebuilt when the attend binary is newer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, nativeBin, requireFile } from './paths.mjs';

export function smallModel(dtype = 'f32') {
  const attend = requireFile(nativeBin('attend'));
  const dir = path.join(root, 'build', 'test-models');
  const run = path.join(dir, 'small-en-de-run');
  const model = path.join(dir, `small-en-de-${dtype}.safetensors`);
  const stale = !fs.existsSync(model) || fs.statSync(model).mtimeMs < fs.statSync(attend).mtimeMs;
  if (stale) {
    fs.rmSync(run, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    execFileSync(attend, ['train', '--out', run, '--max-steps', '40', '--dim', '32', '--layers', '2', '--heads', '4',
      '--ffn', '64', '--bpe', '500', '--max-sentences', '2000', '--max-tokens', '1200', '--warmup', '10',
      '--lr', '0.005', '--dropout', '0', '--log-every', '1000'], { stdio: 'pipe' });
    execFileSync(attend, ['export', run, '-o', model, '--dtype', dtype], { stdio: 'pipe' });
  }
  return model;
}
