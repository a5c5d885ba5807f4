// Paragraphs in the demo: the page translates with translateDocument, so the output is the whole text, lines
// kept, exactly what the library gives in Node for the same model and options; the word lines and the attention
// views show one sentence at a time, chosen from a menu or by clicking it in the translation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';
import { Attend } from '../../wasm/attend.js';
import { tokenLabels, wordsOf } from '../../web/tokens.js';

const modelFile = requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const { server, browser, artifacts } = await startSession(root);

const demo = (query) => demoUrl(server, query);
const state = waitForState;

const translate = translateOnPage;

// What the page shows for one sentence: its output words, and the heatmap's rows and columns.
async function shownSentence(page) {
  return {
    words: await page.locator('#target-words .word').allTextContents(),
    sourceWords: await page.locator('#source-words .word').allTextContents(),
    rowLabels: JSON.parse(await page.getAttribute('#heatmap', 'data-row-labels')),
    colLabels: JSON.parse(await page.getAttribute('#heatmap', 'data-col-labels')),
  };
}
const expectedSentence = (s) => ({
  words: wordsOf(s.targetTokens).map((w) => w.text),
  sourceWords: wordsOf(s.sourceTokens).map((w) => w.text),
  rowLabels: tokenLabels(s.targetTokens),
  colLabels: tokenLabels(s.sourceTokens),
});

test('a paragraph translates sentence by sentence, lines kept; the attention views follow the chosen sentence', async () => {
  const text = 'A dog runs on the beach. Two young men are playing soccer in a park.\n\nA little girl is climbing a wooden staircase.';
  const engine = await Attend.load(new Uint8Array(fs.readFileSync(modelFile)));
  const want = await engine.translateDocument(text, { beam: 2, attention: true });
  engine.dispose();
  assert.equal(want.sentences.length, 3);
  assert.deepEqual(want.sentences.map((s) => s.line), [0, 0, 2]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(demo('&model=multi30k-en-de-cased'));
  await state(page, 'modelState', 'ready');

  // One sentence: no sentence menu.
  await translate(page, 'A dog runs on the beach.');
  assert.equal(await page.isVisible('#sentence-choice'), false);

  const output = await translate(page, text);
  assert.equal(output, want.text);
  assert.match(output, /\n\n/);
  assert.equal(await page.isVisible('#sentence-choice'), true);
  assert.equal(await page.locator('#sentence-select option').count(), 3);
  assert.deepEqual(await page.locator('#output-text .sentence').allTextContents(), want.sentences.map((s) => s.placedText));
  assert.match(await page.textContent('#output-timing'), /3 sentences; sentence 1: /);
  assert.equal(new URL(page.url()).searchParams.get('text'), text);

  // The first sentence is shown first; the menu and a click on the translation choose another.
  assert.equal(await page.inputValue('#sentence-select'), '0');
  assert.deepEqual(await shownSentence(page), expectedSentence(want.sentences[0]));
  await page.selectOption('#sentence-select', '2');
  assert.deepEqual(await shownSentence(page), expectedSentence(want.sentences[2]));
  assert.match(await page.textContent('#output-timing'), /sentence 3: /);
  assert.equal(await page.getAttribute('#output-text .sentence >> nth=2', 'class'), 'sentence chosen');
  await page.click('#output-text .sentence >> nth=1');
  assert.equal(await page.inputValue('#sentence-select'), '1');
  assert.deepEqual(await shownSentence(page), expectedSentence(want.sentences[1]));
  assert.equal(await page.locator('#output-text .sentence.chosen').count(), 1);

  // The other views and the word lines follow too: the alignment has this sentence's rows, an output word marks
  // words of this sentence's source.
  await page.click('#tab-alignment');
  assert.deepEqual(JSON.parse(await page.getAttribute('#alignment', 'data-row-labels')), expectedSentence(want.sentences[1]).rowLabels);
  await page.hover('#target-words .word >> nth=0');
  assert.ok(await page.locator('#source-words .word.strong').count() >= 1);
  await page.screenshot({ path: path.join(artifacts, 'web-document.png'), fullPage: true });

  // Copy gives the whole translation; the JSON holds every sentence's maps.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await page.click('#copy-text');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), want.text);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const saved = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(saved.sentences.map((s) => s.text), want.sentences.map((s) => s.text));
  assert.deepEqual(saved.sentences.map((s) => s.target_tokens), want.sentences.map((s) => s.targetTokens));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a long sentence reads as one: its clauses, each a span to choose, joined by the comma and conjunction', async () => {
  const text = 'A man in an orange hat is staring at something, and a small dog is running on the green grass; a girl in a '
    + 'white uniform breaks a stick with a kick.';
  const engine = await Attend.load(new Uint8Array(fs.readFileSync(modelFile)));
  const want = await engine.translateDocument(text, { beam: 2, attention: true });
  engine.dispose();
  assert.deepEqual(want.sentences.map((s) => s.joiner), ['', ', und ', '; ']);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(demo('&model=multi30k-en-de-cased'));
  await state(page, 'modelState', 'ready');
  const output = await translate(page, text);
  assert.equal(output, want.text);
  assert.equal(await page.textContent('#output-text'), want.text);
  assert.deepEqual(await page.locator('#output-text .sentence').allTextContents(), want.sentences.map((s) => s.placedText));
  await page.click('#output-text .sentence >> nth=2');
  assert.equal(await page.inputValue('#sentence-select'), '2');
  assert.deepEqual(await shownSentence(page), expectedSentence(want.sentences[2]));
  assert.deepEqual(errors, []);
  await context.close();
});
