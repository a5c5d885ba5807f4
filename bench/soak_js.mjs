// Soak of the JS API: N translate() calls (default 10,000) on one translator, a random share of them aborted by
// their signal before or while they wait, with the process's RSS and the module's WebAssembly memory printed every
// 1,000 calls. A leak shows as a column that keeps growing; the last line says how many calls were translated,
// aborted and failed.
//   node bench/soak_js.mjs [calls] [model]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Attend } from '../wasm/attend.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const calls = Number(process.argv[2] ?? 10000);
const model = process.argv[3] ?? path.join(root, 'web/models/multi30k-en-de-cased.safetensors');
const sentences = fs.readFileSync(path.join(root, 'tests/fixtures/text/two_lines.en.txt'), 'utf8').split('\n').filter(Boolean);
const words = ['dog', 'man', 'woman', 'child', 'bicycle', 'street', 'beach', 'ball', 'red', 'runs', 'sits', 'plays'];
let seed = 1;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const sentence = () => (random() < 0.2 ? sentences[Math.floor(random() * sentences.length)]
  : `A ${words[Math.floor(random() * words.length)]} ${words[Math.floor(random() * words.length)]} near the ${words[Math.floor(random() * 6)]}.`);

const t = await Attend.load(model);
const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
console.log('calls   translated  aborted  failed  rss_MB  wasm_heap_MB');
const counts = { translated: 0, aborted: 0, failed: 0 };
const started = performance.now();
for (let done = 0; done < calls; done += 100) {
  // 100 calls at once, some aborted at random moments while they queue.
  const batch = [];
  for (let i = 0; i < 100 && done + i < calls; i++) {
    const controller = random() < 0.3 ? new AbortController() : null;
    if (controller) setTimeout(() => controller.abort(), Math.floor(random() * 50));
    batch.push(t.translate(sentence(), { beam: random() < 0.5 ? 1 : 3, attention: random() < 0.2, signal: controller?.signal })
      .then(() => counts.translated++, (e) => (e?.name === 'AbortError' ? counts.aborted++ : (counts.failed++, console.error(e.message)))));
  }
  await Promise.all(batch);
  if ((done + 100) % 1000 === 0 || done + 100 >= calls) {
    console.log(`${String(Math.min(done + 100, calls)).padStart(5)}  ${String(counts.translated).padStart(10)}  ${String(counts.aborted).padStart(7)}  ${String(counts.failed).padStart(6)}  ${mb(process.memoryUsage().rss).padStart(6)}  ${mb(t.heapBytes()).padStart(12)}`);
  }
}
console.log(`${calls} calls in ${((performance.now() - started) / 1000).toFixed(1)} s: ${counts.translated} translated, ${counts.aborted} aborted, ${counts.failed} failed`);
t.dispose();
process.exit(counts.failed > 0 ? 1 : 0);
