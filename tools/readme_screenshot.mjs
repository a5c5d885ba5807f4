// The README's picture of seed 003's sentence: the demo page with the shipped zh→en model, 我喜欢吃鱼 translated
// (beam 5) and its cross attention (the last layer, the mean of its heads: the page's first view) drawn, cut to the attention panel.
//   node tools/readme_screenshot.mjs [out.png]      (default docs/images/zh-cross-attention.png; needs the wasm build)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/browser/lib/server.mjs';
import { launch } from '../tests/browser/lib/browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? path.join(root, 'docs', 'images', 'zh-cross-attention.png');
const server = await serve(root);
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const query = `?sw=0&model=tatoeba-zh-en&beam=5&text=${encodeURIComponent('我喜欢吃鱼')}`;
  await page.goto(`${server.url}/web/index.html${query}`);
  await page.waitForFunction(() => document.body.dataset.translateState === 'done', null, { timeout: 120000 });
  await page.selectOption('#map-kind', 'cross');
  await page.waitForTimeout(500);
  console.log('output:', await page.textContent('#output-text'));
  await page.locator('#attention-panel').screenshot({ path: out });
  console.log('wrote', out);
} finally {
  await browser.close();
  await server.close();
}
