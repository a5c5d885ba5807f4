// web/train.html: a translator trained in a Worker (train-worker.js, over attend-train.js), its loss per step plotted
// and the cross attention of a few sentences redrawn as it learns; or a character language model, its perplexity
// per epoch plotted and its continuation of a prefix redrawn after each epoch. The body's data attributes say what
// it shows (kind, state, step, epoch, last loss, last perplexity, the trainer's threads) for tests.
// ?threads=N asks for N threads (1 to 4; the default: the cores, at most 4, on a cross-origin isolated page).
import { drawPlot } from './lab-plot.js';
import { MatrixView } from './lab-matrix.js';
import { $, readNumber, showError } from './lab-dom.js';

const body = document.body;
const worker = new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
const askedThreads = new URLSearchParams(location.search).get('threads');
const s = { kind: 'translator', steps: [], losses: [], epochLoss: null, probes: [], info: null, epochs: [],
  perplexities: [] };
const attention = new MatrixView($('probe-attention'), {
  readout: $('probe-readout'), xLabel: 'source', yLabel: 'translation', maxHeight: 320,
  rowName: (i) => `“${current()?.targetTokens[i] ?? i}”`, colName: (j) => `“${current()?.sourceTokens[j] ?? j}”`,
});
const current = () => s.probes[$('probe-choice').selectedIndex];

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
}

const setState = (state) => {
  body.dataset.state = state;
  $('train-pause').disabled = state === 'idle' || state === 'starting' || state === 'finished';
  $('train-pause').textContent = state === 'paused' ? 'Resume' : 'Pause';
  $('train-export').disabled = state === 'idle' || state === 'starting';
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

function showProbes(probes) {
  s.probes = probes;
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
  const choice = $('probe-choice');
  const chosen = Math.min(Math.max(0, choice.selectedIndex), probes.length - 1);
  choice.replaceChildren(...probes.map((p, i) => new Option(followed[i]?.text ?? `sentence ${i + 1}`, String(i))));
  choice.selectedIndex = chosen;
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
  $('train-status').textContent = 'Preparing the text and the model…';
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
  showError($('train-error'));
  setState('starting');
  showResults('translator');
  $('train-status').textContent = 'Preparing the data and the model…';
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

$('train-probes').addEventListener('change', () => worker.postMessage({ type: 'probe', probes: probeTexts() }));
$('probe-choice').addEventListener('change', drawAttention);
$('train-export').addEventListener('click', () => worker.postMessage({ type: 'export' }));

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
  $('train-status').textContent = status;
  if (data.records.some((r) => r.epochDone)) drawPerplexity();
  if (data.probes) showPrediction(data.probes);
}

worker.onmessage = ({ data }) => {
  switch (data.type) {
    case 'created':
      s.info = data.info;
      if (s.kind === 'lm') {
        body.dataset.threads = 1;  // the language models train on one thread
        $('epoch-count').placeholder = String(data.info.options.epochs);
        $('train-status').textContent = `${data.info.description}: ${data.info.parameters.toLocaleString('en')} ` +
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
      $('train-status').textContent = `${data.info.parameters.toLocaleString('en')} parameters, ` +
        `${data.info.trainPairs} training and ${data.info.validPairs} validation pairs, vocabularies of ` +
        `${data.info.sourceVocab} and ${data.info.targetVocab} words; training ${s.threadsNote}.`;
      showProbes(data.probes);
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
        body.dataset.valBleu = data.validation.valBleu;
        s.validation = data.validation;
      }
      if (s.validation) status += `, validation BLEU ${s.validation.valBleu.toFixed(1)}`;
      $('train-status').textContent = status;
      drawLoss();
      if (data.probes) showProbes(data.probes);
      break;
    }
    case 'probes':
      if (s.kind === 'lm') showPrediction(data.probes);
      else showProbes(data.probes);
      break;
    case 'paused':
      setState('paused');
      break;
    case 'finished':
      setState('finished');
      $('train-status').textContent += ` · finished its ${data.epochs} epochs`;
      break;
    case 'model': {
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
      if (body.dataset.state === 'starting') setState('idle');
      else if (body.dataset.state === 'training') setState('paused');
      break;
    default:
      break;
  }
};
setState('idle');
showDataFields();
