// Training curves from an `attend train` run's train.jsonl (native/train/trainer.cpp writes one JSON object a
// line): {"event":"step", step, epoch, loss, lr, target_tokens_per_s, elapsed_s} every few steps, and
// {"event":"epoch", epoch, step, train_loss, val_loss?, val_bleu?, elapsed_s} after each epoch. The page plots
// them against steps or epochs. A language model's run (`attend lm train`, native/cli/cmd_lm.cpp) begins with
// {"event":"start", preset, config: {architecture: "char-rnn-lm", ...}} and has one line an epoch: {"event":"epoch",
// epoch, perplexity, tokens_per_s, grad_norm, held_out_perplexity? (every few epochs),
// held_out_perplexity_left_to_right? (a bidirectional model read one character at a time)}: it is plotted as
// perplexity per epoch. Sources: ?run=URL, a dropped file, or the file picker.
import { drawPlot } from './lab-plot.js';

const $ = (id) => document.getElementById(id);
let run = null;

// Parses the text of a train.jsonl; a line that is not a JSON object is an error naming the line.
export function parseRun(text, name = 'train.jsonl') {
  const steps = [];
  const epochs = [];
  let start = null;
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let o;
    try { o = JSON.parse(line); } catch (e) { throw new Error(`${name}, line ${i + 1} is not JSON: ${e.message}`); }
    if (!o || typeof o !== 'object') throw new Error(`${name}, line ${i + 1} is not a JSON object`);
    if (o.event === 'step') steps.push(o);
    else if (o.event === 'epoch') epochs.push(o);
    else if (o.event === 'start') start = o;
  });
  if (!steps.length && !epochs.length) throw new Error(`${name} has no step or epoch lines: is it an attend train.jsonl?`);
  const lm = start?.config?.architecture === 'char-rnn-lm' || (!steps.length && epochs.some((e) => finite(e.perplexity)));
  return { name, steps, epochs, start, lm };
}

// A step's position in epochs: whole epochs end where the epoch lines say; inside one, steps count evenly (the
// epoch still running takes the previous epoch's length).
function epochOf(r, step, epoch) {
  const ends = new Map(r.epochs.map((e) => [e.epoch, e.step]));
  const start = ends.get(epoch - 1) ?? 0;
  let end = ends.get(epoch);
  if (end === undefined) end = start + (start - (ends.get(epoch - 2) ?? 0) || Math.max(1, step - start));
  return epoch - 1 + Math.min(1, (step - start) / Math.max(1, end - start));
}

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

function series(r, along, key, from, label, style) {
  const rows = (from === 'step' ? r.steps : r.epochs).filter((o) => finite(o[key]));
  const x = rows.map((o) => (along === 'step' ? o.step : from === 'epoch' ? o.epoch : epochOf(r, o.step, o.epoch)));
  return { label, x, y: rows.map((o) => o[key]), style, markers: from === 'epoch' && rows.length < 60 };
}

// Each chart's caption (also its y axis) for a translator's run and for a language model's.
const CAPTIONS = {
  'chart-loss': ['Loss', 'Training perplexity'],
  'chart-bleu': ['Validation BLEU', 'Held-out perplexity'],
  'chart-lr': ['Learning rate', 'Gradient norm (before clipping)'],
  'chart-speed': ['Target tokens per second', 'Characters per second'],
};

// A language model's run: perplexity and the rest per epoch (it has no step lines).
function lmCharts(r) {
  const along = 'epoch';
  const keep = (list) => list.filter((s) => s.x.length > 0);
  return {
    'chart-loss': keep([series(r, along, 'perplexity', 'epoch', 'training perplexity', 'line')]),
    'chart-bleu': keep([series(r, along, 'held_out_perplexity', 'epoch', 'held-out perplexity', 'line'),
      series(r, along, 'held_out_perplexity_left_to_right', 'epoch', 'held-out, read left to right', 'dashed')]),
    'chart-lr': keep([series(r, along, 'grad_norm', 'epoch', 'gradient norm', 'line')]),
    'chart-speed': keep([series(r, along, 'tokens_per_s', 'epoch', 'characters / s', 'line')]),
  };
}

function lmSummary(r) {
  const last = r.epochs.filter((e) => finite(e.perplexity)).at(-1);
  const held = r.epochs.filter((e) => finite(e.held_out_perplexity)).at(-1);
  const planned = r.start?.epochs;
  return [`${r.name}: language model${r.start?.preset ? ` ${r.start.preset}` : ''}, ${r.epochs.length} epoch lines`
    + (planned ? ` of ${planned}` : ''),
  last ? `training perplexity ${last.perplexity.toFixed(4)} (epoch ${last.epoch})` : '',
  held ? `held-out perplexity ${held.held_out_perplexity.toFixed(2)} (epoch ${held.epoch})` : ''].filter(Boolean).join(' · ');
}

function render() {
  if (!run) return;
  // A language model logs epochs only: the charts are along epochs.
  $('run-x').disabled = run.lm;
  if (run.lm) $('run-x').value = 'epoch';
  for (const [id, captions] of Object.entries(CAPTIONS)) {
    $(id).closest('figure').querySelector('figcaption').textContent = captions[run.lm ? 1 : 0];
  }
  if (run.lm) {
    draw(lmCharts(run), 'epoch');
    $('run-summary').textContent = lmSummary(run);
    document.body.dataset.runKind = 'language-model';
    document.body.dataset.runState = 'ready';
    return;
  }
  document.body.dataset.runKind = 'translator';
  const along = $('run-x').value;
  const xLabel = along === 'step' ? 'step' : 'epoch';
  const keep = (list) => list.filter((s) => s.x.length > 0);
  const charts = {
    'chart-loss': keep([series(run, along, 'loss', 'step', 'training loss (steps)', 'line'),
      series(run, along, 'train_loss', 'epoch', 'training loss (epochs)', 'dashed'),
      series(run, along, 'val_loss', 'epoch', 'validation loss', 'line')]),
    'chart-bleu': keep([series(run, along, 'val_bleu', 'epoch', 'validation BLEU', 'line')]),
    'chart-lr': keep([series(run, along, 'lr', 'step', 'learning rate', 'line')]),
    'chart-speed': keep([series(run, along, 'target_tokens_per_s', 'step', 'target tokens / s', 'line')]),
  };
  draw(charts, xLabel);
  const last = run.epochs.at(-1);
  const best = run.epochs.filter((e) => finite(e.val_bleu)).reduce((b, e) => (!b || e.val_bleu > b.val_bleu ? e : b), null);
  $('run-summary').textContent = [`${run.name}: ${run.steps.length} step lines, ${run.epochs.length} epoch lines`,
    last ? `last epoch ${last.epoch} at step ${last.step}` : '',
    best ? `best validation BLEU ${best.val_bleu.toFixed(2)} (epoch ${best.epoch})` : ''].filter(Boolean).join(' · ');
  document.body.dataset.runState = 'ready';
}

function draw(charts, xLabel) {
  $('run-charts').hidden = false;
  for (const [id, list] of Object.entries(charts)) {
    const canvas = $(id);
    canvas.closest('figure').hidden = list.length === 0;
    canvas.dataset.points = list.reduce((n, s) => n + s.x.length, 0);
    if (list.length) drawPlot(canvas, list, { xLabel, yLabel: canvas.closest('figure').querySelector('figcaption').textContent, title: id });
  }
}

function show(text, name) {
  try {
    run = parseRun(text, name);
    $('run-error').hidden = true;
    render();
  } catch (e) {
    fail(e.message);
  }
}

function fail(message) {
  $('run-error').textContent = message;
  $('run-error').hidden = false;
  document.body.dataset.runState = 'error';
}

// Each thing the user opens gets a number: a download that ends after a later choice (a file picked while a run
// still downloads) is not shown over it.
let opened = 0;

async function openUrl(url, name = new URL(url, location.href).pathname.split('/').slice(-2).join('/')) {
  const seq = ++opened;
  document.body.dataset.runState = 'loading';
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`cannot download ${url}: HTTP ${response.status}`);
    const text = await response.text();
    if (seq === opened) show(text, name);
  } catch (e) {
    if (seq === opened) fail(e.message);
  }
}

async function openFile(file) {
  const seq = ++opened;
  const text = await file.text();
  if (seq === opened) show(text, file.name);
}

// The runs of the models the page ships (models.json beside them; each model's log is <file>.train.jsonl, as its
// card links it), offered in a menu: the translators, then the language models (models/lm/models.json).
async function listModels(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return ((await response.json()).models ?? []).filter((m) => typeof m.file === 'string');
}

async function listShipped() {
  const select = $('run-shipped');
  const logOf = (folder, m) => `${folder}/${m.file.replace(/\.safetensors$/, '')}.train.jsonl`;
  const [translators, lms] = await Promise.allSettled([listModels('models/models.json'), listModels('models/lm/models.json')]);
  const groups = [];
  const options = [];
  const group = (label, list) => {
    if (!list.length) return;
    const g = document.createElement('optgroup');
    g.label = label;
    g.append(...list);
    groups.push(g);
    options.push(...list);
  };
  if (translators.status === 'fulfilled') {
    group('Translators', translators.value.map((m) => new Option(m.name ? `${m.pair ?? m.id} — ${m.name}` : (m.pair ?? m.id),
      logOf('models', m))));
  }
  if (lms.status === 'fulfilled') {
    group('Language models (The Time Machine)', lms.value.map((m) => new Option(`${m.id} — ${m.name}`, logOf('models/lm', m))));
  }
  if (!options.length) {
    const why = [translators, lms].filter((r) => r.status === 'rejected').map((r) => r.reason.message).join('; ');
    select.replaceChildren(new Option(`no shipped runs (${why || 'the model lists are empty'})`, ''));
    return [];
  }
  select.replaceChildren(...groups);
  select.disabled = false;
  return options;
}

$('run-shipped').addEventListener('change', (e) => {
  if (e.target.value) openUrl(e.target.value, e.target.value.split('/').pop());
});
$('run-file').addEventListener('change', async (e) => {
  const file = e.target.files?.[0];
  if (file) openFile(file);
});
document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.dataset.dragging = 'true'; });
document.addEventListener('dragleave', () => { delete document.body.dataset.dragging; });
document.addEventListener('drop', async (e) => {
  e.preventDefault();
  delete document.body.dataset.dragging;
  const file = e.dataTransfer?.files?.[0];
  if (file) openFile(file);
});
$('run-x').addEventListener('change', render);
let pending = 0;
window.addEventListener('resize', () => { cancelAnimationFrame(pending); pending = requestAnimationFrame(render); });
const wanted = new URLSearchParams(location.search).get('run');
const shipped = listShipped();
if (wanted) {
  openUrl(wanted);
  shipped.then((options) => { if (options.some((o) => o.value === wanted)) $('run-shipped').value = wanted; });
}
// Without a run named, the page opens on the first shipped model's (unless the user has opened one meanwhile).
else shipped.then((options) => { if (options.length && opened === 0) openUrl(options[0].value, options[0].value.split('/').pop()); });
