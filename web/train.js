// web/train.html: a translator trained in a Worker (train-worker.js, over attend-train.js), its loss per step plotted
// and the cross attention of a few sentences redrawn as it learns; or a character language model, its perplexity
// per epoch plotted and its continuation of a prefix redrawn after each epoch. The body's data attributes say what
// it shows (kind, state, step, epoch, last loss, last perplexity, the trainer's threads) for tests.
// ?threads=N asks for N threads (1 to 4; the default: the cores, at most 4, on a cross-origin isolated page).
// The followed sentences' results are kept as the run goes (a snapshot each time the worker sends them), and a
// range input replays them: the table and the cross attention at any kept step. "Translate with this model"
// stores the translator as it is now in the model cache and opens the demo on it (trained.js).
// The worker's messages only update the state and the body's data attributes; the plots, the table and the
// heatmap are drawn at most once per animation frame, so that a burst of messages is one redraw.
import { drawPlot } from './lab-plot.js';
import { MatrixView } from './lab-matrix.js';
import { $, readNumber, showError } from './lab-dom.js';
import { storeModelBytes } from '../wasm/attend.js';
import { trainedModelUrl } from './trained.js';
import { SnapshotHistory } from './train-history.js';

const body = document.body;
const worker = new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
const askedThreads = new URLSearchParams(location.search).get('threads');
// history: the followed sentences' results as the run went (at most 400 kept: train-history.js). exports: what
// each 'export' asked of the worker is for, in order.
const s = { kind: 'translator', steps: [], losses: [], epochLoss: null, info: null, epochs: [], perplexities: [],
  history: new SnapshotHistory(), exports: [], dirty: new Set(), frame: 0, choices: '' };
const attention = new MatrixView($('probe-attention'), {
  readout: $('probe-readout'), xLabel: 'source', yLabel: 'translation', maxHeight: 320,
  rowName: (i) => `“${current()?.targetTokens[i] ?? i}”`, colName: (j) => `“${current()?.sourceTokens[j] ?? j}”`,
});
const shown = () => s.history.shown;
const current = () => shown()?.probes[$('probe-choice').selectedIndex];

// What changed since the last drawing ('loss', 'probes', 'perplexity', 'status') is drawn in an animation frame at
// most five times a second: the status line rewritten at each of the worker's messages (twenty a second) and the
// plots at every frame took a quarter of a core from training, and on 2 cores the page's 2 training threads then
// waited for each other.
const DRAW_EVERY_MS = 200;
function redraw(what) {
  s.dirty.add(what);
  if (s.frame) return;
  s.frame = -1;
  const wait = Math.max(0, (s.drawn ?? -Infinity) + DRAW_EVERY_MS - performance.now());
  setTimeout(() => { s.frame = requestAnimationFrame(drawDirty); }, wait);
}
// The status line: at once (a state the user must see now), or with the next drawing (the steps' progress).
function showStatus(text, now = false) {
  s.status = text;
  if (now) $('train-status').textContent = text;
  else redraw('status');
}

function drawDirty() {
  s.frame = 0;
  s.drawn = performance.now();
  const dirty = s.dirty;
  s.dirty = new Set();
  if (dirty.has('loss')) drawLoss();
  if (dirty.has('probes')) showSnapshot();
  if (dirty.has('perplexity')) drawPerplexity();
  if (dirty.has('status')) $('train-status').textContent = s.status;
}

// The chosen model's kind: its <optgroup> says 'lm' for the character language models.
const chosenKind = () => ($('train-preset').selectedOptions[0]?.parentElement.dataset.kind === 'lm' ? 'lm' : 'translator');

// The data fields follow the chosen model; what the results show follows the model being trained (the chosen one
// before any starts).
function showDataFields() {
  const lm = chosenKind() === 'lm';
  for (const el of document.querySelectorAll('.translator-only')) el.hidden = lm;
  for (const el of document.querySelectorAll('.lm-only')) el.hidden = !lm;
  $('epoch-count').placeholder = lm ? '500' : String((s.kind === 'translator' && s.info?.options?.epochs) || 250);
  if (body.dataset.state === 'idle') showResults(chosenKind());
}

function showResults(kind) {
  body.dataset.kind = kind;
  $('loss-section').hidden = kind === 'lm';
  $('probe-section').hidden = kind === 'lm';
  $('lm-section').hidden = kind !== 'lm';
  $('train-translate').hidden = kind === 'lm';
}

const setState = (state) => {
  body.dataset.state = state;
  $('train-pause').disabled = state === 'idle' || state === 'starting' || state === 'finished';
  $('train-pause').textContent = state === 'paused' ? 'Resume' : 'Pause';
  $('train-export').disabled = state === 'idle' || state === 'starting';
  // A language model is no translator: the demo has nothing to do with one.
  $('train-translate').disabled = state === 'idle' || state === 'starting' || s.kind !== 'translator';
  $('train-start').textContent = state === 'idle' ? 'Start training' : 'Start again';
};

// The followed sentences: "source<TAB>reference" lines (the reference optional), at most eight.
const probeTexts = () => $('train-probes').value.split('\n').filter((l) => l.trim()).slice(0, 8).map((line) => {
  const [text, reference = ''] = line.split('\t');
  return { text: text.trim(), reference: reference.trim() };
});

function drawLoss() {
  // The mean loss per target token of each batch; the seeds' printed epoch figure (the sum of each batch's summed
  // row means over the epoch's tokens) is on another scale and goes in the status line instead.
  drawPlot($('train-loss'), [{ label: 'loss per target token, each batch', x: s.steps, y: s.losses, style: 'line' }],
    { xLabel: 'step', yLabel: 'loss', title: 'training loss', integerX: true });
}

// A snapshot of the followed sentences at `step`; fresh: they are other sentences than the kept ones (a new run,
// or the sentences edited), whose history then starts again.
function addSnapshot(step, probes, fresh = false) {
  if (fresh) s.history.clear();
  s.history.add({ step, probes });
  redraw('probes');
}

// The replay's range and readout: at its right end it follows the newest snapshot.
function showScrubber() {
  const range = $('probe-scrub');
  const count = s.history.length;
  range.max = String(Math.max(0, count - 1));
  range.value = String(s.history.index);
  range.disabled = count < 2;
  range.dataset.snapshots = count;
  const snap = shown();
  const live = s.history.newest?.step;
  if (!snap) {
    $('probe-scrub-readout').textContent = 'no steps yet';
    range.removeAttribute('aria-valuetext');
    return;
  }
  range.setAttribute('aria-valuetext', `step ${snap.step}`);
  $('probe-scrub-readout').textContent = s.history.following ? `step ${snap.step} of ${live}, following the training`
    : `step ${snap.step} (live: ${live})`;
}

// The table, the sentence menu and the heatmap of the snapshot the replay is on.
function showSnapshot() {
  showScrubber();
  const snap = shown();
  if (snap) showProbes(snap.probes);
  else $('probe-table').tBodies[0].replaceChildren();
}

function showProbes(probes) {
  const followed = probeTexts();
  const tbody = $('probe-table').tBodies[0];
  tbody.replaceChildren(...probes.map((p, i) => {
    const tr = document.createElement('tr');
    for (const text of [followed[i]?.text ?? p.sourceTokens.join(' '), p.text, followed[i]?.reference || '—',
      p.bleu === undefined ? '—' : p.bleu.toFixed(3)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  const scored = probes.filter((p) => p.bleu !== undefined);
  $('probe-mean').textContent = scored.length
    ? `Mean BLEU ${(scored.reduce((a, p) => a + p.bleu, 0) / scored.length).toFixed(3)} (the seeds' bleu, k = 2, ` +
      'on the model\'s words)' : '';
  $('probe-table').dataset.bleu = JSON.stringify(probes.map((p) => p.bleu ?? null));
  // The menu is rebuilt only when its sentences change, so that an open menu is not closed under the user.
  const choice = $('probe-choice');
  const names = probes.map((p, i) => followed[i]?.text ?? `sentence ${i + 1}`);
  if (JSON.stringify(names) !== s.choices) {
    s.choices = JSON.stringify(names);
    const chosen = Math.min(Math.max(0, choice.selectedIndex), probes.length - 1);
    choice.replaceChildren(...names.map((name, i) => new Option(name, String(i))));
    choice.selectedIndex = chosen;
  }
  drawAttention();
}

// The chosen sentence's cross attention, averaged over its layers and heads (the GRU model has one of each).
function drawAttention() {
  const p = current();
  if (!p) return;
  const { layers, heads, rows, cols, weights } = p.attention;
  const mean = new Float32Array(rows * cols);
  for (let m = 0; m < layers * heads; m++)
    for (let i = 0; i < rows * cols; i++) mean[i] += weights[m * rows * cols + i] / (layers * heads);
  attention.set({ values: mean, rows, cols, min: 0, max: 1, title: 'cross attention' });
  $('probe-attention').dataset.rowSums = JSON.stringify(Array.from({ length: rows }, (_, r) =>
    +mean.subarray(r * cols, (r + 1) * cols).reduce((x, y) => x + y, 0).toFixed(4)));
  // Which weights are drawn, for tests: two snapshots' maps differ here where their values do.
  $('probe-attention').dataset.checksum = mean.reduce((a, v, i) => a + v * (i + 1), 0).toFixed(6);
  $('probe-attention').dataset.step = shown().step;
  $('probe-attention').setAttribute('aria-label', `cross attention of “${p.sourceTokens.join(' ')}”: rows ` +
    `${p.targetTokens.join(' ')}; columns ${p.sourceTokens.join(' ')}`);
  $('probe-readout').textContent = `rows: ${p.targetTokens.join(' ')} · columns: ${p.sourceTokens.join(' ')}`;
}

async function readFile(file) {
  const stream = file.name.endsWith('.gz') ? file.stream().pipeThrough(new DecompressionStream('gzip')) : file.stream();
  return new Response(stream).text();
}

// A language model's text file: its bytes must be UTF-8 (a byte that is not is named, never replaced unseen).
async function readTextFile(file) {
  const stream = file.name.endsWith('.gz') ? file.stream().pipeThrough(new DecompressionStream('gzip')) : file.stream();
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('it is not UTF-8 text');
  }
}

function drawPerplexity() {
  drawPlot($('lm-perplexity'), [{ label: 'training perplexity, each epoch', x: s.epochs, y: s.perplexities,
    style: s.epochs.length > 1 ? 'line' : 'points' }],
  { xLabel: 'epoch', yLabel: 'perplexity', title: 'training perplexity', integerX: true });
  $('lm-perplexity').dataset.perplexities = JSON.stringify(s.perplexities);
}

// The prefix and the model's continuation of it.
function showPrediction({ prefix, text }) {
  const out = $('lm-prediction');
  const given = document.createElement('span');
  given.className = 'lm-prefix';
  given.textContent = prefix;
  out.replaceChildren(given, text.slice(prefix.length));
  body.dataset.prediction = text;
}

function prompt() {
  const prefix = $('lm-prefix').value;
  $('lm-prefix').setAttribute('aria-invalid', String(!prefix));
  if (!prefix) throw new Error('Prefix: give at least one character for the model to continue');
  return { prefix, length: readNumber($('lm-length'), 'Characters to predict') };
}

// A chosen file's text into its box (read: the pairs' or the language model's reader), or what went wrong.
function loadFileInto(inputId, boxId, read) {
  $(inputId).addEventListener('change', async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try {
      $(boxId).value = await read(file);
      showError($('train-error'));
    } catch (err) {
      showError($('train-error'), `cannot read ${file.name}: ${err.message}`);
    }
  });
}
loadFileInto('lm-file', 'lm-text', readTextFile);

for (const id of ['lm-prefix', 'lm-length']) {
  $(id).addEventListener('change', () => {
    if (s.kind !== 'lm' || body.dataset.state === 'idle') return;
    try {
      worker.postMessage({ type: 'probe', prompt: prompt() });
      showError($('train-error'));
    } catch (err) {
      showError($('train-error'), err.message);
    }
  });
}
$('train-preset').addEventListener('change', showDataFields);

loadFileInto('train-file', 'train-pairs', readFile);

function startLanguageModel() {
  const text = $('lm-text').value;
  if (!text.trim()) {
    showError($('train-error'), 'Give a text first: paste it above or choose a file.');
    return;
  }
  let options, start;
  try {
    options = { chars: readNumber($('lm-chars'), 'Characters that train') };
    if ($('epoch-count').value.trim()) options.epochs = readNumber($('epoch-count'), 'Epochs');
    start = prompt();
  } catch (e) {
    showError($('train-error'), e.message);
    return;
  }
  Object.assign(s, { kind: 'lm', steps: [], losses: [], epochs: [], perplexities: [] });
  delete body.dataset.perplexity;
  delete body.dataset.prediction;
  showError($('train-error'));
  setState('starting');
  showResults('lm');
  $('lm-prediction').replaceChildren();
  drawPerplexity();
  showStatus('Preparing the text and the model…', true);
  worker.postMessage({ type: 'create', kind: 'lm', preset: $('train-preset').value, text, options, prompt: start });
}

$('train-start').addEventListener('click', () => {
  if (chosenKind() === 'lm') {
    startLanguageModel();
    return;
  }
  const pairs = $('train-pairs').value;
  if (!pairs.trim()) {
    showError($('train-error'), 'Give some sentence pairs first: paste them above or choose a file.');
    return;
  }
  let options;
  try {
    options = { trainPairs: readNumber($('train-count'), 'Training pairs'),
      validPairs: readNumber($('valid-count'), 'Validation pairs') };
    if ($('epoch-count').value.trim()) options.epochs = readNumber($('epoch-count'), 'Epochs');
    if (askedThreads !== null) options.threads = Number(askedThreads);
  } catch (e) {
    showError($('train-error'), e.message);
    return;
  }
  Object.assign(s, { kind: 'translator', steps: [], losses: [], epochLoss: null, validation: null });
  for (const key of ['valBleu', 'validatedEpoch', 'validations']) delete body.dataset[key];
  s.history.clear();
  showSnapshot();
  showError($('train-error'));
  setState('starting');
  showResults('translator');
  showStatus('Preparing the data and the model…', true);
  worker.postMessage({
    type: 'create', preset: $('train-preset').value, pairs, probes: probeTexts(),
    options,
  });
});

$('train-pause').addEventListener('click', () => {
  if (body.dataset.state === 'paused') {
    worker.postMessage({ type: 'run' });
    setState('training');
  } else {
    worker.postMessage({ type: 'pause' });
  }
});

$('train-probes').addEventListener('change', () => {
  s.sentencesEdited = true;
  worker.postMessage({ type: 'probe', probes: probeTexts() });
});
$('probe-choice').addEventListener('change', drawAttention);
// Dragging (or the arrow keys, Home, End) moves the replay; at the right end it follows the training again.
$('probe-scrub').addEventListener('input', (e) => {
  s.history.show(Number(e.target.value));
  showSnapshot();
});

// An export's bytes come back in a 'model' message, in the order asked: each is saved as a file or given to the demo.
function exportModel(purpose) {
  s.exports.push(purpose);
  worker.postMessage({ type: 'export' });
}
$('train-export').addEventListener('click', () => exportModel({ to: 'file' }));
$('train-translate').addEventListener('click', () => {
  // The demo's tab is opened now, while the click still counts as the user's (one opened when the bytes arrive
  // could be blocked as a pop-up), and sent to the demo once they are stored.
  const tab = window.open('', '_blank');
  $('train-translate-note').replaceChildren('Storing the model for the translator page…');
  exportModel({ to: 'demo', tab });
});

// The translator as exported, stored where the demo reads it (trained.js), and the demo opened on it.
async function openInDemo(bytes, tab) {
  const preset = s.info?.preset ?? 'model';
  const step = s.steps.at(-1) ?? 0;
  try {
    await storeModelBytes(trainedModelUrl(preset), bytes, { preset, step });
  } catch (e) {
    tab?.close();
    $('train-translate-note').replaceChildren();
    showError($('train-error'), `The model cannot be handed to the translator page: ${e.message}`);
    return;
  }
  const demo = new URL(`index.html?trained=${encodeURIComponent(preset)}`, location.href);
  // The link stays, for a browser that kept the tab from opening and for later.
  const link = document.createElement('a');
  link.href = demo.href;
  link.target = '_blank';
  link.textContent = `the translator page with ${preset} at step ${step}`;
  $('train-translate-note').replaceChildren('Stored in this browser: open ', link, '.');
  if (tab && !tab.closed) tab.location.href = demo.href;
}

// A language model's batches: the perplexity of each finished epoch plotted, the status line, the prediction.
function languageModelSteps(data) {
  for (const r of data.records) {
    s.steps.push(r.step);
    s.losses.push(r.loss);
    if (r.epochDone) {
      s.epochs.push(r.epoch + 1);
      s.perplexities.push(r.epochPerplexity);
    }
  }
  const last = data.records[data.records.length - 1];
  Object.assign(body.dataset, { step: last.step, epoch: last.epoch + (last.epochDone ? 1 : 0), loss: last.loss });
  let status = `step ${last.step}, epoch ${last.epoch + 1} (batch ${last.batch + 1} of ${last.batches}), ` +
    `loss ${last.loss.toFixed(3)}`;
  if (s.perplexities.length) {
    body.dataset.perplexity = s.perplexities.at(-1);
    status += `, perplexity ${s.perplexities.at(-1).toFixed(2)} (epoch ${s.epochs.at(-1)})`;
  }
  showStatus(status);
  if (data.records.some((r) => r.epochDone)) redraw('perplexity');
  if (data.probes) showPrediction(data.probes);
}

// Between Start and 'created', the worker may still be answering for the model it had: those steps, results and
// states are not this run's.
const STALE_WHILE_STARTING = new Set(['steps', 'probes', 'paused', 'finished']);

worker.onmessage = ({ data }) => {
  if (body.dataset.state === 'starting' && STALE_WHILE_STARTING.has(data.type)) return;
  switch (data.type) {
    case 'created':
      s.info = data.info;
      if (s.kind === 'lm') {
        body.dataset.threads = 1;  // the language models train on one thread
        $('epoch-count').placeholder = String(data.info.options.epochs);
        s.status = $('train-status').textContent = `${data.info.description}: ${data.info.parameters.toLocaleString('en')} ` +
          `parameters, ${data.info.trainChars.toLocaleString('en')} characters that train, a vocabulary of ` +
          `${data.info.vocab.length} characters, ${data.info.batchesPerEpoch} batches of ${data.info.options.batch} x ` +
          `${data.info.options.steps} an epoch.`;
        showPrediction(data.probes);
        setState('training');
        worker.postMessage({ type: 'run' });
        break;
      }
      $('epoch-count').placeholder = String(data.info.options.epochs);
      // Several threads where the page is cross-origin isolated (each trains on its share of every batch), else one.
      body.dataset.threads = data.info.threads;
      s.threadsNote = data.info.threads > 1 ? `on ${data.info.threads} threads`
        : `on one thread${data.threadsSupported ? '' : ' (this page is not cross-origin isolated)'}`;
      s.status = $('train-status').textContent = `${data.info.parameters.toLocaleString('en')} parameters, ` +
        `${data.info.trainPairs} training and ${data.info.validPairs} validation pairs, vocabularies of ` +
        `${data.info.sourceVocab} and ${data.info.targetVocab} words; training ${s.threadsNote}.`;
      addSnapshot(0, data.probes, true);
      setState('training');
      worker.postMessage({ type: 'run' });
      break;
    case 'steps': {
      if (s.kind === 'lm') {
        languageModelSteps(data);
        break;
      }
      for (const r of data.records) {
        s.steps.push(r.step);
        s.losses.push(r.loss);
        if (r.epochDone) s.epochLoss = r.epochLoss;
      }
      const last = data.records[data.records.length - 1];
      Object.assign(body.dataset, { step: last.step, epoch: last.epoch + (last.epochDone ? 1 : 0), loss: last.loss });
      let status = `step ${last.step}, epoch ${last.epoch + 1} (batch ${last.batch + 1} of ${last.batches}), ` +
        `loss ${last.loss.toFixed(3)}`;
      if (s.threadsNote) status = `${status} (${s.threadsNote})`;
      if (s.epochLoss !== null) status += `, the seeds' epoch loss ${s.epochLoss.toFixed(3)}`;
      if (data.validation) {
        // The worker validates after the first and the last epoch and between them as its time allows.
        body.dataset.valBleu = data.validation.valBleu;
        body.dataset.validatedEpoch = data.validation.epoch;
        body.dataset.validations = Number(body.dataset.validations ?? 0) + 1;
        s.validation = data.validation;
      }
      if (s.validation) status += `, validation BLEU ${s.validation.valBleu.toFixed(1)} (epoch ${s.validation.epoch})`;
      showStatus(status);
      redraw('loss');
      if (data.probes) addSnapshot(last.step, data.probes);
      break;
    }
    case 'probes':
      if (s.kind === 'lm') showPrediction(data.probes);
      else {
        // Answers the sentences edited (a new history) or nothing new (the same sentences, a snapshot more).
        addSnapshot(s.steps.at(-1) ?? 0, data.probes, s.sentencesEdited);
        s.sentencesEdited = false;
      }
      break;
    case 'paused':
      drawDirty();  // what is held shows at once, not with the next drawing
      setState('paused');
      break;
    case 'finished':
      drawDirty();
      setState('finished');
      showStatus(`${s.status ?? $('train-status').textContent} · finished its ${data.epochs} epochs`, true);
      break;
    case 'model': {
      const purpose = s.exports.shift() ?? { to: 'file' };
      if (purpose.to === 'demo') {
        openInDemo(data.bytes, purpose.tab);
        break;
      }
      const url = URL.createObjectURL(new Blob([data.bytes], { type: 'application/octet-stream' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = s.kind === 'lm' ? `${s.info?.preset ?? 'lm'}-epoch${s.epochs.at(-1) ?? 0}.safetensors`
        : `${s.info?.preset ?? 'model'}-step${s.steps.at(-1) ?? 0}.safetensors`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      break;
    }
    case 'error':
      showError($('train-error'), data.message);
      // An error that is neither a step's (those come with their records) nor the model's creation answers the
      // oldest export.
      if (!data.records && body.dataset.state !== 'starting' && s.exports.length) s.exports.shift()?.tab?.close();
      if (body.dataset.state === 'starting') setState('idle');
      else if (body.dataset.state === 'training') setState('paused');
      break;
    default:
      break;
  }
};
setState('idle');
showDataFields();
