// Loads one of the package's extra WebAssembly modules (dist/<name>-<variant>.{mjs,wasm}) once per variant, for
// attend-lab.js and attend-train.js: the glue imported and handed its wasm bytes, in browsers and in Node.

// Node built-ins are imported through a variable so that bundlers (esbuild, Vite, webpack) leave them alone:
// the Node-only path that reads local files never runs in a browser bundle.
const nodeImport = (specifier) => import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);

const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

async function wasmBytes(url) {
  if (isNode && url.protocol === 'file:') {
    const fs = await nodeImport('node:fs/promises');
    const { fileURLToPath } = await nodeImport('node:url');
    return new Uint8Array(await fs.readFile(fileURLToPath(url)));
  }
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`cannot download ${url.href}: ${e.message}`);
  }
  if (!response.ok) throw new Error(`cannot download ${url.href}: HTTP ${response.status} ${response.statusText}`.trim());
  return new Uint8Array(await response.arrayBuffer());
}

const modules = new Map();  // "name-variant" -> Promise<module>

// Emscripten's glue of a module with threads (variant '...-mt') reaches Node's built-ins through the CommonJS
// globals `require` and `__dirname`, which an ES module lacks: they are given to it, as a CommonJS script has them.
async function giveCommonJsGlobals(glue) {
  const { createRequire } = await nodeImport('node:module');
  const { fileURLToPath } = await nodeImport('node:url');
  const { dirname } = await nodeImport('node:path');
  globalThis.require ??= createRequire(glue);
  globalThis.__dirname ??= dirname(fileURLToPath(glue));
}

// name: 'attend-lab' or 'attend-train'; variant: 'simd', 'nosimd' or 'simd-mt' (threads: attend-train only, where
// SharedArrayBuffer exists). A failed load may be retried.
export function loadModule(name, variant) {
  const key = `${name}-${variant}`;
  if (!modules.has(key)) {
    const promise = (async () => {
      const glue = new URL(`./dist/${key}.mjs`, import.meta.url);
      const wasm = new URL(`./dist/${key}.wasm`, import.meta.url);
      const threads = variant.endsWith('-mt');
      if (threads && isNode) await giveCommonJsGlobals(glue);
      const [{ default: create }, wasmBinary] = await Promise.all([import(glue.href), wasmBytes(wasm)]);
      const m = await create({ wasmBinary, print: () => {}, printErr: () => {} });
      // The module's pool of threads (Node worker_threads) must not keep a Node process alive once it has nothing
      // else to do; a thread still runs while the process computes.
      if (threads && isNode) for (const w of [...m.PThread.unusedWorkers, ...m.PThread.runningWorkers]) w.unref?.();
      return m;
    })();
    promise.catch(() => modules.delete(key));
    modules.set(key, promise);
  }
  return modules.get(key);
}
