// The demo shows what the translator warns about: a source longer than the model reads is cut, and the page must
// say so rather than show a translation of part of the text as if it were the whole; a translation the model itself
// doubts is marked as one. The expected warnings come
// from the library in Node with the same model and options, so the page is checked against the translator itself.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';
import { Attend } from '../../wasm/attend.js';

// The default shipped model: the first entry of models.json, which the page loads when no ?model= is given.
const models = JSON.parse(fs.readFileSync(path.join(root, 'web', 'models', 'models.json'), 'utf8')).models;
const first = models[0];
const modelFile = requireFile(path.join(root, 'web', 'models', first.file));
const { server, browser, artifacts } = await startSession(root);

const demo = (query) => demoUrl(server, query);
const state = waitForState;
const BEAM = 2;
// The page checks for words left out with the model's own threshold (models.json's omission_gain): so does the library here.
const OMISSION_GAIN = first.omission_gain ?? 0;

const translate = (page, text) => translateOnPage(page, text, BEAM);
// The chip names the count of the library's warnings (a cut nonsense text may also be one the model doubts).
const counted = (n) => `${n} warning${n === 1 ? '' : 's'}`;
const CUT = new RegExp('this model accepts at most \\d+: only the first \\d+ were translated');

async function openDemo() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(demo());
  await state(page, 'modelState', 'ready');
  assert.equal(await page.inputValue('#model-select'), first.id);
  return { context, page, errors };
}

const engine = await Attend.load(new Uint8Array(fs.readFileSync(modelFile)));
const maxSource = engine.info().maxSourceTokens;
after(() => engine.dispose());

// One sentence with no full stop, far longer than the model's source limit but within the text box's limit.
const WORDS = ['a', 'dog', 'runs', 'on', 'the', 'beach', 'with', 'two', 'young', 'men'];
const longSentence = Array.from({ length: 400 }, (_, i) => WORDS[i % WORDS.length]).join(' ');

test('the long input is what the test means it to be', async () => {
  const app = fs.readFileSync(path.join(root, 'web', 'app.js'), 'utf8');
  const maxLength = Number(app.match(/const MAX_CHARS = (\d+);/)[1]);
  assert.ok(longSentence.length < maxLength, `${longSentence.length} characters must fit the page's ${maxLength}`);
  const r = await engine.translate(longSentence, { beam: BEAM, attention: false, omissionGain: OMISSION_GAIN });
  assert.ok(r.sourceTokens.length <= maxSource, 'the source was cut to the limit');
  assert.ok(r.warnings.length >= 1);
});

test('a source cut to the model\'s limit shows a warning chip, its list, and the marked sentence', async () => {
  const want = await engine.translateDocument(longSentence, { beam: BEAM, attention: false, omissionGain: OMISSION_GAIN });
  assert.equal(want.sentences.length, 1);
  const warnings = want.sentences[0].warnings;
  assert.equal(warnings.filter((w) => CUT.test(w)).length, 1);
  assert.match(warnings[0], new RegExp(`at most ${maxSource}: only the first ${maxSource - 1} were translated`));

  const { context, page, errors } = await openDemo();
  await translate(page, longSentence);
  assert.equal(await page.textContent('#output-text'), want.text);

  // The chip: a closed button naming the count; the list opens and closes with it.
  const chip = page.locator('#warnings-toggle');
  assert.equal(await page.isVisible('#output-warnings'), true);
  assert.equal((await chip.textContent()).trim(), `⚠ ${counted(warnings.length)}`);
  assert.equal(await chip.getAttribute('aria-expanded'), 'false');
  assert.equal(await chip.getAttribute('aria-controls'), 'warnings-list');
  assert.equal(await page.isVisible('#warnings-list'), false);
  assert.match(await page.textContent('#translate-status'), new RegExp(`done in \\d+ ms, with ${counted(warnings.length)}$`));
  await chip.click();
  assert.equal(await chip.getAttribute('aria-expanded'), 'true');
  assert.equal(await page.isVisible('#warnings-list'), true);
  assert.deepEqual(await page.locator('#warnings-list li').allTextContents(), warnings);
  await page.screenshot({ path: path.join(artifacts, 'web-warnings.png'), fullPage: true });
  // The keyboard closes it as a click does (it is a real button).
  await chip.focus();
  await page.keyboard.press('Enter');
  assert.equal(await chip.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.isVisible('#warnings-list'), false);

  // The sentence that was cut is marked in the output, its warning in its title.
  const marked = page.locator('#output-text .sentence.warned');
  assert.equal(await marked.count(), 1);
  assert.equal(await marked.textContent(), want.sentences[0].text);
  assert.equal(await marked.getAttribute('title'), warnings.join('\n'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('in a document the chip lists where each warning is, and only the warned sentence is marked', async () => {
  const text = `A dog runs on the beach.\n${longSentence}`;
  const want = await engine.translateDocument(text, { beam: BEAM, attention: false, omissionGain: OMISSION_GAIN });
  assert.equal(want.sentences.length, 2);
  assert.equal(want.sentences[0].warnings.length, 0);
  assert.equal(want.sentences[1].warnings.filter((w) => CUT.test(w)).length, 1);
  assert.ok(want.warnings.every((w) => /^line 2, sentence 1: /.test(w)));

  const { context, page, errors } = await openDemo();
  await translate(page, text);
  assert.equal(await page.textContent('#output-text'), want.text);
  assert.equal((await page.textContent('#warnings-toggle')).trim(), `⚠ ${counted(want.warnings.length)}`);
  await page.click('#warnings-toggle');
  assert.deepEqual(await page.locator('#warnings-list li').allTextContents(), want.warnings);
  assert.deepEqual(await page.locator('#output-text .sentence').evaluateAll(
    (spans) => spans.map((s) => s.classList.contains('warned'))), [false, true]);
  assert.equal(await page.getAttribute('#output-text .sentence.warned', 'title'), want.sentences[1].warnings.join('\n'));
  // Choosing a sentence still works on a marked one.
  await page.click('#output-text .sentence.warned');
  assert.equal(await page.inputValue('#sentence-select'), '1');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a short sentence shows no chip; a blank input or another model clears it', async () => {
  const short = 'A dog runs on the beach.';
  const want = await engine.translateDocument(short, { beam: BEAM, attention: false, omissionGain: OMISSION_GAIN });
  assert.deepEqual(want.warnings, []);

  const { context, page, errors } = await openDemo();
  await translate(page, short);
  assert.equal(await page.textContent('#output-text'), want.text);
  assert.equal(await page.isVisible('#output-warnings'), false);
  assert.equal(await page.locator('#warnings-list li').count(), 0);
  assert.equal(await page.locator('#output-text .warned').count(), 0);
  assert.doesNotMatch(await page.textContent('#translate-status'), /warning/);

  // A warned result after a clean one shows the chip; a clean one after it hides it again.
  await translate(page, longSentence);
  assert.equal(await page.isVisible('#output-warnings'), true);
  await translate(page, short);
  assert.equal(await page.isVisible('#output-warnings'), false);
  assert.equal(await page.locator('#warnings-list li').count(), 0);

  // A blank input clears the output, and the chip with it.
  await translate(page, longSentence);
  await page.click('#warnings-toggle');
  assert.equal(await page.isVisible('#warnings-list'), true);
  await page.fill('#source-text', '');
  await page.click('#translate-button');
  assert.equal(await page.isVisible('#output'), false);
  assert.equal(await page.isHidden('#output-warnings'), true);
  assert.equal(await page.locator('#warnings-list li').count(), 0);
  assert.equal(await page.getAttribute('#warnings-toggle', 'aria-expanded'), 'false');

  // Another model clears it too: its warnings belonged to the old model's translation.
  await translate(page, longSentence);
  assert.equal(await page.isVisible('#output-warnings'), true);
  await page.selectOption('#model-select', models[1].id);
  await state(page, 'modelState', 'ready');
  assert.equal(await page.isHidden('#output-warnings'), true);
  assert.equal(await page.locator('#warnings-list li').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a sentence the model cannot read stays as it is, marked with its warning, and has no attention panel', async () => {
  const text = 'A dog runs on the beach.\n東京は日本の首都です。';
  const want = await engine.translateDocument(text, { beam: BEAM, attention: true, omissionGain: OMISSION_GAIN });
  assert.deepEqual(want.sentences.map((s) => s.untranslated), [false, true]);
  assert.equal(want.sentences[1].text, '東京は日本の首都です。');
  assert.match(want.warnings[0], /^line 2, sentence 1: not translated: 11 of 11 source tokens are unknown/);

  const { context, page, errors } = await openDemo();
  await translate(page, text);
  assert.equal(await page.textContent('#output-text'), want.text);
  assert.equal((await page.textContent('#warnings-toggle')).trim(), '⚠ 1 warning');
  assert.deepEqual(await page.locator('#output-text .sentence').evaluateAll(
    (spans) => spans.map((s) => s.classList.contains('warned'))), [false, true]);
  // It has no attention maps: choosing it hides the attention panel, choosing the other shows it again.
  assert.equal(await page.isVisible('#attention-panel'), true);
  await page.click('#output-text .sentence.warned');
  assert.equal(await page.inputValue('#sentence-select'), '1');
  assert.equal(await page.isHidden('#attention-panel'), true);
  await page.selectOption('#sentence-select', '0');
  assert.equal(await page.isVisible('#attention-panel'), true);
  await page.screenshot({ path: path.join(artifacts, 'web-untranslated.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('markup in the text is put back into the translation as text: shown, never run', async () => {
  const text = '<b>Two dogs</b> are playing in the <img src="x" onerror="window.__ran = 1">snow.';
  const want = await engine.translateDocument(text, { beam: BEAM, attention: false, omissionGain: OMISSION_GAIN });
  assert.match(want.text, /^<b>\S.*<\/b> .*<img src="x" onerror="window.__ran = 1">\S/);

  const { context, page, errors } = await openDemo();
  await translate(page, text);
  assert.equal(await page.textContent('#output-text'), want.text);
  assert.equal(await page.locator('#output-text b, #output-text img').count(), 0);
  assert.equal(await page.evaluate(() => window.__ran), undefined);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a translation the model doubts (everyday speech, not a caption) is shown with its low-confidence warning', async () => {
  const text = 'See you tomorrow! How much does it cost? A dog runs on the beach.';
  const want = await engine.translateDocument(text, { beam: BEAM, attention: false, omissionGain: OMISSION_GAIN });
  // The library's own verdicts, which the page must show: these are the warnings of the sentences it flagged.
  const flagged = want.sentences.filter((s) => s.lowConfidence);
  assert.ok(flagged.length >= 1, 'everyday speech is far below the model\'s threshold');
  for (const s of want.sentences) assert.equal(s.lowConfidence, s.confidence < engine.defaultOptions().minConfidence);

  const { context, page, errors } = await openDemo();
  await translate(page, text);
  assert.equal(await page.textContent('#output-text'), want.text);
  await page.click('#warnings-toggle');
  const shown = await page.locator('#warnings-list li').allTextContents();
  assert.deepEqual(shown, want.warnings);
  assert.ok(shown.some((w) => /low confidence \(0\.\d\d, below 0\.\d+\): the text is likely unlike/.test(w)));
  assert.equal(await page.locator('#output-text .sentence.warned').count(), flagged.length);
  // The sentence's confidence is shown beside its token counts.
  assert.match(await page.textContent('#output-timing'), new RegExp(`confidence ${want.sentences[0].confidence.toFixed(2)}$`));
  assert.deepEqual(errors, []);
  await context.close();
});
