// Every view of the three pages at a desktop width (1280 px) and a phone's (390 px), with the shipped models and a
// shipped training log: the demo's translation, heatmap, all heads, alignment, head view, neuron view and document
// mode; each section of the attention lab; runs.html. On each: no console error, nothing wider than the window, every table
// inside its box, and nothing cut off at the window's edge (what is wider scrolls inside a box that fits). A
// screenshot of each goes to test-artifacts/views-<page>-<view>-<width>.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { requireFile, root } from '../wasm/lib/paths.mjs';
import { demoUrl, startSession, translateOnPage, waitForState } from './lib/demo.mjs';
import { watchErrors } from './lib/browser.mjs';

requireFile(path.join(root, 'web', 'models', 'multi30k-en-de-cased.safetensors'));
const trainLog = 'models/multi30k-en-de-cased.train.jsonl';
requireFile(path.join(root, 'web', trainLog));
const { server, browser, artifacts } = await startSession(root);

const WIDTHS = [1280, 390];

// What does not fit the window, as readable lines (none: it fits). An element inside a box that scrolls sideways
// is judged by that box; an element wholly left of the window is the visually-hidden pattern (skip links).
function misfits(page) {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const out = [];
    const name = (e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`;
    const shown = (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    const scrollsSideways = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
    const root = document.documentElement;
    if (root.scrollWidth > vw) out.push(`the page is ${root.scrollWidth} px wide in a ${vw} px window`);
    for (const t of document.querySelectorAll('table')) {
      if (!shown(t)) continue;
      const box = t.closest('.table-wrap') ?? t.parentElement;
      const r = t.getBoundingClientRect();
      const b = box.getBoundingClientRect();
      if (r.right > b.right + 0.5 || r.left < b.left - 0.5) out.push(`table ${name(t)} runs out of ${name(box)} (${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(b.left)}..${Math.round(b.right)})`);
      if (box.scrollWidth > box.clientWidth + 0.5) out.push(`table ${name(t)} is cut off in ${name(box)} (${box.scrollWidth} px in ${box.clientWidth})`);
    }
    // A menu that cuts off its own choice while its box has room to be wider (a menu as wide as its box, such as
    // a long model name on a phone, can do no better: the open list shows the whole text).
    const ctx = document.createElement('canvas').getContext('2d');
    for (const sel of document.querySelectorAll('select')) {
      if (!shown(sel) || sel.selectedIndex < 0) continue;
      const cs = getComputedStyle(sel);
      ctx.font = cs.font;
      const text = ctx.measureText(sel.options[sel.selectedIndex].text).width;
      const inner = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16;   // 16: the arrow
      // The menu with its label, as one item of the row it sits in, against that row's width.
      let item = sel;
      while (getComputedStyle(item.parentElement).display.startsWith('inline')) item = item.parentElement;
      const row = item.parentElement;
      const rs = getComputedStyle(row);
      const room = row.clientWidth - parseFloat(rs.paddingLeft) - parseFloat(rs.paddingRight);
      if (text > inner + 0.5 && item.getBoundingClientRect().width < room - 1) {
        out.push(`${name(sel)} shows ${Math.round(inner)} px of its ${Math.round(text)} px choice "${sel.options[sel.selectedIndex].text}"`);
      }
    }
    const walk = (e) => {
      for (const c of e.children) {
        if (!shown(c)) { if (getComputedStyle(c).display !== 'none') walk(c); continue; }
        const r = c.getBoundingClientRect();
        if (r.right <= 0) continue;
        if (r.right > vw + 0.5 || r.left < -0.5) out.push(`${name(c)} spans ${Math.round(r.left)}..${Math.round(r.right)} in a ${vw} px window`);
        // Clipped content: a box that hides what overflows it sideways, holding more than it shows.
        const overflowX = getComputedStyle(c).overflowX;
        if (['hidden', 'clip'].includes(overflowX) && c.scrollWidth > c.clientWidth + 1 && c.children.length) {
          out.push(`${name(c)} hides ${c.scrollWidth - c.clientWidth} px of its content`);
        }
        if (!scrollsSideways(c)) walk(c);
      }
    };
    walk(document.body);
    return out;
  });
}

async function check(page, errors, name, width, target = page) {
  assert.deepEqual(await misfits(page), [], `${name} at ${width} px`);
  assert.deepEqual(errors, [], `${name} at ${width} px: console errors`);
  await target.screenshot({ path: path.join(artifacts, `views-${name}-${width}.png`), ...(target === page ? { fullPage: true } : {}) });
}

test('the demo: translation, heatmap, all heads, alignment, head view, neuron view and document mode at 1280 and 390 px', async () => {
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(demoUrl(server, '&model=multi30k-en-de-cased'));
    await waitForState(page, 'modelState', 'ready');
    await check(page, errors, 'demo-start', width);

    await translateOnPage(page, 'A woman in a red dress is walking down the street with her small brown dog.');
    await check(page, errors, 'demo-translation', width);
    await page.locator('#attention-panel').scrollIntoViewIfNeeded();
    await check(page, errors, 'demo-heatmap', width, page.locator('#attention-panel'));
    for (const [tab, view, ready] of [['grid', 'all-heads', '#head-grid canvas'], ['alignment', 'alignment', '#alignment'],
      ['heads', 'head-view', '#headview'], ['neurons', 'neuron-view', '#neuron-rows .neuron-row']]) {
      await page.click(`#tab-${tab}`);
      await page.waitForSelector(`#view-${tab}:not([hidden]) ${ready}`);
      await check(page, errors, `demo-${view}`, width, page.locator('#attention-panel'));
    }
    await page.click('#tab-heatmap');

    await translateOnPage(page, 'A dog runs on the beach. Two young men are playing soccer in a park.\n\nA little girl is climbing a wooden staircase.');
    assert.equal(await page.isVisible('#sentence-choice'), true);
    await page.selectOption('#sentence-select', '2');
    await check(page, errors, 'demo-document', width);
    await page.close();
  }
});

test('the lab: each section at 1280 and 390 px', async () => {
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${server.url}/web/lab.html`);
    await page.waitForFunction(() => document.body.dataset.labState === 'ready', null, { timeout: 60000 });
    const sections = await page.$$eval('main section[id]', (s) => s.map((e) => e.id));
    for (const id of ['nw', 'masked', 'scoring', 'pe', 'bahdanau']) assert.ok(sections.includes(id), `no section #${id} (${sections.join(', ')})`);
    await check(page, errors, 'lab', width);
    for (const id of sections) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      await check(page, errors, `lab-${id}`, width, page.locator(`#${id}`));
    }
    await page.close();
  }
});

test('runs.html with a shipped training log at 1280 and 390 px', async () => {
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${server.url}/web/runs.html?run=${trainLog}`);
    await page.waitForFunction(() => document.body.dataset.runState === 'ready', null, { timeout: 30000 });
    await check(page, errors, 'runs', width);
    await page.close();
  }
});

test('train.html training the seeds\' model for its epochs at 1280 and 390 px', async () => {
  const pairs = [['Go.', 'Va !'], ['Hi.', 'Salut !'], ['Run!', 'Cours !'], ['Wow!', 'Ça alors !'], ['I lost.', "J'ai perdu."],
    ["I'm home.", 'Je suis chez moi.']].map((p) => p.join('\t')).join('\n');
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${server.url}/web/train.html`);
    await page.fill('#train-pairs', pairs);
    await page.fill('#valid-count', '0');
    await page.fill('#epoch-count', '8');  // six pairs: one batch an epoch
    await page.click('#train-start');
    await page.waitForFunction(() => document.body.dataset.state === 'finished', null, { timeout: 60000 });
    assert.equal((await page.evaluate(() => ({ ...document.body.dataset }))).step, '8', 'it stops after its epochs');
    assert.match(await page.textContent('#train-status'), /finished its 8 epochs/);
    assert.equal(await page.isDisabled('#train-pause'), true);
    await check(page, errors, 'train', width);
    await page.close();
  }
});

test('train.html training a character language model for its epochs at 1280 and 390 px', async () => {
  const text = 'The Time Traveller (for so it will be convenient to speak of him) was expounding a recondite matter to us. '
    .repeat(20);
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${server.url}/web/train.html`);
    await page.selectOption('#train-preset', 'gru-d2l');
    await page.fill('#lm-text', text);
    await page.fill('#epoch-count', '3');
    await page.click('#train-start');
    await page.waitForFunction(() => document.body.dataset.state === 'finished', null, { timeout: 60000 });
    assert.match(await page.textContent('#train-status'), /perplexity \d+\.\d\d \(epoch 3\) · finished its 3 epochs/);
    assert.ok((await page.textContent('#lm-prediction')).startsWith('time traveller'));
    await check(page, errors, 'train-lm', width);
    await page.close();
  }
});
