// Where the test suites find the builds. `npm test` builds both trees before it runs them.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const nativeBin = (name) => path.join(root, 'build', 'bin', name);
export const dist = (name) => path.join(root, 'wasm', 'dist', name);

// A missing build is a failure with instructions, never a silent skip.
export function requireFile(file) {
  if (!fs.existsSync(file)) {
    throw new Error(`${path.relative(root, file)} is missing: build first (npm run build, or npm test which builds)`);
  }
  return file;
}
